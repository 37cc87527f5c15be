/**
 * A lease carries the claim keys its delivery was claimed under, so a record
 * the store forgets is written again with them. For a turn taken over from a
 * dead copy the store's record holds the primary key alone: the runner reads
 * the message alias from the stored body once, at the takeover. Real Bolt (its
 * app handed to the runner by the receiver's init), a real in-process store.
 */
import { App } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { mentionEnvelope } from '../../drill/sim/slack-events.js';
import { leaseRequest, parseDelivery } from '../../lib/delivery/index.js';
import { LeaseKeeper } from '../../lib/lease/index.js';
import { HealthMonitor } from '../../lib/liveness/index.js';
import { createMemoryLogger } from '../../lib/log/index.js';
import { FailoverReceiver } from '../../lib/receiver/index.js';
import { TurnRunner } from '../../lib/runner/index.js';
import { eventKey, MemoryStore, messageKey, type Takeover } from '../../lib/store/index.js';
import { eventually, SECRET } from '../support/copies.js';
import { bareHandles } from '../support/handles.js';

const LEASE = { leaseMs: 300, renewMs: 100, reaperMs: 60_000 };
const RETRY = { attempts: 4, windowMs: 600_000, firstDelayMs: 2_000, factor: 4 };
const TEAM = 'T0AUTOHUB';

/** A cloud copy's runner on `store`, its turns run by a real Bolt app whose one listener is `onMention`. */
function cloudRunner(store: MemoryStore, onMention: () => void) {
  const log = createMemoryLogger();
  const keeper = new LeaseKeeper(store, LEASE, log, Date.now);
  const runner = new TurnRunner({
    store,
    keeper,
    role: 'cloud',
    instance: 'cloud-test',
    log,
    lease: LEASE,
    retry: RETRY,
    handleFor: bareHandles(log, { role: 'cloud', instance: 'cloud-test' }),
  });
  const health = new HealthMonitor({ store, role: 'cloud', instance: 'cloud-test', version: '0' });
  const receiver = new FailoverReceiver({ signingSecret: SECRET, runner, health, role: 'cloud', instance: 'cloud-test', log });
  const app = new App({ receiver, authorize: async () => ({ botToken: 'xoxb-test', botUserId: 'UAUTOHUB', botId: 'BAUTOHUB' }) });
  app.event('app_mention', async () => onMention());
  return { runner, keeper, log };
}

/** A mention claimed with its lease by a hub that then died: taken from the lease set once its lease lapses. */
async function deadHubsTurn(store: MemoryStore, eventId: string, ts: string): Promise<Takeover> {
  const envelope = mentionEnvelope({ eventId, ts });
  const delivery = parseDelivery('application/json', JSON.stringify(envelope));
  if (delivery.kind !== 'event') throw new Error('not an event');
  expect(delivery.claimKeys).toHaveLength(2);
  const claimed = await store.claim(delivery.claimKeys, { instance: 'hub-dead', role: 'hub' }, leaseRequest(LEASE.leaseMs, delivery.body, eventId));
  expect(claimed.kind).toBe('claimed');
  let taken: Takeover | undefined;
  await eventually(async () => {
    taken = (await store.look({ instance: 'cloud-test', role: 'cloud' }, LEASE.leaseMs, 10, undefined, { policy: RETRY })).taken[0];
    return taken !== undefined;
  }, "the dead hub's lease to lapse and be taken");
  return taken!;
}

describe("a taken-over turn's lease carries the claim keys", () => {
  it('the store forgets a taken-over mention mid-turn: written again with its message alias, so the same message under another event id runs nothing', async () => {
    // The bug this guards: a takeover's lease knew its primary key alone, so a record written again
    // after the store forgot it had no message alias, and the message's twin delivery ran a second time.
    const store = new MemoryStore();
    const ts = '1700000500.000001';
    const takeover = await deadHubsTurn(store, 'Ev-taken', ts);
    expect(takeover.key).toBe(eventKey(TEAM, 'Ev-taken'));
    let ran = 0;
    const { runner, keeper, log } = cloudRunner(store, () => {
      ran += 1;
      // Mid-turn, the store forgets everything (FLUSHALL; a full Upstash database evicting).
      store.flush();
    });
    runner.resume(takeover, Date.now());
    await eventually(() => ran === 1, 'the taken-over turn to run');
    await runner.drained();
    expect(keeper.size).toBe(0);
    expect(ran).toBe(1);
    expect(log.lines.some((l) => l.event === 'lease.finish_failed')).toBe(false);
    const twin = await store.claim([eventKey(TEAM, 'Ev-taken-twin'), messageKey(TEAM, 'message', 'C0GENERAL', ts)], { instance: 'hub-test', role: 'hub' });
    expect(twin.kind).toBe('duplicate');
  });
});

describe('Bolt reaches the runner once', () => {
  it("the receiver's init hands Bolt's app to the runner; a second, other app is refused loudly", () => {
    const store = new MemoryStore();
    const { runner } = cloudRunner(store, () => {});
    const other = new App({ receiver: { init: () => {}, start: async () => {}, stop: async () => {} }, authorize: async () => ({ botToken: 'xoxb-other' }) });
    expect(() => runner.attach(other)).toThrow(/another app/);
  });
});
