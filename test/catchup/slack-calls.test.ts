/**
 * What one sweep asks of Slack: one conversations.history call per
 * conversation and page, one conversations.replies call per thread active in
 * the window and page (none for a quiet thread, nor for one where only the
 * bot replied), each after a pause of `paceMs` (Tier 3). The real WebClient
 * against the fake Web API; pauses on a virtual clock.
 */
import { WebClient } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import { CatchupSweeper } from '../../lib/catchup/index.js';
import { silentLogger } from '../../lib/log/index.js';
import { MemoryStore } from '../../lib/store/index.js';
import { useFakeWebApiPerTest } from '../support/fixtures.js';
import { virtualTime } from '../support/virtual-time.js';

const PACE_MS = 1200;

/**
 * A sweep over `client` that does not pace its calls (the tests using it count what it finds, not when it asks),
 * claiming every mention it finds and keeping its ts in `injected`.
 */
function unpacedSweep(client: WebClient): { sweeper: CatchupSweeper; injected: string[] } {
  const injected: string[] = [];
  const sweeper = new CatchupSweeper({
    client,
    store: new MemoryStore(),
    inject: async (envelope) => {
      injected.push(String((envelope.event as { ts: string }).ts));
      return 'claimed';
    },
    instance: 'hub',
    log: silentLogger,
    maxMs: 24 * 3_600_000,
    paceMs: 0,
  });
  return { sweeper, injected };
}

describe('the Slack calls of one catch-up sweep', () => {
  // A sweep reads every conversation: each test gets a Slack of its own.
  const api = useFakeWebApiPerTest();

  it('reads each thread active in the window once per page, no quiet thread and none only the bot replied in, one call per paceMs', async () => {
    const now = Date.now();
    const ts = (ms: number, i = 0) => (ms / 1000 + i / 1e6).toFixed(6);
    const window = { from: now - 600_000, to: now - 5_000 };
    const client = new WebClient('xoxb-test', { slackApiUrl: api.url });
    // A thread people started before the window, with a mention in it.
    const active = ts(now - 3_600_000);
    api.addMessage('C0CALLS', { ts: active, user: 'U0OTHER', text: 'plans?' });
    const inActive = ts(now - 60_000);
    api.addMessage('C0CALLS', { ts: inActive, thread_ts: active, user: 'U0PERSON', text: '<@UAUTOHUB> which one?' });
    // Quiet since before the window: not read.
    const quiet = ts(now - 3_600_000, 1);
    api.addMessage('C0CALLS', { ts: quiet, user: 'U0OTHER', text: 'old news' });
    api.addMessage('C0CALLS', { ts: ts(now - 3_000_000), thread_ts: quiet, user: 'U0PERSON', text: '<@UAUTOHUB> old question' });
    // A long thread: 450 replies in the window, the mention on the third page of 200.
    const long = ts(now - 3_600_000, 2);
    api.addMessage('C0CALLS', { ts: long, user: 'U0OTHER', text: 'chatter' });
    for (let i = 0; i < 449; i++) api.addMessage('C0CALLS', { ts: ts(now - 500_000, i), thread_ts: long, user: 'U0OTHER', text: 'more chatter' });
    const lastInLong = ts(now - 400_000);
    api.addMessage('C0CALLS', { ts: lastInLong, thread_ts: long, user: 'U0PERSON', text: '<@UAUTOHUB> summary please' });
    // Only the bot replied in this one: nothing to answer in it.
    const botsOnly = ts(now - 3_600_000, 3);
    api.addMessage('C0CALLS', { ts: botsOnly, user: 'U0PERSON', text: 'note to self' });
    await client.chat.postMessage({ channel: 'C0CALLS', thread_ts: botsOnly, text: 'noted' });
    // A DM thread with a follow-up, and a quiet channel.
    const dm = ts(now - 3_600_000, 4);
    api.addMessage('D0CALLS', { ts: dm, user: 'U0PERSON', text: 'hi', im: true });
    const followUp = ts(now - 120_000);
    api.addMessage('D0CALLS', { ts: followUp, thread_ts: dm, user: 'U0PERSON', text: 'and also', im: true });
    api.addMessage('C0QUIET', { ts: ts(now - 7_200_000), user: 'U0OTHER', text: 'nothing here' });

    const vt = virtualTime(now);
    const injected: string[] = [];
    const sweeper = new CatchupSweeper({
      client,
      store: new MemoryStore({ now: vt.now }),
      inject: async (envelope) => {
        const event = envelope.event as { channel: string; ts: string; thread_ts?: string };
        injected.push(`${event.channel}:${event.ts}:${event.thread_ts ?? ''}`);
        return 'claimed';
      },
      instance: 'hub',
      log: silentLogger,
      maxMs: 24 * 3_600_000,
      paceMs: PACE_MS,
      now: vt.now,
      sleep: vt.sleep,
    });
    const callsBefore = api.calls.length;
    const record = await sweeper.sweep(window);

    expect(injected.sort()).toEqual([`C0CALLS:${inActive}:${active}`, `C0CALLS:${lastInLong}:${long}`, `D0CALLS:${followUp}:${dm}`].sort());
    expect(record).toMatchObject({ conversations: 3, threads: 3, found: 3, answered: 3 });
    const calls = api.calls.slice(callsBefore).filter((c) => c.method !== 'auth.test');
    const replies = calls.filter((c) => c.method === 'conversations.replies');
    const readsOf = (thread: string) => replies.filter((c) => c.params.ts === thread).length;
    expect(readsOf(active)).toBe(1);
    expect(readsOf(long)).toBe(3);
    expect(readsOf(dm)).toBe(1);
    expect(replies).toHaveLength(5);
    expect(calls.filter((c) => c.method === 'conversations.history')).toHaveLength(3);
    // Every call after the first waited its turn, and nothing else was waited for.
    expect(vt.slept).toEqual(Array(calls.length - 1).fill(PACE_MS));
  });

  it('a thread Slack refuses (thread_not_found: it went meanwhile) is passed over, and the other threads are still read', async () => {
    const now = Date.now();
    const ts = (ms: number) => (ms / 1000).toFixed(6);
    const older = ts(now - 7_200_000);
    const newer = ts(now - 3_600_000);
    api.addMessage('C0GONE', { ts: older, user: 'U0OTHER', text: 'one' });
    api.addMessage('C0GONE', { ts: newer, user: 'U0OTHER', text: 'two' });
    const mention = ts(now - 60_000);
    api.addMessage('C0GONE', { ts: mention, thread_ts: older, user: 'U0PERSON', text: '<@UAUTOHUB> still on?' });
    api.addMessage('C0GONE', { ts: ts(now - 50_000), thread_ts: newer, user: 'U0PERSON', text: 'bye' });
    // History is newest first: the newer thread is read first, and refused.
    api.script('conversations.replies', { status: 200, body: { ok: false, error: 'thread_not_found' } });
    const { sweeper, injected } = unpacedSweep(new WebClient('xoxb-test', { slackApiUrl: api.url }));
    const record = await sweeper.sweep({ from: now - 600_000, to: now - 5_000 });
    expect(injected).toEqual([mention]);
    expect(record).toMatchObject({ threads: 2, found: 1, answered: 1 });
  });

  it("passes over the bot's own top-level messages and another app's, mention or not, listed among people's; a person's thread beside them is still read (before, the fake's history lost its parents' replies once the bot had posted at the top level)", async () => {
    const now = Date.now();
    const person = ((now - 120_000) / 1000).toFixed(6);
    api.addMessage('C0OWN', { ts: person, user: 'U0PERSON', text: '<@UAUTOHUB> are you there?' });
    const parent = ((now - 3_600_000) / 1000).toFixed(6);
    api.addMessage('C0OWN', { ts: parent, user: 'U0OTHER', text: 'plans?' });
    const inThread = ((now - 60_000) / 1000).toFixed(6);
    api.addMessage('C0OWN', { ts: inThread, thread_ts: parent, user: 'U0PERSON', text: '<@UAUTOHUB> which one?' });
    const client = new WebClient('xoxb-test', { slackApiUrl: api.url });
    // The bot's own top-level post (a schedule's, say), which names itself; and another app's mention.
    const own = (await client.chat.postMessage({ channel: 'C0OWN', text: 'Reminder from <@UAUTOHUB>: standup' })).ts!;
    const other = api.addOtherAppReply('C0OWN', '', '<@UAUTOHUB> ping');
    const { sweeper, injected } = unpacedSweep(client);
    const record = await sweeper.sweep({ from: now - 600_000, to: now + 60_000 });
    const listed = api.calls
      .filter((c) => c.method === 'conversations.history' && c.params.channel === 'C0OWN')
      .flatMap((c) => ((c.answer as { messages?: Array<{ ts: string; bot_id?: string }> }).messages ?? []).map((m) => [m.ts, m.bot_id ?? 'person']));
    expect(listed).toEqual(
      expect.arrayContaining([
        [own, 'BAUTOHUB'],
        [other, 'B0OTHER'],
        [person, 'person'],
      ]),
    );
    expect(injected.sort()).toEqual([person, inThread].sort());
    expect(record).toMatchObject({ found: 2, answered: 2 });
  });
});
