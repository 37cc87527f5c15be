import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseDeadletterArgs, runDeadletter } from '../../app/cli/deadletter.js';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { capture } from '../support/capture.js';
import type { FakeWebApi } from '../../drill/sim/fake-web-api.js';
import { type RedisFixture, useRedisBridge } from '../support/redis-fixture.js';
import { eventually, repliesTo, type RunningCopy, SECRET } from '../support/copies.js';
import { useCopy, useFakeWebApi } from '../support/fixtures.js';

/** What `npm run deadletter` is run with: the same store and Web API as the hub. */
function deadletterEnv(api: FakeWebApi, fx: RedisFixture, extra: Record<string, string> = {}): Record<string, string> {
  return {
    AUTOHUB_ROLE: 'hub',
    SLACK_SIGNING_SECRET: SECRET,
    SLACK_BOT_TOKEN: 'xoxb-test-token',
    SLACK_API_URL: api.url,
    UPSTASH_REDIS_REST_URL: fx.bridge.url,
    UPSTASH_REDIS_REST_TOKEN: fx.bridge.token,
    AUTOHUB_REFUSAL_LOG: 'off',
    AUTOHUB_LOG_LEVEL: 'error',
    ...extra,
  };
}

/** Two mentions the channel refuses the bot for (not_in_channel), until both are dead letters. */
async function twoDeadLetters(hub: RunningCopy, api: FakeWebApi, mentions: ReadonlyArray<readonly [string, string]>, text?: string): Promise<void> {
  for (const [eventId, ts] of mentions) {
    api.script('chat.startStream', { status: 200, body: { ok: false, error: 'not_in_channel' } });
    await deliver(hub.eventsUrl, mentionEnvelope({ eventId, ts, channel: 'C0PRIVATE', ...(text ? { text } : {}) }), { signingSecret: SECRET });
  }
  await eventually(async () => ((await hub.store.listDead(10)) ?? []).length === 2, 'two dead letters', 10_000);
}

describe('parseDeadletterArgs', () => {
  it.each([
    [['list'], { verb: 'list', json: false }],
    [['list', '--json'], { verb: 'list', json: true }],
    [['replay', 'Ev1'], { verb: 'replay', id: 'Ev1' }],
    [['drop', 'Ev1'], { verb: 'drop', id: 'Ev1' }],
    [['replay', '--all'], { verb: 'replay', filter: { all: true, sinceMs: undefined, cause: undefined }, described: '--all' }],
    [['drop', '--since', '2h'], { verb: 'drop', filter: { all: false, sinceMs: 7_200_000, cause: undefined }, described: '--since 2h' }],
    [
      ['replay', '--since', '30m', '--cause', 'timeout'],
      { verb: 'replay', filter: { all: false, sinceMs: 1_800_000, cause: 'timeout' }, described: '--since 30m --cause "timeout"' },
    ],
  ])('%j', (argv, expected) => {
    expect(parseDeadletterArgs(argv)).toEqual(expected);
  });
  it.each([
    [[]],
    [['bogus']],
    [['list', 'Ev1']],
    [['replay']],
    [['drop', 'a', 'b']],
    [['list', '--bogus']],
    [['replay', 'Ev1', '--json']],
    [['replay', 'Ev1', '--all']],
    [['replay', '--all', '--since', '2h']],
    [['drop', '--since', 'soon']],
    [['list', '--all']],
    [['drop', '--cause', ' ']],
  ])('%j is a usage error', (argv) => {
    expect(() => parseDeadletterArgs(argv)).toThrow(/usage: npm run deadletter/);
  });
});

describe('npm run deadletter against the shared store', () => {
  const fx = useRedisBridge();
  const api = useFakeWebApi();
  const hub = useCopy({ role: 'hub', api, redis: fx });
  /** What `npm run deadletter` is run with: the same store and Web API as the hub. */
  let env: Record<string, string>;

  // Two turns dead-lettered (the channel refuses the bot).
  beforeAll(async () => {
    env = deadletterEnv(api, fx);
    await twoDeadLetters(hub, api, [
      ['Ev-dl-1', '1700003000.000001'],
      ['Ev-dl-2', '1700003000.000002'],
    ]);
  });

  it('lists them as JSON with id, event_id, channel, reason, attempts and when', async () => {
    const c = capture();
    expect(await runDeadletter(['list', '--json'], env, c.out)).toBe(0);
    const { entries } = JSON.parse(c.lines[0]!);
    expect(entries).toHaveLength(2);
    expect(entries[0]).toEqual({
      id: 'Ev-dl-2',
      event_id: 'Ev-dl-2',
      channel: 'C0PRIVATE',
      reason: 'slack: not_in_channel',
      attempts: 1,
      at: expect.any(String),
    });
  });

  it('lists them as a table for a person', async () => {
    const c = capture();
    expect(await runDeadletter(['list'], env, c.out)).toBe(0);
    expect(c.lines[0]).toMatch(/^id +channel +runs +at +reason$/);
    expect(c.lines.some((l) => l.startsWith('Ev-dl-1') && l.endsWith('slack: not_in_channel'))).toBe(true);
  });

  it('replays one through the lease path: exactly one reply, and a second replay finds nothing', async () => {
    const c = capture();
    expect(await runDeadletter(['replay', 'Ev-dl-1'], env, c.out)).toBe(0);
    expect(c.lines[0]).toMatch(/^replayed Ev-dl-1: answered/);
    expect(repliesTo(api, 'Ev-dl-1')).toHaveLength(1);
    const again = capture();
    expect(await runDeadletter(['replay', 'Ev-dl-1'], env, again.out)).toBe(1);
    expect(again.errors[0]).toMatch(/no dead letter "Ev-dl-1"/);
    expect(repliesTo(api, 'Ev-dl-1')).toHaveLength(1);
  });

  it('drops one: gone from the list, never answered', async () => {
    const c = capture();
    expect(await runDeadletter(['drop', 'Ev-dl-2'], env, c.out)).toBe(0);
    const list = capture();
    await runDeadletter(['list', '--json'], env, list.out);
    expect(JSON.parse(list.lines[0]!).entries).toEqual([]);
    expect(repliesTo(api, 'Ev-dl-2')).toHaveLength(0);
  });

  it('without a shared store it says which settings it needs, exit 2', async () => {
    const c = capture();
    expect(await runDeadletter(['list'], { AUTOHUB_ROLE: 'hub' }, c.out)).toBe(2);
    expect(c.errors[0]).toMatch(/UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN/);
  });
});

describe('npm run deadletter -- replay|drop in bulk (--all, --since, --cause)', () => {
  const fx = useRedisBridge();
  const api = useFakeWebApi();
  const hub = useCopy({ role: 'hub', api, redis: fx });
  let env: Record<string, string>;

  // Two letters the channel refused (not_in_channel) and one whose bot threw a bug of its own.
  beforeAll(async () => {
    env = deadletterEnv(api, fx);
    await twoDeadLetters(hub, api, [
      ['Ev-bulk-1', '1700005000.000001'],
      ['Ev-bulk-2', '1700005000.000002'],
    ]);
    api.script('chat.startStream', { status: 200, body: { ok: false, error: 'channel_not_found' } });
    await deliver(hub.eventsUrl, mentionEnvelope({ eventId: 'Ev-bulk-3', ts: '1700005000.000003', channel: 'C0GONE' }), { signingSecret: SECRET });
    await eventually(async () => ((await hub.store.listDead(10)) ?? []).length === 3, 'three dead letters', 10_000);
  });

  it('a filter that matches nothing says so and touches nothing, exit 0', async () => {
    const c = capture();
    expect(await runDeadletter(['drop', '--cause', 'no such reason'], env, c.out)).toBe(0);
    expect(c.lines).toEqual(['no dead letters match --cause "no such reason" (3 listed)']);
    expect((await hub.store.listDead(10))?.length).toBe(3);
  });

  it('replay --cause runs each matching letter once, one line each, oldest first, then a summary; the others stay listed', async () => {
    const c = capture();
    expect(await runDeadletter(['replay', '--since', '1d', '--cause', 'NOT_IN_CHANNEL'], env, c.out)).toBe(0);
    // Oldest first is selectDead's (test/app/dead-letter-filter.test.ts): these two died a moment apart, in either order.
    expect(c.lines.slice(0, 2).sort()).toEqual([
      expect.stringMatching(/^replayed Ev-bulk-1: answered/),
      expect.stringMatching(/^replayed Ev-bulk-2: answered/),
    ]);
    expect(c.lines.slice(2)).toEqual(['replayed 2 matching --since 1d --cause "NOT_IN_CHANNEL": 2 answered, 0 not']);
    expect(repliesTo(api, 'Ev-bulk-1')).toHaveLength(1);
    expect(repliesTo(api, 'Ev-bulk-2')).toHaveLength(1);
    expect(((await hub.store.listDead(10)) ?? []).map((d) => d.eventId)).toEqual(['Ev-bulk-3']);
  });

  it('drop --all forgets every letter left, one line each and a summary, and answers none', async () => {
    const c = capture();
    expect(await runDeadletter(['drop', '--all'], env, c.out)).toBe(0);
    expect(c.lines).toEqual(['dropped Ev-bulk-3 (slack: channel_not_found)', 'dropped 1 of 1 matching --all']);
    expect(await hub.store.listDead(10)).toEqual([]);
    expect(repliesTo(api, 'Ev-bulk-3')).toHaveLength(0);
  });
});

describe("npm run deadletter -- replay runs the owner's bot, and leaves what it cannot open listed", () => {
  const fx = useRedisBridge();
  const api = useFakeWebApi();
  const hub = useCopy({ role: 'hub', api, redis: fx });
  let env: Record<string, string>;

  // The owner's bot (AUTOHUB_TURN), in a file of its own as `npm start` would load it: its words are unmistakable.
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'autohub-replay-bot-'));
    const bot = join(dir, 'my-bot.mjs');
    writeFileSync(bot, 'export function takeTurn(request) { return "the owner\'s bot heard: " + request.text.trim(); }\n');
    env = deadletterEnv(api, fx, { AUTOHUB_TURN: bot });
    await twoDeadLetters(
      hub,
      api,
      [
        ['Ev-bot-1', '1700004000.000001'],
        ['Ev-bot-2', '1700004000.000002'],
      ],
      '<@UAUTOHUB> what is the weather',
    );
  });

  it('the replayed answer is the bot of AUTOHUB_TURN, not the demo turn', async () => {
    const c = capture();
    expect(await runDeadletter(['replay', 'Ev-bot-1'], env, c.out)).toBe(0);
    expect(c.lines[0]).toMatch(/^replayed Ev-bot-1: answered/);
    const replies = repliesTo(api, 'Ev-bot-1');
    expect(replies).toHaveLength(1);
    expect(replies[0]!.params.text ?? replies[0]!.params.markdown_text).toBe("the owner's bot heard: what is the weather");
  });

  it('a bot that cannot be loaded is named, exit 2, and the dead letter is not touched', async () => {
    const c = capture();
    expect(await runDeadletter(['replay', 'Ev-bot-2'], { ...env, AUTOHUB_TURN: join(tmpdir(), 'no-such-bot.mjs') }, c.out)).toBe(2);
    expect(c.errors[0]).toMatch(/AUTOHUB_TURN is invalid/);
    expect(((await hub.store.listDead(10)) ?? []).map((d) => d.eventId)).toContain('Ev-bot-2');
  });

  it('with a store key that cannot open the record it says why (lease.takeover_unreadable), exit 1, and the entry stays listed', async () => {
    const c = capture();
    const wrongKey = { ...env, AUTOHUB_STORE_KEY: 'ab'.repeat(32) };
    expect(await runDeadletter(['replay', 'Ev-bot-2'], wrongKey, c.out)).toBe(1);
    expect(c.lines[0]).toMatch(/^replayed Ev-bot-2: not replayed, still a dead letter: lease\.takeover_unreadable: sealed under a store key/);
    const list = capture();
    expect(await runDeadletter(['list', '--json'], env, list.out)).toBe(0);
    expect(JSON.parse(list.lines[0]!).entries.map((e: { id: string }) => e.id)).toEqual(['Ev-bot-2']);
    expect(repliesTo(api, 'Ev-bot-2')).toHaveLength(0);
    // With the copies' own key it is replayed after all.
    expect(await runDeadletter(['replay', 'Ev-bot-2'], env, capture().out)).toBe(0);
    expect(repliesTo(api, 'Ev-bot-2')).toHaveLength(1);
  });
});
