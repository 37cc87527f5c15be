/**
 * The store contract: every SharedStore method, run against both stores (the
 * in-process store on an injected clock, the Upstash store over a real
 * redis-server), so the Redis scripts and their in-process twin cannot drift
 * apart. Bounds come from STORE_LIMITS, never restated here. Time is virtual
 * on both (test/store/subjects.ts): no test sleeps.
 */
import { describe, expect, it } from 'vitest';
import { STATUS_KEYS, stepsKey } from '../../lib/store/keys.js';
import { DEFAULT_RETRY } from '../../lib/store/lease.js';
import { SLACK_LAST_REDELIVERY_SECONDS, STORE_LIMITS as L } from '../../lib/store/limits.js';
import type { ClaimOwner } from '../../lib/store/record.js';
import type { SharedStore } from '../../lib/store/roles.js';
import { inProcess, overRedis, type Subject } from './subjects.js';

const hub = { instance: 'hub-1', role: 'hub' } as const;
const cloud = { instance: 'cloud-1', role: 'cloud' } as const;
const other = { instance: 'cloud-2', role: 'cloud' } as const;
let n = 0;
const key = () => `autohub:claim:T1:event:contract-${++n}`;
const alias = () => `autohub:claim:T1:message:app_mention:C1:contract-${++n}`;
const policy = { ...DEFAULT_RETRY, attempts: 3, windowMs: 60_000 };
const LEASE = 10_000;
const SECOND = 1000;
/** Slack's retry window, the gap the copies record. */
const GAP = 360_000;

/** What a look by `owner` takes of `k`, once `LEASE` has passed. */
async function takeLapsed(x: Subject, k: string, owner: ClaimOwner = cloud, leaseMs = LEASE, s: SharedStore = x.a) {
  await x.elapse(leaseMs + 1);
  return ((await s.look(owner, leaseMs, 100, undefined, { policy }))?.taken ?? []).filter((t) => t.key === k);
}

describe.each([inProcess, overRedis()])('the store contract, on the $name store', (store) => {
  describe('claims', () => {
    it('a second claim of a key is a duplicate: a delivery Slack retries runs once', async () => {
      const { a, b } = store.open();
      const k = key();
      expect(await a.claim([k], hub)).toEqual({ kind: 'claimed' });
      expect(await b.claim([k], cloud)).toEqual({ kind: 'duplicate' });
    });

    it('50 concurrent claims of one key from two handles give exactly one claim: no race lets two copies run it', async () => {
      const { a, b } = store.open();
      const k = key();
      const kinds = (await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).claim([k], i % 2 ? hub : cloud)))).map((o) => o.kind);
      expect(kinds.filter((kind) => kind === 'claimed')).toHaveLength(1);
      expect(kinds.filter((kind) => kind === 'duplicate')).toHaveLength(49);
    });

    it('a message held under another event id makes the claim a duplicate, and none of its keys is written or leased (all or none)', async () => {
      const x = store.open();
      const held = alias();
      await x.a.claim([key(), held], hub, { leaseMs: LEASE, body: '{}' });
      const k = key();
      expect((await x.b.claim([k, held], cloud, { leaseMs: LEASE, body: '{}' })).kind).toBe('duplicate');
      expect(await x.a.read(k)).toBeNull();
      expect(await takeLapsed(x, k)).toEqual([]);
    });

    it('a claim is kept claimTtlSeconds: a retry within it is a duplicate, and only after it is the key free again', async () => {
      const x = store.open();
      const k = key();
      await x.a.claim([k], hub);
      await x.elapse(L.claimTtlSeconds * SECOND - 5 * SECOND);
      expect((await x.b.claim([k], cloud)).kind).toBe('duplicate');
      await x.elapse(5 * SECOND);
      expect((await x.b.claim([k], cloud)).kind).toBe('claimed');
    });

    it("a finished turn's delayed redelivery (Slack's last, about a day after the first attempt) finds its claim and its alias: a duplicate, not a second answer", async () => {
      const x = store.open();
      const [k, m] = [key(), alias()];
      await x.a.claim([k, m], hub, { leaseMs: LEASE, body: '{}' });
      const record = JSON.parse((await x.a.read(k))!) as { token: number };
      expect(await x.a.finish(k, record.token, '1700000000.000100')).toBe('ok');
      // Before: every key lived 24 h, so a redelivery an hour before the end of Slack's day found nothing left.
      await x.elapse((SLACK_LAST_REDELIVERY_SECONDS + 3_600) * SECOND);
      expect((await x.b.claim([k, m], cloud, { leaseMs: LEASE, body: '{}' })).kind).toBe('duplicate');
      expect((await x.b.claim([key(), m], cloud, { leaseMs: LEASE, body: '{}' })).kind).toBe('duplicate');
    });

    it('only the primary key holds the body; the message alias holds the owner alone (no second copy of a message)', async () => {
      const { a } = store.open();
      const [k, m] = [key(), alias()];
      await a.claim([k, m], hub, { leaseMs: LEASE, body: '{"secret":"marker"}' });
      expect(JSON.parse((await a.read(k))!)).toMatchObject({ instance: 'hub-1', role: 'hub', body: '{"secret":"marker"}', token: 1 });
      expect(await a.read(m)).not.toContain('marker');
      expect(JSON.parse((await a.read(m))!)).toMatchObject({ instance: 'hub-1', role: 'hub' });
    });
  });

  describe('leases', () => {
    it('a leased claim carries token 1; renewals, commit and finish hold with that token only, and finish keeps the reply ts without the body', async () => {
      const { a } = store.open();
      const k = key();
      expect(await a.claim([k], hub, { leaseMs: LEASE, body: '{"x":1}' })).toEqual({ kind: 'claimed', token: 1 });
      expect(await a.renew([{ key: k, token: 1 }], LEASE)).toEqual(['ok']);
      expect(await a.commit(k, 1, LEASE)).toBe('ok');
      expect(await a.commit(k, 2, LEASE)).toBe('lost');
      expect(await a.finish(k, 1, '1700000000.000100')).toBe('ok');
      expect(await a.commit(k, 1, LEASE)).toBe('lost');
      expect(await a.renew([{ key: k, token: 1 }], LEASE)).toEqual(['lost']);
      const done = JSON.parse((await a.read(k))!);
      expect(done).toMatchObject({ state: 'done', reply_ts: '1700000000.000100', instance: 'hub-1' });
      expect(done.body).toBeUndefined();
    });

    it('one renewal request answers for every lease a copy holds, each on its own: a lost one never fails the others', async () => {
      const { a } = store.open();
      const [k1, k2] = [key(), key()];
      await a.claim([k1], hub, { leaseMs: LEASE, body: '{}' });
      await a.claim([k2], hub, { leaseMs: LEASE, body: '{}' });
      await a.finish(k2, 1, null);
      const leases = [
        { key: k1, token: 1 },
        { key: k2, token: 1 },
        { key: k1, token: 7 },
      ];
      expect(await a.renew(leases, LEASE)).toEqual(['ok', 'lost', 'lost']);
    });

    it('a renewal keeps a lease from lapsing: a live owner is never taken over', async () => {
      const x = store.open();
      const k = key();
      await x.a.claim([k], hub, { leaseMs: LEASE, body: '{}' });
      await x.elapse(LEASE - SECOND);
      expect(await x.a.renew([{ key: k, token: 1 }], LEASE)).toEqual(['ok']);
      await x.elapse(LEASE - SECOND);
      expect((await x.b.look(cloud, LEASE, 100))?.taken).toEqual([]);
    });

    it("a streamed reply's ts goes into the lease, how much Slack confirmed rides on the renewals, and a taker-over learns the ts (no second message)", async () => {
      const x = store.open();
      const k = key();
      await x.a.claim([k], hub, { leaseMs: LEASE, body: '{}' });
      expect(await x.a.markStream(k, 1, '1700000000.000777')).toBe('ok');
      expect(await x.a.renew([{ key: k, token: 1, confirmed: 42 }], LEASE)).toEqual(['ok']);
      expect(JSON.parse((await x.a.read(k))!)).toMatchObject({ stream: '1700000000.000777', stream_confirmed: 42 });
      const [taken] = await takeLapsed(x, k, cloud, LEASE, x.b);
      expect(taken).toMatchObject({ key: k, streamTs: '1700000000.000777' });
      expect(await x.a.markStream(k, 1, 'x')).toBe('lost');
    });

    it('a lapsed lease is taken over once, with a new token, and fences the old owner out', async () => {
      const x = store.open();
      const k = key();
      await x.a.claim([k], hub, { leaseMs: LEASE, body: '{"event_id":"Ev1"}' });
      await x.elapse(LEASE - SECOND);
      expect((await x.b.look(cloud, LEASE, 10))?.taken).toEqual([]);
      const taken = await takeLapsed(x, k, cloud, LEASE, x.b);
      expect(taken).toEqual([{ key: k, token: 2, state: 'claimed', body: '{"event_id":"Ev1"}', attempts: 2, ambiguous: false }]);
      expect((await x.b.look(other, LEASE, 10))?.taken).toEqual([]);
      expect(await x.a.renew([{ key: k, token: 1 }], LEASE)).toEqual(['lost']);
      expect(await x.a.commit(k, 1, LEASE)).toBe('lost');
      expect(await x.b.commit(k, 2, LEASE)).toBe('ok');
      expect(JSON.parse((await x.a.read(k))!)).toMatchObject({ instance: 'cloud-1', token: 2, state: 'posting' });
    });

    it('a look says when the next lease falls due, and null when none is live (no idle copy wakes for nothing)', async () => {
      const x = store.open();
      const k = key();
      await x.a.claim([k], hub, { leaseMs: 5000, body: '{}' });
      await x.elapse(1000);
      const look = await x.b.look(other, LEASE, 0);
      // Read on the store's own clock (its claim's first_at, its look's now), whatever time the test itself takes.
      const claimedAt = (JSON.parse((await x.a.read(k))!) as { first_at: number }).first_at;
      const lookedAt = look!.nowMs!;
      expect(lookedAt - claimedAt).toBeGreaterThanOrEqual(1000);
      expect(look?.nextDueMs).toBe(claimedAt + 5000 - lookedAt);
      await x.a.finish(k, 1, null);
      expect((await x.b.look(other, LEASE, 0))?.nextDueMs).toBeNull();
    });

    it('pending counts live leases and due retries across copies, never finished turns', async () => {
      const { a, b } = store.open();
      const [live, retried, done] = [key(), key(), key()];
      for (const k of [live, retried, done]) await a.claim([k], hub, { leaseMs: LEASE, body: '{}' });
      await a.release(retried, 1, { delayMs: 2000, reason: 'http 500', ambiguous: false, policy });
      await a.finish(done, 1, null);
      expect(await b.pending()).toBe(2);
    });

    it('a look writes each copy heartbeat under its instance, so replicas never overwrite each other', async () => {
      const { a, b } = store.open();
      await a.look(cloud, LEASE, 0, '{"instance":"cloud-1"}');
      await b.look(other, LEASE, 0, '{"instance":"cloud-2"}');
      expect(await a.readHash(STATUS_KEYS.copies)).toEqual({ 'cloud-1': '{"instance":"cloud-1"}', 'cloud-2': '{"instance":"cloud-2"}' });
    });

    it('the heartbeats lapse heartbeatTtlSeconds after the last look that wrote one: a copy gone for good leaves the status page', async () => {
      const x = store.open();
      await x.a.look(cloud, LEASE, 0, '{"instance":"cloud-1"}');
      await x.elapse(L.heartbeatTtlSeconds * SECOND - 5 * SECOND);
      await x.b.look(other, LEASE, 0, '{"instance":"cloud-2"}');
      await x.elapse(L.heartbeatTtlSeconds * SECOND - 5 * SECOND);
      expect(Object.keys((await x.a.readHash(STATUS_KEYS.copies)) ?? {}).sort()).toEqual(['cloud-1', 'cloud-2']);
      await x.elapse(5 * SECOND);
      expect(await x.a.readHash(STATUS_KEYS.copies)).toEqual({});
    });

    it('a released turn is not taken before its retry is due, then taken as a retry with its ambiguity', async () => {
      const x = store.open();
      const k = key();
      await x.a.claim([k], hub, { leaseMs: 60_000, body: '{}' });
      expect(await x.a.release(k, 1, { delayMs: 2000, reason: 'http 500', ambiguous: true, policy })).toBe('retry');
      expect(await x.a.finish(k, 1, null)).toBe('lost');
      await x.elapse(1999 - 50);
      expect((await x.b.look(cloud, LEASE, 100))?.taken).toEqual([]);
      const [taken] = await takeLapsed(x, k, cloud, 100, x.b);
      expect(taken).toMatchObject({ key: k, token: 2, state: 'retry', attempts: 2, ambiguous: true });
    });

    it('a turn whose runs are spent becomes a dead letter, listed without its body, replayable once, droppable', async () => {
      const x = store.open();
      const { a, b } = x;
      const k = key();
      await a.claim([k], hub, { leaseMs: LEASE, body: '{"text":"marker"}', eventId: 'EvDead', channel: 'C1' });
      expect(await a.release(k, 1, { delayMs: 0, reason: 'http 500', ambiguous: false, policy })).toBe('retry');
      const [second] = await takeLapsed(x, k, cloud, LEASE, b);
      expect(await b.release(k, second!.token, { delayMs: 0, reason: 'http 500', ambiguous: false, policy })).toBe('retry');
      const [third] = await takeLapsed(x, k, cloud, LEASE, b);
      expect(third!.attempts).toBe(3);
      expect(await b.release(k, third!.token, { delayMs: 0, reason: 'slack: internal_error', ambiguous: false, policy })).toBe('dead');
      expect(await takeLapsed(x, k, other)).toEqual([]);
      const dead = (await a.listDead(50))!.find((d) => d.key === k);
      expect(dead).toMatchObject({ eventId: 'EvDead', channel: 'C1', reason: 'slack: internal_error', attempts: 3 });
      expect(JSON.stringify(dead)).not.toContain('marker');
      const replay = await a.replayDead(k, other, LEASE);
      expect(replay).toMatchObject({ key: k, state: 'dead', body: '{"text":"marker"}', token: 4 });
      expect(await a.replayDead(k, other, LEASE)).toBeUndefined();
      expect(await a.deadLetter(k, 4, 'slack: channel_not_found')).toBe('ok');
      expect(await a.dropDead(k)).toBe(true);
      expect(await a.dropDead(k)).toBe(false);
      expect((await a.listDead(50))!.map((d) => d.key)).not.toContain(k);
      expect(await a.read(k)).not.toContain('marker');
    });

    it('dead letters are listed newest first and as many as asked: the status page never shows an old one over a new one', async () => {
      const x = store.open();
      const [older, newer] = [key(), key()];
      await x.a.claim([older], hub, { leaseMs: LEASE, body: '{}' });
      await x.a.claim([newer], hub, { leaseMs: LEASE, body: '{}' });
      await x.a.deadLetter(older, 1, 'first');
      await x.elapse(SECOND);
      await x.a.deadLetter(newer, 1, 'second');
      expect((await x.b.listDead(50))!.map((d) => d.reason)).toEqual(['second', 'first']);
      expect((await x.b.listDead(1))!.map((d) => d.reason)).toEqual(['second']);
    });

    it('a dead letter is kept deadTtlSeconds, then forgotten with its record', async () => {
      const x = store.open();
      const k = key();
      await x.a.claim([k], hub, { leaseMs: LEASE, body: '{}' });
      await x.a.deadLetter(k, 1, 'slack: not_in_channel');
      await x.elapse(L.deadTtlSeconds * SECOND - 5 * SECOND);
      expect((await x.a.listDead(50))!.map((d) => d.key)).toEqual([k]);
      await x.elapse(5 * SECOND);
      expect(await x.a.listDead(50)).toEqual([]);
      expect(await x.a.read(k)).toBeNull();
    });

    it('a run that waited on a closed rate-limit window is free: only the retry window ends such a turn', async () => {
      const x = store.open();
      const k = key();
      await x.a.claim([k], hub, { leaseMs: 60_000, body: '{}' });
      let token = 1;
      for (let i = 0; i < 5; i++) {
        expect(await x.a.release(k, token, { delayMs: 0, reason: 'rate-limit budget spent', ambiguous: false, free: true, policy })).toBe('retry');
        const [taken] = await takeLapsed(x, k, cloud, 1);
        expect(taken!.attempts).toBe(1);
        token = taken!.token;
      }
      const free = { delayMs: 120_000, reason: 'rate-limit budget spent', ambiguous: false, free: true, policy };
      expect(await x.a.release(k, token, free)).toBe('dead');
    });

    it('a retry that would start after the retry window is a dead letter at once', async () => {
      const { a } = store.open();
      const k = key();
      await a.claim([k], hub, { leaseMs: 60_000, body: '{}' });
      expect(await a.release(k, 1, { delayMs: 120_000, reason: 'timeout', ambiguous: true, policy })).toBe('dead');
    });

    it('a finished, dead or never-leased claim is never taken over (no second reply to an answered turn)', async () => {
      const x = store.open();
      const [finished, dead, plain] = [key(), key(), key()];
      await x.a.claim([finished], hub, { leaseMs: LEASE, body: '{}' });
      await x.a.finish(finished, 1, null);
      await x.a.claim([dead], hub, { leaseMs: LEASE, body: '{}' });
      await x.a.deadLetter(dead, 1, 'slack: not_in_channel');
      await x.a.claim([plain], hub);
      await x.elapse(2 * LEASE);
      expect((await x.b.look(cloud, LEASE, 50))?.taken).toEqual([]);
    });

    it('two reapers racing for lapsed leases: each lease goes to exactly one', async () => {
      const x = store.open();
      const keys = Array.from({ length: 20 }, key);
      for (const k of keys) await x.a.claim([k], hub, { leaseMs: LEASE, body: '{}' });
      await x.elapse(LEASE + 1);
      const [l1, l2] = await Promise.all([x.a.look(cloud, 60_000, 100), x.b.look(other, 60_000, 100)]);
      const both = [...(l1?.taken ?? []), ...(l2?.taken ?? [])].map((t) => t.key);
      expect(both.sort()).toEqual([...keys].sort());
    });

    it('the owner finishing while a reaper races it: never both, always one', async () => {
      for (let i = 0; i < 10; i++) {
        const x = store.open();
        const k = key();
        await x.a.claim([k], hub, { leaseMs: LEASE, body: '{}' });
        await x.elapse(LEASE + 1);
        const [finished, look] = await Promise.all([x.a.finish(k, 1, 'ts'), x.b.look(cloud, 60_000, 100)]);
        const tookIt = (look?.taken ?? []).some((t) => t.key === k);
        expect(finished === 'ok' && tookIt).toBe(false);
        expect(finished === 'ok' || tookIt).toBe(true);
      }
    });
  });

  describe('a claim that landed late', () => {
    it('confirm finds a claim by its nonce: mine (its lease kept), absent, held by another, or lost to a takeover', async () => {
      // The bug: a claim that timed out but landed was unknown to its copy, whose turn then ran fail-open while its lease lapsed and was taken over: two replies.
      const x = store.open();
      const [k, never, another, lapsing] = [key(), key(), key(), key()];
      await x.a.claim([k], hub, { leaseMs: LEASE, body: '{}' });
      const mine = x.nonces.at(-1)!;
      expect(await x.a.confirm(k, mine, 60_000)).toBe('mine');
      // Its lease now runs a minute: a look past the claim's own lease does not take it.
      await x.elapse(LEASE + 1);
      expect((await x.b.look(cloud, 60_000, 100))?.taken).toEqual([]);
      expect(await x.a.renew([{ key: k, token: 1 }], 60_000)).toEqual(['ok']);
      expect(await x.a.confirm(never, mine, 60_000)).toBe('absent');
      await x.b.claim([another], cloud, { leaseMs: 60_000, body: '{}' });
      expect(await x.a.confirm(another, mine, 60_000)).toBe('held');
      await x.a.claim([lapsing], hub, { leaseMs: LEASE, body: '{}' });
      const lapsingNonce = x.nonces.at(-1)!;
      expect(await takeLapsed(x, lapsing, cloud, LEASE, x.b)).toHaveLength(1);
      expect(await x.a.confirm(lapsing, lapsingNonce, 60_000)).toBe('lost');
    });

    it("a copy's own look never takes over a turn it runs itself: the lease is kept for it, and another copy's look takes it only once that lapses", async () => {
      // The bug: the reaper of the copy running a late-landed claim fail-open took that claim's lapsed lease and ran the turn a second time.
      const x = store.open();
      const k = key();
      await x.a.claim([k], hub, { leaseMs: LEASE, body: '{}' });
      await x.elapse(LEASE + 1);
      expect((await x.a.look(hub, LEASE, 100, undefined, { running: [k] }))?.taken).toEqual([]);
      expect((await x.b.look(cloud, 60_000, 100))?.taken).toEqual([]);
      await x.elapse(LEASE + 1);
      expect((await x.b.look(cloud, 60_000, 100))?.taken.map((t) => t.key)).toEqual([k]);
    });
  });

  describe('a store that forgets', () => {
    it('a renewal, commit, stream mark or finish that finds no record says "missing", not "lost": nobody else holds the turn', async () => {
      // The bug: a flushed or evicted record read as "another copy holds the turn", so its owner stood down and nobody answered.
      const x = store.open();
      const [k, held] = [key(), key()];
      await x.a.claim([k], hub, { leaseMs: LEASE, body: '{}' });
      await x.evict(k);
      expect(await x.a.renew([{ key: k, token: 1 }], LEASE)).toEqual(['missing']);
      expect(await x.a.commit(k, 1, LEASE)).toBe('missing');
      expect(await x.a.markStream(k, 1, '1700000000.000001')).toBe('missing');
      expect(await x.a.finish(k, 1, '1700000000.000001')).toBe('missing');
      await x.a.claim([held], hub, { leaseMs: LEASE, body: '{}' });
      expect(await x.a.renew([{ key: held, token: 2 }], LEASE)).toEqual(['lost']);
    });

    it('handing back or dead-lettering a turn whose record is gone says "missing"; once restored, the hand-back is a retry', async () => {
      // The bug: a turn that failed right after the store forgot it was "lost": no retry, no dead letter, no answer.
      const x = store.open();
      const k = key();
      await x.a.claim([k], hub, { leaseMs: 60_000, body: '{}' });
      await x.evict(k);
      expect(await x.a.release(k, 1, { delayMs: 0, reason: 'http 500', ambiguous: true, policy })).toBe('missing');
      expect(await x.a.deadLetter(k, 1, 'slack: not_in_channel')).toBe('missing');
      expect(await x.a.restore(k, 1, hub, { leaseMs: 60_000, body: '{}' }, [])).toBe('ok');
      expect(await x.a.release(k, 1, { delayMs: 0, reason: 'http 500', ambiguous: true, policy })).toBe('retry');
      const [taken] = await takeLapsed(x, k, cloud, 1, x.b);
      expect(taken).toMatchObject({ key: k, token: 2, state: 'retry', ambiguous: true });
    });

    it('restore writes the claim again under the same token, with its runs and stream, and re-creates the message alias (a later delivery is a duplicate)', async () => {
      const x = store.open();
      const [k, m] = [key(), alias()];
      const request = { leaseMs: LEASE, body: '{"text":"marker"}', eventId: 'EvR', channel: 'C1' };
      await x.a.claim([k, m], hub, request);
      await x.evict(k);
      await x.evict(m);
      expect(await x.a.restore(k, 1, hub, request, [m], { attempts: 1, streamTs: '1700000000.000009' })).toBe('ok');
      expect(await x.a.renew([{ key: k, token: 1 }], LEASE)).toEqual(['ok']);
      expect(await x.a.commit(k, 1, LEASE)).toBe('ok');
      expect((await x.b.claim([key(), m], cloud, { leaseMs: LEASE, body: '{}' })).kind).toBe('duplicate');
      const [taken] = await takeLapsed(x, k, cloud, LEASE, x.b);
      expect(taken).toMatchObject({ key: k, token: 2, body: '{"text":"marker"}', streamTs: '1700000000.000009', attempts: 2 });
    });

    it('restore is only for a key that is gone: "lost" when another record is there, which is left as it was', async () => {
      const x = store.open();
      const k = key();
      await x.a.claim([k], hub, { leaseMs: LEASE, body: '{"v":1}' });
      const [taken] = await takeLapsed(x, k, cloud, LEASE, x.b);
      expect(taken!.token).toBe(2);
      expect(await x.a.restore(k, 1, hub, { leaseMs: LEASE, body: '{"v":"old"}' }, [])).toBe('lost');
      expect(JSON.parse((await x.a.read(k))!)).toMatchObject({ token: 2, instance: 'cloud-1' });
      // Its own token's live record: the restore landed before (its answer lost), so it is ours.
      expect(await x.b.restore(k, 2, cloud, { leaseMs: 60_000, body: '{"v":1}' }, [])).toBe('ok');
    });

    it('after FLUSHALL the owner restores its turn and finishes it; no dead letter, and the rebuilt set counts no turn for its mark', async () => {
      const x = store.open();
      const [k, m] = [key(), alias()];
      await x.a.claim([k, m], hub, { leaseMs: 60_000, body: '{}' });
      await x.flush();
      expect(await x.a.renew([{ key: k, token: 1 }], 60_000)).toEqual(['missing']);
      expect(await x.a.restore(k, 1, hub, { leaseMs: 60_000, body: '{}' }, [m])).toBe('ok');
      expect(await x.a.pending()).toBe(1);
      expect(await x.a.finish(k, 1, '1700000000.000100')).toBe('ok');
      await x.b.look(cloud, 60_000, 0);
      expect(await x.a.pending()).toBe(0);
      expect(await x.a.listDead(50)).toEqual([]);
    });

    it('a lost lease set is noticed by a look and rebuilt from the records: a dead owner left out of it is still taken over', async () => {
      // The bug: with the set deleted, the dead owner's turn was never taken over.
      const x = store.open();
      const [k, done, later] = [key(), key(), key()];
      await x.a.claim([k], hub, { leaseMs: 60_000, body: '{"v":"kept"}' });
      await x.a.claim([done], hub, { leaseMs: 60_000, body: '{}' });
      await x.a.finish(done, 1, null);
      await x.b.look(cloud, 60_000, 0);
      await x.dropIndex();
      // A claim after the loss re-creates the set, but not its "whole" mark.
      await x.a.claim([later], hub, { leaseMs: 60_000, body: '{}' });
      const look = await x.b.look(cloud, LEASE, 100);
      expect(look?.reindexed).toBe(1);
      expect(look?.nextDueMs).toBeLessThanOrEqual(LEASE);
      const [taken] = await takeLapsed(x, k, cloud, LEASE, x.b);
      expect(taken).toMatchObject({ key: k, token: 2, body: '{"v":"kept"}' });
      // The finished one stays out, the mark is back: the next look rebuilds nothing.
      expect((await x.b.look(cloud, LEASE, 100))?.reindexed).toBe(0);
    });

    it("a lapsed lease whose owner died counts that run: past the policy's runs it is dead-lettered by the look, not taken, and reported until a look says the owner was told", async () => {
      // The bug: a takeover counted no run, and a turn that killed every copy running it was taken over forever.
      const x = store.open();
      const k = key();
      await x.a.claim([k], hub, { leaseMs: LEASE, body: '{"text":"marker"}', eventId: 'EvDies', channel: 'C9' });
      expect(await takeLapsed(x, k)).toMatchObject([{ token: 2, attempts: 2 }]);
      // Each taker starts the turn (its renewal acknowledges the take), then dies.
      expect(await x.b.renew([{ key: k, token: 2 }], LEASE)).toEqual(['ok']);
      expect(await takeLapsed(x, k)).toMatchObject([{ token: 3, attempts: 3 }]);
      expect(await x.b.renew([{ key: k, token: 3 }], LEASE)).toEqual(['ok']);
      await x.elapse(LEASE + 1);
      const dying = await x.b.look(cloud, LEASE, 100, undefined, { policy });
      expect(dying?.taken).toEqual([]);
      expect(dying?.dead).toEqual([expect.objectContaining({ key: k, eventId: 'EvDies', channel: 'C9', reason: 'owner died 3 times', attempts: 3 })]);
      expect(JSON.stringify(dying?.dead)).not.toContain('marker');
      // That look's answer lost (nobody told the owner): a lease later any look reports it again, never takes it.
      await x.elapse(LEASE + 1);
      const again = await x.a.look(hub, LEASE, 100, undefined, { policy });
      expect(again?.taken).toEqual([]);
      expect(again?.dead).toEqual([expect.objectContaining({ key: k, eventId: 'EvDies', reason: 'owner died 3 times' })]);
      expect(JSON.stringify(again?.dead)).not.toContain('marker');
      // Told: the next look says so, and no look reports it again.
      expect(await x.a.look(hub, LEASE, 100, undefined, { policy, told: [k] })).toMatchObject({ dead: [], taken: [] });
      await x.elapse(LEASE + 1);
      expect(await x.b.look(cloud, LEASE, 100, undefined, { policy })).toMatchObject({ dead: [], taken: [] });
      expect(await x.a.pending()).toBe(0);
      expect((await x.a.listDead(50))!.find((d) => d.key === k)).toMatchObject({ reason: 'owner died 3 times', attempts: 3 });
      expect(JSON.parse((await x.a.read(k))!)).toMatchObject({ state: 'dead', deaths: 3 });
      // A replay counts its runs and deaths afresh.
      expect(await x.a.replayDead(k, cloud, LEASE)).toMatchObject({ key: k, attempts: 1 });
      expect(await takeLapsed(x, k)).toHaveLength(1);
    });

    it('a take nobody acknowledged is not a death: a look whose answer never reached its copy is taken again, no run and no death counted, until a taker renews it', async () => {
      // The bug: a store slower than the claim's fuse lost every look's answer, each look counted a death,
      // and an answered mention became a dead letter ("owner died 4 times") that nobody announced.
      const x = store.open();
      const k = key();
      await x.a.claim([k], hub, { leaseMs: LEASE, body: '{}', eventId: 'EvSlow' });
      // The first owner never renewed: its lapse is a death (one run counted).
      expect(await takeLapsed(x, k)).toMatchObject([{ token: 2, attempts: 2 }]);
      // Taken again and again, the answers lost each time: no run and no death is counted.
      for (let i = 0; i < policy.attempts + 2; i++) {
        const look = await x.b.look(cloud, LEASE, 100, undefined, { policy: { ...policy, windowMs: 3_600_000 } }).then(async (l) => {
          await x.elapse(LEASE + 1);
          return l;
        });
        expect(look?.dead).toEqual([]);
      }
      const again = (await x.b.look(cloud, LEASE, 100, undefined, { policy: { ...policy, windowMs: 3_600_000 } }))?.taken ?? [];
      expect(again).toMatchObject([{ key: k, attempts: 2 }]);
      expect(JSON.parse((await x.a.read(k))!)).toMatchObject({ state: 'claimed', deaths: 1, unacked: 1 });
      // This taker started the turn: its renewal acknowledges the take, and from then its lapse is a death.
      expect(await x.b.renew([{ key: k, token: again[0]!.token }], LEASE)).toEqual(['ok']);
      expect(JSON.parse((await x.a.read(k))!).unacked).toBeUndefined();
      await x.elapse(LEASE + 1);
      const died = await x.b.look(cloud, LEASE, 100, undefined, { policy: { ...policy, windowMs: 3_600_000 } });
      expect(died?.taken).toMatchObject([{ key: k, attempts: 3 }]);
      expect(JSON.parse((await x.a.read(k))!)).toMatchObject({ deaths: 2 });
      expect((await x.a.listDead(50))!.find((d) => d.key === k)).toBeUndefined();
    });

    it('a lapsed lease past the retry window is dead-lettered by the look; a due retry is still taken (its release decided)', async () => {
      const x = store.open();
      const [late, retried] = [key(), key()];
      await x.a.claim([late], hub, { leaseMs: LEASE, body: '{}' });
      await x.a.claim([retried], hub, { leaseMs: 60_000, body: '{}' });
      expect(await x.a.release(retried, 1, { delayMs: LEASE, reason: 'http 500', ambiguous: false, policy })).toBe('retry');
      await x.elapse(LEASE + 1);
      const look = await x.b.look(cloud, 60_000, 100, undefined, { policy: { ...policy, windowMs: LEASE } });
      expect(look?.dead.map((d) => d.key)).toEqual([late]);
      expect(look?.taken.map((t) => t.key)).toEqual([retried]);
    });

    it('a look given no policy (a caller that has none) takes every lapsed lease and dead-letters none', async () => {
      const x = store.open();
      const k = key();
      await x.a.claim([k], hub, { leaseMs: LEASE, body: '{}' });
      await x.elapse(30 * 60_000);
      const look = await x.b.look(cloud, 60_000, 100);
      expect(look?.taken.map((t) => t.key)).toEqual([k]);
      expect(look?.dead).toEqual([]);
    });
  });

  describe('serving and its gaps (the catch-up sweep)', () => {
    it('a silence in claims longer than the gap is recorded by the claim that ends it, with its ends, until it is dropped', async () => {
      const x = store.open({ gapMs: GAP });
      await x.a.claim([key()], hub);
      await x.elapse(GAP - SECOND);
      await x.a.claim([key()], hub);
      expect((await x.b.look(other, LEASE, 0))?.gap).toBeNull();
      await x.elapse(GAP + 1);
      await x.a.claim([key()], hub);
      await x.elapse(2000);
      // On Redis its own clock moves on too, by the milliseconds the test itself takes.
      const look = await x.b.look(other, LEASE, 0);
      expect(look?.sinceServedMs).toBeGreaterThanOrEqual(2000);
      // The gap ends where serving resumed: at the served mark the last claim set.
      expect(look!.gap!.endedMsAgo).toBe(look!.sinceServedMs);
      expect(look!.gap!.startedMsAgo - look!.gap!.endedMsAgo).toBeGreaterThan(GAP);
      expect(look!.gap!.startedMsAgo - look!.gap!.endedMsAgo).toBeLessThan(2 * GAP);
      await x.b.dropGap(look!.gap!.raw);
      expect((await x.b.look(other, LEASE, 0))?.gap).toBeNull();
    });

    it('only the newest gapsKept gaps are kept: a long flapping outage cannot grow the list without bound', async () => {
      const x = store.open({ gapMs: GAP });
      await x.a.claim([key()], hub);
      // Gap number i lasts GAP + i s, so each one read back says which it was.
      const extra = 3;
      for (let i = 1; i <= L.gapsKept + extra; i++) {
        await x.elapse(GAP + i * SECOND);
        await x.a.claim([key()], hub);
      }
      const seen: number[] = [];
      for (let look = await x.b.look(other, LEASE, 0); look?.gap && seen.length <= L.gapsKept; look = await x.b.look(other, LEASE, 0)) {
        seen.push(Math.round((look.gap.startedMsAgo - look.gap.endedMsAgo - GAP) / SECOND));
        await x.b.dropGap(look.gap.raw);
      }
      // Oldest first, the three oldest gone.
      expect(seen).toEqual(Array.from({ length: L.gapsKept }, (_, i) => extra + 1 + i));
    });

    it('the served mark lapses servedTtlSeconds after the last claim: a look then says nothing was served, and the next claim records no gap it cannot measure', async () => {
      const x = store.open({ gapMs: GAP });
      await x.a.claim([key()], hub);
      await x.elapse(L.servedTtlSeconds * SECOND - 5 * SECOND);
      expect((await x.b.look(other, LEASE, 0))?.sinceServedMs).toBeGreaterThanOrEqual(L.servedTtlSeconds * SECOND - 5 * SECOND);
      await x.elapse(5 * SECOND);
      expect((await x.b.look(other, LEASE, 0))?.sinceServedMs).toBeNull();
      await x.a.claim([key()], hub);
      expect((await x.b.look(other, LEASE, 0))?.gap).toBeNull();
    });

    it('the gaps lapse gapsTtlSeconds after the last one was recorded: a sweep never reads back a window older than it can', async () => {
      const x = store.open({ gapMs: GAP });
      await x.a.claim([key()], hub);
      await x.elapse(GAP + 1);
      await x.a.claim([key()], hub);
      await x.elapse(L.gapsTtlSeconds * SECOND - 5 * SECOND);
      expect((await x.b.look(other, LEASE, 0))?.gap).not.toBeNull();
      await x.elapse(5 * SECOND);
      expect((await x.b.look(other, LEASE, 0))?.gap).toBeNull();
    });
  });

  describe('the status lines a turn writes', () => {
    it('finish keeps the newest turnLines turn lines and failoverLines cloud failovers, and the cloud last-served mark', async () => {
      const { a, b } = store.open();
      const total = L.failoverLines + 1;
      const keys = Array.from({ length: total }, key);
      await Promise.all(keys.map((k) => a.claim([k], cloud, { leaseMs: LEASE, body: '{}' })));
      for (const [i, k] of keys.entries()) await a.finish(k, 1, null, { line: `{"n":${i}}`, cloud: true, at: `at-${i}` });
      const turns = await b.range(STATUS_KEYS.turns, total);
      expect(turns).toHaveLength(L.turnLines);
      expect(turns[0]).toBe(`{"n":${total - 1}}`);
      const failovers = await b.range(STATUS_KEYS.failovers, total);
      expect(failovers).toHaveLength(L.failoverLines);
      expect(failovers[0]).toBe(`at-${total - 1}`);
      expect(failovers).not.toContain('at-0');
      expect(await b.read(STATUS_KEYS.cloudLastServed)).toBe(`at-${total - 1}`);
    });

    it('the status lists lapse listTtlSeconds after their last line, and the cloud mark cloudServedTtlSeconds after it was set', async () => {
      const x = store.open();
      const k = key();
      await x.a.claim([k], cloud, { leaseMs: LEASE, body: '{}' });
      await x.a.finish(k, 1, null, { line: '{"n":1}', cloud: true, at: 'at-1' });
      await x.elapse(L.listTtlSeconds * SECOND - 5 * SECOND);
      expect(await x.b.range(STATUS_KEYS.turns, 10)).toEqual(['{"n":1}']);
      await x.elapse(5 * SECOND);
      expect(await x.b.range(STATUS_KEYS.turns, 10)).toEqual([]);
      expect(await x.b.range(STATUS_KEYS.failovers, 10)).toEqual([]);
      expect(await x.b.read(STATUS_KEYS.cloudLastServed)).toBe('at-1');
      await x.elapse((L.cloudServedTtlSeconds - L.listTtlSeconds) * SECOND);
      expect(await x.b.read(STATUS_KEYS.cloudLastServed)).toBeNull();
    });

    it('a dead letter writes its turn line with it, in the same step', async () => {
      const { a, b } = store.open();
      const k = key();
      await a.claim([k], hub, { leaseMs: LEASE, body: '{}' });
      await a.deadLetter(k, 1, 'slack: not_in_channel', { line: '{"dead":1}', cloud: false, at: 'x' });
      expect(await b.range(STATUS_KEYS.turns, 10)).toEqual(['{"dead":1}']);
    });
  });

  describe('records, locks and lists', () => {
    it('a note reads back until its own TTL, then is gone', async () => {
      const x = store.open();
      await x.a.note('autohub:test:note', 'v', 5);
      expect(await x.b.read('autohub:test:note')).toBe('v');
      await x.elapse(5 * SECOND);
      expect(await x.b.read('autohub:test:note')).toBeNull();
    });

    it("a lock is its holder's until it lapses or the holder lets it go; another holder can neither take it nor let it go", async () => {
      const x = store.open();
      const l = 'autohub:test:lock';
      expect(await x.a.lock(l, 10, 'a')).toBe(true);
      expect(await x.b.lock(l, 10, 'b')).toBe(false);
      // A take whose answer was lost and that landed late is still its holder's.
      expect(await x.a.lock(l, 10, 'a')).toBe(true);
      await x.b.unlock(l, 'b');
      expect(await x.b.lock(l, 10, 'b')).toBe(false);
      await x.elapse(10 * SECOND);
      expect(await x.b.lock(l, 10, 'b')).toBe(true);
      await x.b.unlock(l, 'b');
      expect(await x.a.lock(l, 10, 'a')).toBe(true);
    });

    it('noteNewest keeps the newest value by its order: an older write that lands later is dropped (two context changes handled out of order)', async () => {
      const x = store.open();
      const k = 'autohub:test:newest';
      // A value written before orders were kept is older than any.
      await x.a.note(k, 'legacy', 60);
      expect(await x.a.noteNewest(k, 'second', '000001700000002000000', 60)).toBe(true);
      expect(await x.b.noteNewest(k, 'first', '000001700000001999999', 60)).toBe(false);
      expect(await x.b.read(k)).toBe('second');
      // The same event seen again (the other copy) writes again; a later one wins.
      expect(await x.b.noteNewest(k, 'second', '000001700000002000000', 60)).toBe(true);
      expect(await x.a.noteNewest(k, 'third', '000001700000002000001', 60)).toBe(true);
      expect(await x.b.read(k)).toBe('third');
      // Value and order lapse together: after the TTL an older event may write again.
      await x.elapse(60 * SECOND);
      expect(await x.b.read(k)).toBeNull();
      expect(await x.b.noteNewest(k, 'first', '000001700000001999999', 60)).toBe(true);
    });

    it('tally counts the members of a window that does not slide: a member added twice counts once, and the window lapses from its first member', async () => {
      const x = store.open();
      const k = 'autohub:test:tally';
      expect(await x.a.tally(k, 'Ev1', 60)).toBe(1);
      expect(await x.b.tally(k, 'Ev2', 60)).toBe(2);
      // A retry of one turn (another copy, a takeover) is not a second one.
      expect(await x.b.tally(k, 'Ev1', 60)).toBe(2);
      await x.elapse(40 * SECOND);
      expect(await x.a.tally(k, 'Ev3', 60)).toBe(3);
      // 60 s after the first member, not after the last: a loop is counted within its window, then afresh.
      await x.elapse(20 * SECOND);
      expect(await x.a.tally(k, 'Ev4', 60)).toBe(1);
    });

    it('30 concurrent noteNewest writes from two handles, in any order, leave the one with the highest order', async () => {
      const { a, b } = store.open();
      const k = 'autohub:test:newest-race';
      const orders = Array.from({ length: 30 }, (_, i) => String(1_700_000_000_000_000 + ((i * 7) % 30)).padStart(21, '0'));
      await Promise.all(orders.map((order, i) => (i % 2 ? a : b).noteNewest(k, `v${order}`, order, 60)));
      expect(await a.read(k)).toBe(`v${[...orders].sort().at(-1)}`);
    });

    it('push keeps the newest max values, newest first, and range reads as many as asked', async () => {
      const { a, b } = store.open();
      const l = 'autohub:test:list';
      await a.push(l, ['1', '2'], 3);
      await a.push(l, ['3', '4'], 3);
      expect(await b.range(l, 10)).toEqual(['4', '3', '2']);
      expect(await b.range(l, 2)).toEqual(['4', '3']);
      expect(await b.range('autohub:test:absent', 10)).toEqual([]);
    });

    it('a hash nobody wrote reads as {}, never undefined (that means unreachable)', async () => {
      const { a } = store.open();
      expect(await a.readHash('autohub:test:absent')).toEqual({});
    });
  });

  describe('rate-limit windows', () => {
    it('a window one copy publishes is learnt by the other from its next claim; one already closed is never handed out', async () => {
      const { a, b, now } = store.open();
      const reopen = now() + 60_000;
      a.windows.publish('chat.postMessage:C1', reopen);
      a.windows.publish('chat.postMessage:C2', now() - 1);
      // The publish is a detached write on Upstash: a claim after it reads it.
      for (let i = 0; i < 50 && b.windows.known('chat.postMessage:C1') === undefined; i++) await b.claim([key()], other);
      expect(b.windows.known('chat.postMessage:C1')).toBe(reopen);
      expect(b.windows.known('chat.postMessage:C2')).toBeUndefined();
    });
  });

  describe("a turn's kept steps", () => {
    it('a kept step loads back with the others of its turn only, and lives as long as a claim', async () => {
      const x = store.open();
      const [k, otherTurn] = [key(), key()];
      expect(await x.a.keepStep(k, 'ticket', '{"id":1}')).toBe('ok');
      await x.elapse(L.claimTtlSeconds * SECOND - 5 * SECOND);
      expect(await x.a.keepStep(k, 'mail', '{"sent":true}')).toBe('ok');
      expect(await x.b.loadSteps(k)).toEqual({ ticket: '{"id":1}', mail: '{"sent":true}' });
      expect(await x.b.loadSteps(otherTurn)).toEqual({});
      expect(await x.b.readHash(stepsKey(k))).toEqual({ ticket: '{"id":1}', mail: '{"sent":true}' });
      await x.elapse(L.claimTtlSeconds * SECOND);
      expect(await x.b.loadSteps(k)).toEqual({});
    });

    it("a copy that lost the turn keeps nothing: its step's result never overwrites the taker-over's (before: any copy's keep won)", async () => {
      const x = store.open();
      const k = key();
      await x.a.claim([k], hub, { leaseMs: LEASE, body: '{}' });
      expect(await x.a.keepStep(k, 'search', '"hub, token 1"', 1)).toBe('ok');
      const [taken] = await takeLapsed(x, k);
      expect(taken?.token).toBe(2);
      expect(await x.b.keepStep(k, 'ticket', '"cloud, token 2"', 2)).toBe('ok');
      // The old owner wakes: neither a new step nor one the taker-over kept is written under its token.
      expect(await x.a.keepStep(k, 'ticket', '"hub, token 1"', 1)).toBe('lost');
      expect(await x.a.keepStep(k, 'mail', '"hub, token 1"', 1)).toBe('lost');
      expect(await x.b.loadSteps(k)).toEqual({ search: '"hub, token 1"', ticket: '"cloud, token 2"' });
    });

    it('a turn that has ended keeps no more steps under its token; a turn the store forgot keeps them (its owner writes it again)', async () => {
      const x = store.open();
      const [done, forgotten] = [key(), key()];
      await x.a.claim([done], hub, { leaseMs: LEASE, body: '{}' });
      expect(await x.a.finish(done, 1, '1.2')).toBe('ok');
      expect(await x.a.keepStep(done, 'late', '1', 1)).toBe('lost');
      expect(await x.a.loadSteps(done)).toEqual({});
      expect(await x.a.keepStep(forgotten, 'search', '1', 1)).toBe('ok');
      expect(await x.a.loadSteps(forgotten)).toEqual({ search: '1' });
    });
  });

  describe('one turn at a time per conversation', () => {
    const lease = { leaseMs: LEASE, body: '{}' };
    /** Claimed (live) turns, each claimed one millisecond after the last, as follow-ups arrive. */
    async function turns(x: Subject, count: number): Promise<string[]> {
      const keys = Array.from({ length: count }, () => key());
      for (const k of keys) {
        await x.a.claim([k], hub, lease);
        await x.elapse(1);
      }
      return keys;
    }
    let c = 0;
    const conv = () => `T1:C1:1700000000.${String(++c).padStart(6, '0')}`;

    /** A leased claim placed in `where`'s order, the claim making the turn's first look at the gate (`firstLook`). */
    const claimIn = (s: SharedStore, where: string, k: string, firstLook = true) => s.claim([k], hub, { ...lease, conversation: where }, { firstLook });

    it("a turn alone in its conversation is admitted by its claim (one command, no look), and a follow-up then finds it running and waits (before: the gate's first look was a command of its own)", async () => {
      const x = store.open();
      const where = conv();
      const [first, second] = [key(), key()];
      expect(await claimIn(x.a, where, first)).toMatchObject({ kind: 'claimed', admitted: true });
      await x.elapse(1);
      // The follow-up is not alone: its claim admits nothing, and its look finds the first running.
      const follow = await claimIn(x.b, where, second);
      expect(follow.kind).toBe('claimed');
      expect('admitted' in follow && follow.admitted).toBeFalsy();
      expect(await x.b.enterConversation(where, second, 5)).toEqual({ kind: 'wait', ahead: 1 });
      expect(await x.a.finish(first, 1, '1700000001.000100')).toBe('ok');
      expect(await x.b.enterConversation(where, second, 5)).toEqual({ kind: 'go', ahead: 0 });
    });

    it('a claim admits nothing without firstLook (a late claim of a failed turn must not mark it running), nor when a live turn of the thread is there', async () => {
      const x = store.open();
      const where = conv();
      const [first, second, third] = [key(), key(), key()];
      const plain = await claimIn(x.a, where, first, false);
      expect('admitted' in plain && plain.admitted).toBeFalsy();
      // The unadmitted first turn is live in the order: a later lone-looking claim is not alone.
      await x.elapse(1);
      const next = await claimIn(x.a, where, second);
      expect('admitted' in next && next.admitted).toBeFalsy();
      expect(await x.a.enterConversation(where, first, 5)).toEqual({ kind: 'go', ahead: 0 });
      expect(await x.a.enterConversation(where, second, 5)).toEqual({ kind: 'wait', ahead: 1 });
      // Both ended: a new turn of the thread is alone again (the ended ones pruned from the order on the way).
      expect(await x.a.finish(first, 1, '1700000001.000200')).toBe('ok');
      expect(await x.a.finish(second, 1, '1700000001.000300')).toBe('ok');
      await x.elapse(1);
      expect(await claimIn(x.a, where, third)).toMatchObject({ kind: 'claimed', admitted: true });
    });

    it('a follow-up waits while the turn before it is live, on any copy, and goes once that turn is done', async () => {
      const x = store.open();
      const [first, second] = await turns(x, 2);
      const where = conv();
      expect(await x.a.enterConversation(where, first!, 5)).toEqual({ kind: 'go', ahead: 0 });
      await x.elapse(1);
      expect(await x.b.enterConversation(where, second!, 5)).toEqual({ kind: 'wait', ahead: 1 });
      expect(await x.b.enterConversation(where, second!, 5)).toEqual({ kind: 'wait', ahead: 1 });
      expect(await x.a.finish(first!, 1, '1700000001.000100')).toBe('ok');
      expect(await x.b.enterConversation(where, second!, 5)).toEqual({ kind: 'go', ahead: 0 });
    });

    it('a place is kept across looks: a turn that looked first stays ahead of a later one, even when the later looks again first (a takeover keeps the order)', async () => {
      const x = store.open();
      const [first, second, third] = await turns(x, 3);
      const where = conv();
      await x.a.enterConversation(where, first!, 5);
      await x.elapse(1);
      await x.a.enterConversation(where, second!, 5);
      await x.elapse(1);
      expect(await x.b.enterConversation(where, third!, 5)).toEqual({ kind: 'wait', ahead: 2 });
      await x.a.finish(first!, 1, null);
      // The third looks again before the second does: the second is still ahead of it.
      expect(await x.b.enterConversation(where, third!, 5)).toEqual({ kind: 'wait', ahead: 1 });
      expect(await x.a.enterConversation(where, second!, 5)).toEqual({ kind: 'go', ahead: 0 });
    });

    it('a turn waiting for a retry still holds its conversation; a dead letter does not', async () => {
      const x = store.open();
      const [first, second] = await turns(x, 2);
      const where = conv();
      await x.a.enterConversation(where, first!, 5);
      await x.elapse(1);
      expect(await x.a.release(first!, 1, { delayMs: 2000, reason: 'http 500', ambiguous: false, policy })).toBe('retry');
      expect(await x.b.enterConversation(where, second!, 5)).toEqual({ kind: 'wait', ahead: 1 });
      const [taken] = await takeLapsed(x, first!, cloud, 2000, x.b);
      expect(await x.b.deadLetter(first!, taken!.token, 'bug')).toBe('ok');
      expect(await x.b.enterConversation(where, second!, 5)).toEqual({ kind: 'go', ahead: 0 });
    });

    it('the order is the order of the claims, and a turn that went is never overtaken by one claimed before it that looked late', async () => {
      const x = store.open();
      const [first, second, third] = await turns(x, 3);
      const where = conv();
      expect(await x.b.enterConversation(where, third!, 5)).toEqual({ kind: 'go', ahead: 0 });
      expect(await x.a.enterConversation(where, second!, 5)).toEqual({ kind: 'wait', ahead: 1 });
      expect(await x.a.enterConversation(where, first!, 5)).toEqual({ kind: 'wait', ahead: 1 });
      // A look again by the turn that went (a taker-over of it) goes at once.
      expect(await x.b.enterConversation(where, third!, 5)).toEqual({ kind: 'go', ahead: 0 });
      await x.b.finish(third!, 1, null);
      // Then in claim order: the first, though it looked last.
      expect(await x.a.enterConversation(where, second!, 5)).toEqual({ kind: 'wait', ahead: 1 });
      expect(await x.a.enterConversation(where, first!, 5)).toEqual({ kind: 'go', ahead: 0 });
    });

    it('conversations do not wait for each other', async () => {
      const x = store.open();
      const [one, two] = await turns(x, 2);
      expect(await x.a.enterConversation(conv(), one!, 5)).toEqual({ kind: 'go', ahead: 0 });
      expect(await x.b.enterConversation(conv(), two!, 5)).toEqual({ kind: 'go', ahead: 0 });
    });

    it('past the bound the oldest waiting turn is skipped (never the running one), and learns it at its next look', async () => {
      const x = store.open();
      const [running, oldest, next, newest] = await turns(x, 4);
      const where = conv();
      for (const k of [running, oldest, next]) {
        await x.a.enterConversation(where, k!, 2);
        await x.elapse(1);
      }
      expect(await x.b.enterConversation(where, newest!, 2)).toEqual({ kind: 'wait', ahead: 2, skippedNow: oldest });
      expect(await x.a.enterConversation(where, oldest!, 2)).toEqual({ kind: 'skipped', ahead: 0 });
      expect(await x.a.enterConversation(where, next!, 2)).toEqual({ kind: 'wait', ahead: 1 });
      expect(await x.a.enterConversation(where, running!, 2)).toEqual({ kind: 'go', ahead: 0 });
    });

    it('interrupt: a newer message marks the running turn before it interrupted (its owner reads the mark, on any copy) and skips the waiting ones', async () => {
      const x = store.open();
      const [running, waiting, newest] = await turns(x, 3);
      const where = conv();
      expect(await x.a.enterConversation(where, running!, 5, true)).toEqual({ kind: 'go', ahead: 0 });
      expect(await x.b.conversationInterrupted(where, running!)).toBe(false);
      expect(await x.a.enterConversation(where, waiting!, 5, true)).toEqual({ kind: 'wait', ahead: 1, interrupting: 1 });
      expect(await x.b.conversationInterrupted(where, running!)).toBe(true);
      // The newest skips the one still waiting (only the newest message is answered) and waits for the running one to close.
      expect(await x.b.enterConversation(where, newest!, 5, true)).toEqual({ kind: 'wait', ahead: 1, skippedNow: waiting, interrupting: 1 });
      expect(await x.a.enterConversation(where, waiting!, 5, true)).toEqual({ kind: 'skipped', ahead: 0 });
      // A look again by the running turn (a taker-over of it) marks nothing: it went already.
      expect(await x.a.enterConversation(where, running!, 5, true)).toEqual({ kind: 'go', ahead: 0 });
      expect(await x.a.finish(running!, 1, '1700000001.000100')).toBe('ok');
      expect(await x.b.enterConversation(where, newest!, 5, true)).toEqual({ kind: 'go', ahead: 0 });
      // An ended turn's mark goes with it; the turn now running is not marked.
      expect(await x.a.conversationInterrupted(where, running!)).toBe(false);
      expect(await x.a.conversationInterrupted(where, newest!)).toBe(false);
    });

    it('queue (no interrupt): a follow-up marks nothing interrupted', async () => {
      const x = store.open();
      const [first, second] = await turns(x, 2);
      const where = conv();
      await x.a.enterConversation(where, first!, 5);
      expect(await x.b.enterConversation(where, second!, 5)).toEqual({ kind: 'wait', ahead: 1 });
      expect(await x.b.conversationInterrupted(where, first!)).toBe(false);
    });

    it('a claim with its conversation takes the turn’s place: a follow-up claimed after it waits for it though its copy died before its first look, and the taker-over runs it first', async () => {
      const x = store.open();
      const where = conv();
      const [first, second] = [key(), key()];
      await x.a.claim([first!], hub, { ...lease, conversation: where });
      await x.elapse(1);
      await x.b.claim([second!], cloud, { ...lease, conversation: where });
      // The hub died between the first's claim and its first look: the follow-up still finds it ahead.
      expect(await x.b.enterConversation(where, second!, 5)).toEqual({ kind: 'wait', ahead: 1 });
      const [taken] = await takeLapsed(x, first!, cloud, LEASE, x.b);
      expect(taken?.token).toBe(2);
      expect(await x.b.enterConversation(where, first!, 5)).toEqual({ kind: 'go', ahead: 0 });
      expect(await x.b.enterConversation(where, second!, 5)).toEqual({ kind: 'wait', ahead: 1 });
      expect(await x.b.finish(first!, 2, '1700000001.000100')).toBe('ok');
      expect(await x.b.enterConversation(where, second!, 5)).toEqual({ kind: 'go', ahead: 0 });
    });

    it('a place taken at the claim is the claim’s time: an earlier claim that looks late is ahead of a later one that looked first', async () => {
      const x = store.open();
      const where = conv();
      const [first, second, third] = [key(), key(), key()];
      await x.a.claim([first!], hub, { ...lease, conversation: where });
      await x.elapse(1);
      await x.a.claim([second!], hub, { ...lease, conversation: where });
      await x.elapse(5);
      // Claimed with no place (its claim failed open at the ack, or an older copy): its first look places it now, last.
      await x.b.claim([third!], cloud, lease);
      expect(await x.b.enterConversation(where, third!, 5)).toEqual({ kind: 'wait', ahead: 2 });
      expect(await x.a.enterConversation(where, second!, 5)).toEqual({ kind: 'wait', ahead: 1 });
      expect(await x.a.enterConversation(where, first!, 5)).toEqual({ kind: 'go', ahead: 0 });
    });

    it('a place taken at the claim whose turn ended (answered or dead-lettered) before it ever looked holds nobody up', async () => {
      const x = store.open();
      const where = conv();
      const [answered, dead, next] = [key(), key(), key()];
      await x.a.claim([answered!], hub, { ...lease, conversation: where });
      await x.a.claim([dead!], hub, { ...lease, conversation: where });
      await x.elapse(1);
      await x.b.claim([next!], cloud, { ...lease, conversation: where });
      expect(await x.b.enterConversation(where, next!, 5)).toEqual({ kind: 'wait', ahead: 2 });
      expect(await x.a.finish(answered!, 1, null)).toBe('ok');
      expect(await x.a.deadLetter(dead!, 1, 'bug')).toBe('ok');
      expect(await x.b.enterConversation(where, next!, 5)).toEqual({ kind: 'go', ahead: 0 });
    });

    it('the order lapses conversationTtlSeconds after the last look: an idle thread leaves nothing behind', async () => {
      const x = store.open();
      const [first, second] = await turns(x, 2);
      const where = conv();
      await x.a.enterConversation(where, first!, 5);
      await x.elapse(L.conversationTtlSeconds * SECOND + SECOND);
      // The first is still live (its claim lasts a day) but its place has lapsed: the second, looking now, goes first.
      expect(await x.b.enterConversation(where, second!, 5)).toEqual({ kind: 'go', ahead: 0 });
    });
  });

  describe('health', () => {
    it('ping answers ok and the last operation is observed ok: a live store never reads degraded', async () => {
      const { a } = store.open();
      expect(await a.ping()).toEqual({ ok: true });
      await a.read('autohub:test:any');
      expect(a.observed()).toMatchObject({ ok: true });
      expect(['memory', 'upstash']).toContain(a.kind);
    });
  });
});
