/**
 * `ctx.history()` is the thread before the message, oldest first,
 * this bot's messages as the assistant's, the bot's mention removed, at one
 * conversations.replies call per 1,000 messages. The real WebClient against
 * the fake Web API: its own paging for the bot's replies, and pages seeded
 * (scripted) in this file for threads with people in them, as Slack's
 * conversations.replies page shows them (parent first, then replies, oldest
 * first, `response_metadata.next_cursor` to the next page):
 * https://docs.slack.dev/reference/methods/conversations.replies
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { WebClient } from '@slack/web-api';
import { compareTs, readHistory } from '../../lib/turn/history.js';
import { useFakeWebApi } from '../support/fixtures.js';

const BOT = { botUserId: 'U0BOT', botId: 'BAUTOHUB', appId: 'A0AUTOHUB' };
const api = useFakeWebApi();
let client: WebClient;
beforeAll(() => {
  client = new WebClient('xoxb-test', { slackApiUrl: api.url, retryConfig: { retries: 0 } });
});

const repliesCalls = (thread: string) => api.calls.filter((c) => c.method === 'conversations.replies' && c.params.ts === thread);

/** Seed one thread as Slack would page it to a reader asking 1,000 at a time. */
function seedThread(messages: Array<Record<string, unknown>>, pageSize = 1000): void {
  const pages = [];
  for (let i = 0; i < Math.max(1, messages.length); i += pageSize) pages.push(messages.slice(i, i + pageSize));
  api.script(
    'conversations.replies',
    ...pages.map((page, i) => {
      const next = i + 1 < pages.length ? Buffer.from(`seeded:${i + 1}`).toString('base64') : '';
      return { status: 200, body: { ok: true, messages: page, has_more: next !== '', response_metadata: { next_cursor: next } } };
    }),
  );
}

describe('readHistory', () => {
  it("a thread of people and this bot reads as user and assistant turns, oldest first, the bot's mention gone", async () => {
    const thread = '1700100000.000100';
    seedThread([
      { ts: thread, user: 'U0ALICE', text: '<@U0BOT> can you summarise this for <@U0CAROL>?', thread_ts: thread, reply_count: 4 },
      { ts: '1700100001.000100', user: 'U0BOT', bot_id: 'BAUTOHUB', app_id: 'A0AUTOHUB', text: 'Sure: the summary.', thread_ts: thread },
      { ts: '1700100002.000100', user: 'U0ALICE', subtype: 'channel_join', text: '<@U0ALICE> has joined', thread_ts: thread },
      {
        ts: '1700100003.000100',
        user: 'U0OTHERBOT',
        bot_id: 'BOTHER',
        app_id: 'AOTHER',
        subtype: 'bot_message',
        text: 'another app speaking',
        thread_ts: thread,
      },
      { ts: '1700100004.000100', user: 'U0CAROL', text: 'thanks <@U0BOT|autohub>', thread_ts: thread },
      // The message being answered, and one after it: neither is history.
      { ts: '1700100005.000100', user: 'U0ALICE', text: '<@U0BOT> and now?', thread_ts: thread },
      { ts: '1700100006.000100', user: 'U0CAROL', text: 'later', thread_ts: thread },
    ]);
    const history = await readHistory(client, { channel: 'C1', threadTs: thread, beforeTs: '1700100005.000100', ...BOT });
    expect(history).toEqual([
      { role: 'user', user: 'U0ALICE', text: 'can you summarise this for <@U0CAROL>?', ts: thread },
      { role: 'assistant', user: 'U0BOT', text: 'Sure: the summary.', ts: '1700100001.000100' },
      { role: 'user', user: 'U0OTHERBOT', text: 'another app speaking', ts: '1700100003.000100' },
      { role: 'user', user: 'U0CAROL', text: 'thanks', ts: '1700100004.000100' },
    ]);
    expect(repliesCalls(thread)).toHaveLength(1);
    expect(repliesCalls(thread)[0]!.params).toMatchObject({ channel: 'C1', ts: thread, limit: '1000', latest: '1700100005.000100' });
  });

  it('this bot is recognised by its app id, its bot id or its bot user, each alone', async () => {
    const thread = '1700100100.000100';
    const page = [
      { ts: thread, user: 'U0ALICE', text: 'hi' },
      { ts: '1700100101.000100', app_id: 'A0AUTOHUB', bot_id: 'BNEW', text: 'by app id' },
      { ts: '1700100102.000100', bot_id: 'BAUTOHUB', text: 'by bot id' },
      { ts: '1700100103.000100', user: 'U0BOT', text: 'by bot user' },
    ];
    for (const only of [{ appId: 'A0AUTOHUB' }, { botId: 'BAUTOHUB' }, { botUserId: 'U0BOT' }]) {
      seedThread(page);
      const roles = (await readHistory(client, { channel: 'C1', threadTs: thread, beforeTs: '1700100200.000000', ...only })).map((m) => m.role);
      const expected = {
        appId: ['user', 'assistant', 'user', 'user'],
        botId: ['user', 'user', 'assistant', 'user'],
        botUserId: ['user', 'user', 'user', 'assistant'],
      };
      expect(roles).toEqual(expected[Object.keys(only)[0] as keyof typeof expected]);
    }
  });

  it('a long thread is read at one call per 1,000 messages, each page asked for with the cursor the last gave', async () => {
    const thread = '1700100300.000100';
    const messages = Array.from({ length: 2500 }, (_, i) => ({
      ts: `17001003${String(Math.floor(i / 1000)).padStart(2, '0')}.${String(i).padStart(6, '0')}`,
      user: 'U0ALICE',
      text: `m${i}`,
    }));
    seedThread(messages);
    const history = await readHistory(client, { channel: 'C1', threadTs: thread, beforeTs: '1700200000.000000', ...BOT });
    expect(history).toHaveLength(2500);
    expect(history[0]!.text).toBe('m0');
    expect(history[2499]!.text).toBe('m2499');
    const calls = repliesCalls(thread);
    expect(calls).toHaveLength(3);
    expect(calls.map((c) => c.params.cursor)).toEqual([undefined, Buffer.from('seeded:1').toString('base64'), Buffer.from('seeded:2').toString('base64')]);
  });

  it("the bot's own replies, as the fake holds them, page through its cursor: 1,100 replies in two calls", async () => {
    const thread = '1700100400.000100';
    const post = (i: number) =>
      fetch(`${api.url}chat.postMessage`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer xoxb-test' },
        body: JSON.stringify({ channel: 'C2', thread_ts: thread, text: `reply ${i}` }),
      });
    for (let i = 0; i < 1100; i += 50) await Promise.all(Array.from({ length: 50 }, (_, k) => post(i + k)));
    const history = await readHistory(client, { channel: 'C2', threadTs: thread, beforeTs: '9999999999.000000', ...BOT });
    expect(history).toHaveLength(1100);
    expect(history.every((m) => m.role === 'assistant')).toBe(true);
    expect(new Set(history.map((m) => m.text)).size).toBe(1100);
    expect(repliesCalls(thread)).toHaveLength(2);
  });

  it("a follow-up that waited for its conversation sees the bot's answer to the earlier message, written after it, but not its own earlier reply, notes, or people writing later", async () => {
    const thread = '1700100600.000100';
    const meta = (event_id: string, extra: Record<string, unknown> = {}) => ({
      event_type: 'autohub_turn',
      event_payload: { event_id, part: 0, final: true, ...extra },
    });
    seedThread([
      { ts: thread, user: 'U0ALICE', text: '<@U0BOT> first question' },
      // The follow-up being answered, written while the first turn ran.
      { ts: '1700100601.000100', user: 'U0ALICE', text: '<@U0BOT> and a follow-up' },
      { ts: '1700100602.000100', user: 'U0BOT', bot_id: 'BAUTOHUB', app_id: 'A0AUTOHUB', text: 'the first answer', metadata: meta('Ev-first') },
      {
        ts: '1700100603.000100',
        user: 'U0BOT',
        bot_id: 'BAUTOHUB',
        app_id: 'A0AUTOHUB',
        text: '_(trying again)_',
        metadata: meta('Ev-first', { part: -1, final: false, note: true }),
      },
      { ts: '1700100604.000100', user: 'U0BOT', bot_id: 'BAUTOHUB', app_id: 'A0AUTOHUB', text: 'my own half reply', metadata: meta('Ev-follow') },
      { ts: '1700100605.000100', user: 'U0CAROL', text: 'a later message, waiting its own turn' },
    ]);
    const history = await readHistory(client, { channel: 'C1', threadTs: thread, beforeTs: '1700100601.000100', answersAfter: 'Ev-follow', ...BOT });
    expect(history.map((m) => [m.role, m.text])).toEqual([
      ['user', 'first question'],
      ['assistant', 'the first answer'],
    ]);
    expect(repliesCalls(thread)[0]!.params).toMatchObject({ include_all_metadata: 'true' });
    expect(repliesCalls(thread)[0]!.params.latest).toBeUndefined();
  });

  it('a message not in a thread (a top-level mention or DM) has no history, and costs no call', async () => {
    const before = api.calls.length;
    expect(await readHistory(client, { channel: 'D1', threadTs: '1700100500.000100', beforeTs: '1700100500.000100', ...BOT })).toEqual([]);
    expect(api.calls.length).toBe(before);
  });

  it('compareTs orders Slack timestamps exactly, past what a double holds', () => {
    expect(compareTs('1700000000.000002', '1700000000.000001')).toBeGreaterThan(0);
    expect(compareTs('999999999.999999', '1000000000.000000')).toBeLessThan(0);
    expect(compareTs('1700000000.000100', '1700000000.000100')).toBe(0);
  });
});
