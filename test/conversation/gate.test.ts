/**
 * The conversation gate on the in-process store (the same table as the
 * Redis script, test/store/contract.test.ts): a turn runs when nothing live
 * is ahead of it, is skipped past the bound (and learns it), stops waiting
 * when its lease goes, runs anyway when the store cannot answer, and looks
 * again the moment a turn of its conversation ends here.
 */
import { describe, expect, it } from 'vitest';
import { conversationOf, ConversationGate, parseConcurrency } from '../../lib/conversation/index.js';
import { createMemoryLogger } from '../../lib/log/index.js';
import { MemoryStore } from '../../lib/store/index.js';
import { eventually } from '../support/copies.js';
import { silentConversations } from '../support/silent-conversations.js';

const hub = { instance: 'hub-1', role: 'hub' } as const;
let n = 0;
const key = () => `autohub:claim:T1:event:gate-${++n}`;
/** A poll no test waits for: every look after the first is woken by `ended`. */
const HOUR = 3_600_000;

function rig(o: { pollMs?: number; maxWaiting?: number; store?: MemoryStore } = {}) {
  let now = 1_000_000;
  const store = o.store ?? new MemoryStore({ now: () => now });
  const log = createMemoryLogger();
  const gate = new ConversationGate({ store, log, pollMs: o.pollMs ?? HOUR, ...(o.maxWaiting ? { maxWaiting: o.maxWaiting } : {}), now: () => now });
  const claim = async () => {
    const k = key();
    await store.claim([k], hub, { leaseMs: 10_000, body: '{}' });
    now += 1;
    return k;
  };
  return { store, gate, log, claim };
}

describe('the conversation gate', () => {
  it('a turn waits while the one before it is live, and runs the moment that one ends here (no poll waited for)', async () => {
    const { store, gate, claim, log } = rig();
    const [first, second] = [await claim(), await claim()];
    const never = new AbortController().signal;
    expect(await gate.admit('T1:C1:1.1', first, never)).toBe('run');
    let admitted: string | undefined;
    void gate.admit('T1:C1:1.1', second, never, { eventId: 'Ev-2' }).then((a) => (admitted = a));
    await eventually(() => gate.waiting === 1, 'the second to wait');
    expect(admitted).toBeUndefined();
    await store.finish(first, 1, '1.2');
    gate.ended('T1:C1:1.1');
    await eventually(() => admitted !== undefined, 'the second to be admitted');
    expect(admitted).toBe('run');
    expect(log.lines.filter((l) => l.event === 'conversation.waiting').map((l) => l.eventId)).toEqual(['Ev-2']);
    expect(log.lines.find((l) => l.event === 'conversation.waited')).toMatchObject({ eventId: 'Ev-2', looks: 2 });
  });

  it('a waiting turn whose lease goes (taken over, or the copy stopping) stops waiting: gone, never run here', async () => {
    const { gate, claim } = rig();
    const [first, second] = [await claim(), await claim()];
    await gate.admit('T1:C1:2.1', first, new AbortController().signal);
    const stop = new AbortController();
    const admitted = gate.admit('T1:C1:2.1', second, stop.signal);
    await eventually(() => gate.waiting === 1, 'the second to wait');
    stop.abort(new Error('lease lost'));
    expect(await admitted).toBe('gone');
    expect(gate.waiting).toBe(0);
  });

  it('past the bound the oldest waiting turn is told it is skipped at its next look; the others keep waiting', async () => {
    const { gate, claim, log } = rig({ maxWaiting: 2 });
    const where = 'T1:C1:3.1';
    const never = new AbortController().signal;
    const [running, oldest, next, newest] = [await claim(), await claim(), await claim(), await claim()];
    expect(await gate.admit(where, running, never)).toBe('run');
    const verdicts = new Map<string, string>();
    for (const k of [oldest, next]) void gate.admit(where, k, never).then((v) => verdicts.set(k, v));
    await eventually(() => gate.waiting === 2, 'two waiting');
    void gate.admit(where, newest, never).then((v) => verdicts.set(newest, v));
    await eventually(() => gate.waiting === 3, 'three waiting');
    gate.ended(where);
    await eventually(() => verdicts.has(oldest), 'the oldest to learn');
    expect(verdicts.get(oldest)).toBe('skipped');
    expect(verdicts.has(next)).toBe(false);
    expect(verdicts.has(newest)).toBe(false);
    expect(log.lines.find((l) => l.event === 'conversation.bounded')).toMatchObject({ skipped: oldest, maxWaiting: 2 });
  });

  it('a store that does not answer three looks in a row lets the turn run (fail open), and says so', async () => {
    const log = createMemoryLogger();
    const { store, looks } = silentConversations();
    const gate = new ConversationGate({ store, log, pollMs: 1 });
    expect(await gate.admit('T1:C1:4.1', key(), new AbortController().signal)).toBe('run');
    expect(looks()).toBe(3);
    expect(log.lines.find((l) => l.event === 'conversation.unsure')).toMatchObject({ looks: 3 });
  });

  it('a turn whose claim failed open (the store away) runs after one unanswered look, not three (before: its first write came 2 s late on a store answering 500, 9 s on a hung one)', async () => {
    const log = createMemoryLogger();
    const { store, looks } = silentConversations();
    const gate = new ConversationGate({ store, log, pollMs: HOUR });
    expect(await gate.admit('T1:C1:4.2', key(), new AbortController().signal, {}, { failedOpen: true })).toBe('run');
    expect(looks()).toBe(1);
    expect(log.lines.find((l) => l.event === 'conversation.unsure')).toMatchObject({ looks: 1 });
  });

  it('conversationOf: a thread is a conversation (team, channel, thread ts); a top-level message opens its own; anything but a message has none', () => {
    const event = (e: Record<string, unknown>) => ({ team_id: 'T1', event: { type: 'app_mention', channel: 'C1', ts: '2.2', ...e } });
    expect(conversationOf(event({ thread_ts: '1.1' }))).toBe('T1:C1:1.1');
    expect(conversationOf(event({}))).toBe('T1:C1:2.2');
    expect(conversationOf(event({ type: 'message', channel: 'D1', channel_type: 'im', thread_ts: '1.1' }))).toBe('T1:D1:1.1');
    expect(conversationOf(event({ type: 'reaction_added' }))).toBeUndefined();
    // The bot's own reply in a DM (Slack sends message.im for it too), an edit, a bot's post: no place taken.
    expect(conversationOf(event({ type: 'message', channel: 'D1', channel_type: 'im', thread_ts: '1.1', bot_id: 'BAUTOHUB' }))).toBeUndefined();
    // Another app's @mention: no turn unless listed, and never a place (a flood of them would skip a person's waiting message).
    expect(conversationOf(event({ type: 'app_mention', channel: 'C1', thread_ts: '1.1', bot_id: 'B0OTHER' }))).toBeUndefined();
    expect(conversationOf(event({ type: 'message', channel: 'D1', channel_type: 'im', subtype: 'message_changed' }))).toBeUndefined();
    expect(conversationOf(event({ type: 'message', channel: 'D1', channel_type: 'im', thread_ts: '1.1', subtype: 'bot_message' }))).toBeUndefined();
    expect(conversationOf(event({ type: 'message', channel: 'D1', channel_type: 'im', thread_ts: '1.1', subtype: 'file_share' }))).toBe('T1:D1:1.1');
    expect(conversationOf({ type: 'block_actions' })).toBeUndefined();
  });

  it('concurrency: queue by default, parallel when asked, anything else refused with what was expected', () => {
    expect(parseConcurrency(undefined)).toEqual({ ok: true, mode: 'queue' });
    expect(parseConcurrency('parallel')).toEqual({ ok: true, mode: 'parallel' });
    expect(parseConcurrency('interrupt')).toEqual({ ok: true, mode: 'interrupt' });
    expect(parseConcurrency('debounce')).toEqual({ ok: false, expected: expect.stringMatching(/one of queue, parallel, interrupt, but it is "debounce"/) });
  });
});
