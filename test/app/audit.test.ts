import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebClient } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import { runAudit } from '../../app/cli/audit.js';
import { silentLogger } from '../../lib/log/index.js';
import { createRateLimitFetch, refusalSink } from '../../lib/ratelimit/index.js';
import type { ScriptedAnswer } from '../../drill/sim/fake-web-api.js';
import { capture } from '../support/capture.js';
import { eventually } from '../support/copies.js';
import { useFakeWebApi } from '../support/fixtures.js';
import { virtualTime } from '../support/virtual-time.js';

const dir = mkdtempSync(join(tmpdir(), 'autohub-audit-'));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

describe('npm run audit', () => {
  const api = useFakeWebApi();

  it("judges every refusal in this client's own log of a storm as honoured", async () => {
    const path = join(dir, 'storm.jsonl');
    const time = virtualTime();
    const web = new WebClient('xoxb-test', {
      slackApiUrl: api.url,
      retryConfig: { retries: 0 },
      fetch: createRateLimitFetch({ now: time.now, sleep: time.sleep, onRefusal: refusalSink({ path, log: silentLogger }), instance: 'hub' }),
    });
    const refuse = (retryAfter?: string, shape: 429 | 200 = 429): ScriptedAnswer =>
      ({
        status: shape,
        body: { ok: false, error: 'ratelimited' },
        headers: retryAfter === undefined ? {} : { 'retry-after': retryAfter },
      }) as ScriptedAnswer;
    api.script('chat.postMessage', refuse('3'), refuse('1', 200));
    await web.chat.postMessage({ channel: 'C1', text: 'a' });
    api.script('chat.postMessage', refuse(), refuse('0'));
    await web.chat.postMessage({ channel: 'C1', text: 'b' });
    await eventually(() => readFileSync(path, 'utf8').trim().split('\n').length === 4, 'four refusal lines');

    const c = capture();
    expect(await runAudit(['--record', path, '--no-sweep', '--json'], {}, c.out)).toBe(0);
    const report = JSON.parse(c.lines[0]!);
    expect(report.records).toHaveLength(4);
    expect(report.records.map((r: { verdict: string }) => r.verdict)).toEqual(['honoured', 'honoured', 'honoured', 'honoured']);
    expect(report.records.map((r: { source: string }) => r.source)).toEqual(['header', 'header', 'absent', 'zero']);
    expect(report).toMatchObject({ mishandled: 0, sweeps: 0 });
  });

  it('finds an early retry and a blind sleep in a hand-made log, and exits 1', async () => {
    const path = file(
      'bad.json',
      JSON.stringify([
        { method: 'conversations.history', status: 200, body: { ok: false, error: 'ratelimited' }, headers: { 'Retry-After': '60' }, waited: 1 },
        { method: 'users.list', status: 429, body: {}, headers: { 'Retry-After': '3' }, waited: 60 },
        { method: 'auth.test', status: 200, body: { ok: true }, headers: {}, waited: 0 },
      ]),
    );
    const c = capture();
    expect(await runAudit(['--record', path, '--no-sweep'], {}, c.out)).toBe(1);
    expect(c.lines.join('\n')).toMatch(/replay {3}retried-early {4}conversations.history waited 1.0s against a window of 60s/);
    expect(c.lines.join('\n')).toMatch(/replay {3}slept-blind/);
    expect(c.lines.join('\n')).toMatch(/repair: read Retry-After instead of a constant/);
    expect(c.lines.at(-1)).toBe('0 sweep call(s), 3 replayed refusal(s), 2 mishandled');
  });

  it.each([
    [['--record', '/nonexistent/x.jsonl', '--no-sweep'], /cannot read \/nonexistent\/x.jsonl: ENOENT/],
    [['--record', 'MALFORMED', '--no-sweep'], /line 2, is not a JSON object/],
    [['--record', 'NOTARRAY', '--no-sweep'], /not valid JSON/],
    [['--no-sweep'], /nothing to do/],
    [['--record'], /--record needs a value/],
    [['--bogus'], /unknown argument "--bogus"/],
    [[], /^audit: usage: npm run audit -- --record FILE \[--no-sweep\] \[--json\] \| --sweep \[--json\]$/],
    [['--sweep'], /set SLACK_BOT_TOKEN, or pass --no-sweep/],
    [['--sweep', '--no-sweep'], /cannot go together/],
  ])('%j is a usage error: exit 2 with one clear line', async (argv, message) => {
    const args = argv.map((a) =>
      a === 'MALFORMED' ? file('malformed.jsonl', '{"method":"a"}\nnot json\n') : a === 'NOTARRAY' ? file('notarray.json', '[{') : a,
    );
    const c = capture();
    expect(await runAudit(args, {}, c.out)).toBe(2);
    expect(c.errors).toHaveLength(1);
    expect(c.errors[0]).toMatch(message);
  });

  it('sweeps with exactly one call each of three read methods, no retry, and reports their shape', async () => {
    api.calls.length = 0;
    const c = capture();
    expect(await runAudit(['--json'], { SLACK_BOT_TOKEN: 'xoxb-test', SLACK_API_URL: api.url }, c.out)).toBe(0);
    expect(api.calls.map((x) => [x.method, x.params.limit])).toEqual([
      ['auth.test', undefined],
      ['conversations.list', '1'],
      ['users.list', '1'],
    ]);
    expect(JSON.parse(c.lines[0]!)).toMatchObject({ sweeps: 3, mishandled: 0, sweep: [{ state: 'ok' }, { state: 'ok' }, { state: 'ok' }] });
  });

  it('a throttled sweep exits 1 and is not retried', async () => {
    api.calls.length = 0;
    api.script('users.list', { status: 429, body: { ok: false, error: 'ratelimited' }, headers: { 'retry-after': '20' } });
    const c = capture();
    expect(await runAudit(['--sweep'], { SLACK_BOT_TOKEN: 'xoxb-test', SLACK_API_URL: api.url }, c.out)).toBe(1);
    expect(api.calls).toHaveLength(3);
    expect(c.lines.join('\n')).toMatch(/users.list +HTTP 429 throttled-429 +Retry-After: 20s \(header\)/);
  });
});
