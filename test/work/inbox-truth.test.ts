/**
 * The owner's notices about the edge's inbox tell the truth (issue 43,
 * breaks 4 and 5), on a real copy over a real redis-server behind the Upstash
 * REST bridge. Before, an edge sealing with a store key the copies did not
 * hold had its kept deliveries dropped as `cannot open` at warn, and the
 * owner was told "All 2 deliveries the edge kept are answered"; a full inbox
 * refused deliveries with 503 and only the edge's own log said so.
 */
import { describe, expect, it } from 'vitest';
import { mentionEnvelope } from '../../drill/sim/slack-events.js';
import { createEdgeKeeper, outageEndText, outageStartText, parseInboxSettings, refusedText } from '../../lib/inbox/index.js';
import { signedHeaders } from '../../lib/slack/index.js';
import { eventually, SECRET } from '../support/copies.js';
import { useCopiesPerTest, useFakeWebApi } from '../support/fixtures.js';
import { useRedisBridge } from '../support/redis-fixture.js';

describe("the owner hears what became of the edge's kept deliveries", () => {
  const redis = useRedisBridge();
  const api = useFakeWebApi();
  const copies = useCopiesPerTest({ api, redis, env: { AUTOHUB_OWNER: 'U0OWNER' } });
  const told = () =>
    api
      .posts()
      .filter((c) => c.params.channel === 'U0OWNER')
      .map((c) => c.params.text ?? '');
  const keep = async (env: Record<string, string>, eventId: string, ts: string) => {
    const settings = parseInboxSettings({ UPSTASH_REDIS_REST_URL: redis.bridge.url, UPSTASH_REDIS_REST_TOKEN: redis.bridge.token, ...env })!;
    const body = JSON.stringify(mentionEnvelope({ eventId, ts }));
    const request = new Request('https://edge.example.com/slack/events', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(await signedHeaders(SECRET, body, Date.now())) },
      body,
    });
    return (await createEdgeKeeper({ settings, signingSecret: SECRET }).keep(request, new TextEncoder().encode(body), Date.now(), 2_000)).kind;
  };

  it('deliveries sealed with another store key are told as lost, with the way to check, never as taken up', async () => {
    const otherKey = { AUTOHUB_STORE_KEY: 'ab'.repeat(32) };
    expect(await keep(otherKey, 'Ev-other-key-1', '1700000800.000001')).toBe('kept');
    expect(await keep(otherKey, 'Ev-other-key-2', '1700000800.000002')).toBe('kept');
    const copy = await copies.start('hub');
    await copy.inbox!.drain('test');
    await eventually(() => told().includes(outageEndText(2, 2, 2)), 'the end of the outage, counting the lost and why');
    expect(outageEndText(2, 2, 2)).toMatch(/none of the 2 .* 2 could not be opened: .*`npm run verify` compares them/);
    expect(told()).not.toContain(outageEndText(2));
    // None of them was run: no note may say any was taken up (the end note once said "the rest are taken up").
    expect(told().filter((t) => /taken up/.test(t))).toEqual([]);
    // Nor that any is being answered (the outage's first note said "answering them now", and none could be opened).
    expect(told().filter((t) => /answering|are answered/.test(t))).toEqual([]);
    expect(told()).toContain(outageStartText(2));
    expect(copy.lines.filter((l) => l.event === 'inbox.dropped' && l.level === 'error')).toHaveLength(2);
  });

  it('two copies draining unopenable deliveries at once tell the owner once, each counted once', async () => {
    // Bug caught (drill both-down-edge-key): both copies dropped the same 13, each told the owner its own count
    // (24 in all), and the one that ended the outage, having dropped 11, said "the rest are taken up".
    const otherKey = { AUTOHUB_STORE_KEY: 'cd'.repeat(32) };
    const before = told().length;
    const toldHere = () => told().slice(before);
    for (let i = 1; i <= 6; i++) expect(await keep(otherKey, `Ev-both-${i}`, `1700001000.00000${i}`)).toBe('kept');
    const [hub, cloud] = await Promise.all([copies.start('hub'), copies.start('cloud')]);
    await Promise.all([hub.inbox!.drain('test'), cloud.inbox!.drain('test')]);
    await eventually(() => toldHere().some((t) => /could not be opened/.test(t)), 'the owner told of the lost');
    await Promise.all([hub.inbox!.drain('again'), cloud.inbox!.drain('again')]);
    expect(toldHere().filter((t) => /could not be opened/.test(t))).toEqual([outageEndText(6, 6, 6)]);
    expect(toldHere().filter((t) => /taken up/.test(t))).toEqual([]);
  });

  it('a full inbox that refused a delivery is told to the owner once and shown on health (before: only in the edge log)', async () => {
    const full = { AUTOHUB_INBOX_MAX: '1' };
    expect(await keep(full, 'Ev-full-1', '1700000900.000001')).toBe('kept');
    expect(await keep(full, 'Ev-full-2', '1700000900.000002')).toBe('full');
    const copy = await copies.start('hub');
    await copy.inbox!.drain('test');
    await eventually(() => told().includes(refusedText(1)), 'the owner told of the refusal');
    expect(copy.health.report().body.inbox?.refused).toBe(1);
    await copy.inbox!.drain('again');
    expect(told().filter((t) => t === refusedText(1))).toHaveLength(1);
  });
});
