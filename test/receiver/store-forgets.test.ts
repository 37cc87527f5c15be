/**
 * The store forgets mid-turn (FLUSHALL; Upstash evicting the turn's key from
 * a full database; the lease set lost), with real copies: the hub a child
 * process on a real Redis behind the Upstash bridge, the cloud copy in this
 * process. No mention lost, none doubled.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RespClient } from '../../drill/sim/resp-client.js';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { eventKey, LEASES_KEY, messageKey } from '../../lib/store/index.js';
import { slowAuth, useTakeoverRig } from '../support/takeover-rig.js';
import { eventually, repliesTo as repliesOf, SECRET, turnOver } from '../support/copies.js';

describe('a store that forgets a turn mid-turn', () => {
  const rig = useTakeoverRig();
  let redis: RespClient;
  let n = 0;
  beforeAll(async () => {
    redis = await RespClient.open(rig.fx.redis.port);
  });
  afterAll(() => redis?.close());

  const repliesTo = (eventId: string) => repliesOf(rig.api, eventId);
  const nextTs = () => `1700000300.${String(++n).padStart(6, '0')}`;

  const hubMidTurn = (eventId: string, ts: string, authDelayMs: number) => rig.hubMidTurn({ eventId, ts, method: 'auth.test', answer: slowAuth(authDelayMs) });

  /** Another delivery of the same message: Slack's retry of the event, or the message under a second event id. */
  async function againToCloud(eventId: string, ts: string, retryNum?: number): Promise<string | null> {
    const res = await deliver(rig.cloud.eventsUrl, mentionEnvelope({ eventId, ts }), { signingSecret: SECRET, ...(retryNum ? { retryNum } : {}) });
    return res.headers.get('x-autohub-claim');
  }

  it('FLUSHALL mid-turn: the owner writes its turn again and answers once; no dead letter, and the message alias is back', async () => {
    // The bug: the renewal after the flush read "another copy holds the turn", the hub stood down, nobody answered.
    const ts = nextTs();
    const hub = await hubMidTurn('Ev-flushed', ts, 3_000);
    expect(await redis.command(['FLUSHALL'])).toBe('OK');
    await eventually(() => hub.output().includes('"lease.restored"'), 'the hub to write its turn again', 10_000);
    // The alias was re-created with it: the same message under another event id runs nothing.
    expect(await againToCloud('Ev-flushed-twin', ts)).toBe('duplicate');
    await eventually(() => repliesTo('Ev-flushed').length > 0, 'the reply', 10_000);
    await turnOver(rig.cloud.store, 'Ev-flushed');
    expect(repliesTo('Ev-flushed')).toHaveLength(1);
    expect(repliesTo('Ev-flushed-twin')).toHaveLength(0);
    expect(hub.output()).not.toContain('"lease.lost"');
    expect(hub.output()).not.toContain('"turn.dead_letter"');
    expect((await rig.cloud.store.listDead(50))?.map((d) => d.eventId)).not.toContain('Ev-flushed');
  });

  it("Upstash evicts the turn's record mid-turn: one reply, and a Slack retry meanwhile (its alias still there) runs nothing", async () => {
    const ts = nextTs();
    const hub = await hubMidTurn('Ev-evicted', ts, 3_000);
    expect(await redis.command(['DEL', eventKey('T0AUTOHUB', 'Ev-evicted')])).toBe(1);
    expect(await redis.command(['EXISTS', messageKey('T0AUTOHUB', 'message', 'C0GENERAL', ts)])).toBe(1);
    expect(await againToCloud('Ev-evicted', ts, 1)).toBe('duplicate');
    await eventually(() => repliesTo('Ev-evicted').length > 0, 'the reply', 10_000);
    await turnOver(rig.cloud.store, 'Ev-evicted');
    expect(repliesTo('Ev-evicted')).toHaveLength(1);
    expect(hub.output()).toContain('"lease.restored"');
    expect(rig.cloud.lines.some((l) => l.event === 'lease.takeover' && l.eventId === 'Ev-evicted')).toBe(false);
  });

  it('the lease set deleted and the owner killed: the other copy rebuilds the set from the records, takes the turn over and answers once', async () => {
    // The bug: the dead owner's lease was in no set, so no look ever found it.
    const hub = await hubMidTurn('Ev-unindexed', nextTs(), 60_000);
    // Killed first, then the set deleted: so no renewal of the hub's can put its lease back in between.
    hub.child.kill('SIGKILL');
    await hub.exited;
    await redis.command(['DEL', LEASES_KEY]);
    await eventually(() => repliesTo('Ev-unindexed').length > 0, 'the cloud to take the turn over', 10_000);
    await turnOver(rig.cloud.store, 'Ev-unindexed');
    expect(repliesTo('Ev-unindexed')).toHaveLength(1);
    expect(repliesTo('Ev-unindexed')[0]!.params.text).toMatch(/the cloud copy/);
    expect(rig.cloud.lines.some((l) => l.event === 'lease.index_rebuilt')).toBe(true);
  });
});
