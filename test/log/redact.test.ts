import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../lib/log/index.js';
import { refusalSink, type RefusalRecord } from '../../lib/ratelimit/index.js';

const SECRET = 'the-signing-secret-0123456789';

describe('the redaction step every log line passes', () => {
  const log = createMemoryLogger({ secrets: [SECRET] });
  const line = () => JSON.stringify(log.lines.at(-1));

  it('an error keeps its name, code, message, stack and cause', () => {
    const cause = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    log.error('turn.failed', { error: Object.assign(new Error('A request error occurred', { cause }), { code: 'slack_webapi_request_error' }) });
    const { error } = log.lines.at(-1) as { error: Record<string, unknown> };
    expect(error).toMatchObject({ name: 'Error', code: 'slack_webapi_request_error', message: 'A request error occurred', cause: { code: 'ECONNRESET' } });
    expect(String(error.stack)).toMatch(/at /);
  });

  it('masks Slack tokens, bearer tokens and given secrets wherever they appear, errors included', () => {
    log.warn('x', { detail: 'token xoxb-1234-5678-abcdef used', auth: `Bearer ${SECRET}`, error: new Error(`bad secret ${SECRET}`) });
    expect(line()).not.toContain('xoxb-1234');
    expect(line()).not.toContain(SECRET);
    expect(line()).toContain('[redacted]');
  });

  it("cuts an Upstash error's trailing command (which can carry a stored body)", () => {
    log.warn('store.write_failed', { reason: 'UpstashError: ERR max request size exceeded, command was: ["set","k","{\\"text\\":\\"MARKER\\"}"]' });
    expect(line()).not.toContain('MARKER');
    expect(line()).toContain('ERR max request size exceeded');
  });

  it('drops fields that hold content whatever they are nested in, but keeps a numeric fencing token', () => {
    log.info('x', { delivery: { body: { event: { text: 'MARKER' } }, text: 'MARKER', payload: 'MARKER' }, token: 3 });
    expect(line()).not.toContain('MARKER');
    expect(log.lines.at(-1)).toMatchObject({ token: 3 });
  });
});

describe('the refusal log', () => {
  const record: RefusalRecord = {
    method: 'chat.postMessage',
    status: 429,
    body: { ok: false, error: 'ratelimited' },
    headers: { 'retry-after': '1' },
    waited: 1,
    at: '2026-11-30T00:00:00Z',
    instance: 'hub-x',
  };

  it('rotates at its size cap: the full file becomes .1 and a fresh one starts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'autohub-refusals-'));
    const path = join(dir, 'refusals.jsonl');
    const log = createMemoryLogger();
    const sink = refusalSink({ path, log, maxBytes: 1000 });
    for (let i = 0; i < 20; i++) sink(record);
    await sink.settled();
    expect(statSync(`${path}.1`).size).toBeGreaterThanOrEqual(1000);
    expect(statSync(path).size).toBeLessThan(1000 + 300);
    const lines = [...readFileSync(`${path}.1`, 'utf8').trim().split('\n'), ...readFileSync(path, 'utf8').trim().split('\n')];
    expect(lines.every((l) => JSON.parse(l).method === 'chat.postMessage')).toBe(true);
  });
});
