/**
 * The table of Slack's methods (drill/sim/slack-methods.ts) and the fake Web
 * API that answers from it, kept in step: every method autohub calls has a
 * row, and every documented limit and error of a row comes back from the
 * fake to the real WebClient over loopback.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WebClient } from '@slack/web-api';
import { beforeAll, describe, expect, it } from 'vitest';
import { AUTOHUB_BOT, OTHER_APP } from '../../drill/sim/fake-web-api.js';
import { MARKDOWN_TEXT_MAX, SLACK_METHODS, methodRow } from '../../drill/sim/slack-methods.js';
import { METHOD_SCOPES } from '../../lib/slack/scopes.js';
import { checkThread } from '../../lib/turn/thread.js';
import { ReplyWriter } from '../../lib/turn/writer.js';
import { methodsCalled } from '../support/methods-called.js';
import { useFakeWebApi } from '../support/fixtures.js';

const ROOT = join(import.meta.dirname, '../..');

const errorOf = async (call: Promise<unknown>): Promise<string | undefined> => {
  try {
    const answer = (await call) as { ok?: boolean; error?: string };
    return answer.ok === false ? answer.error : undefined;
  } catch (error) {
    return (error as { data?: { error?: string } }).data?.error ?? `threw ${(error as Error).message}`;
  }
};

describe('the Slack methods table', () => {
  it('has a row for every Web API method autohub calls (a new call without a row fails here)', () => {
    const called = methodsCalled();
    expect(called.size).toBeGreaterThan(8);
    const missing = [...called, ...Object.keys(METHOD_SCOPES)].filter((m) => !methodRow(m));
    expect(missing).toEqual([]);
  });

  it.each(SLACK_METHODS.map((r) => [r.method, r] as const))('%s cites the Slack doc page it follows, and names its tier', (method, row) => {
    expect(row.doc).toMatch(new RegExp(`^https://(docs\\.slack\\.dev/reference/methods|api\\.slack\\.com/methods)/${method.replace('.', '\\.')}$`));
    expect(['Tier 1', 'Tier 2', 'Tier 3', 'Tier 4', 'Special']).toContain(row.tier);
    expect(row.calledFrom.length).toBeGreaterThan(0);
  });

  it('has the limits Slack documents for long answers: markdown_text 12,000 a call, chat.update text 4,000, chat.postMessage text cut at 40,000', () => {
    for (const method of ['chat.postMessage', 'chat.startStream', 'chat.appendStream', 'chat.stopStream', 'chat.update']) {
      expect(methodRow(method)!.limits).toContainEqual(expect.objectContaining({ arg: 'markdown_text', max: 12_000, error: 'msg_too_long' }));
    }
    expect(methodRow('chat.update')!.limits).toContainEqual(expect.objectContaining({ arg: 'text', max: 4_000, error: 'msg_too_long' }));
    expect(methodRow('chat.postMessage')!.limits).toContainEqual(expect.objectContaining({ arg: 'text', max: 40_000, truncate: true }));
  });
});

describe('the fake Web API, driven by the real WebClient, answers as the table says', () => {
  const api = useFakeWebApi();
  let client: WebClient;
  let n = 0;
  const ts = () => `${Math.floor(Date.now() / 1000)}.${String(++n).padStart(6, '0')}`;
  // Loosely typed: the table's methods, called by name with whatever a case needs.
  const call = async (method: string, args: Record<string, unknown>): Promise<Record<string, unknown>> =>
    (await client.apiCall(method, args)) as unknown as Record<string, unknown>;
  /** A stream this app opened in a channel, with its recipients (Slack wants them outside a DM). */
  const openStream = async (channel = 'C0GENERAL', text = 'Hi') =>
    (await call('chat.startStream', { channel, thread_ts: ts(), markdown_text: text, recipient_user_id: 'U0PERSON', recipient_team_id: 'T0AUTOHUB' }))
      .ts as string;
  const openChunked = async () =>
    (
      await call('chat.startStream', {
        channel: 'C0GENERAL',
        thread_ts: ts(),
        chunks: [{ type: 'markdown_text', text: 'Hi' }],
        recipient_user_id: 'U0PERSON',
        recipient_team_id: 'T0AUTOHUB',
      })
    ).ts as string;
  const stoppedStream = async () => {
    const s = await openStream();
    await call('chat.stopStream', { channel: 'C0GENERAL', ts: s });
    return s;
  };
  const userStopped = async () => {
    const s = await openStream();
    api.pressStop(s);
    return s;
  };
  const othersReply = () => api.addOtherAppReply('C0GENERAL', ts());
  const long = MARKDOWN_TEXT_MAX + 1;

  /** How to make Slack give each error in the table. A row's error without one here fails the test below. */
  const provoke: Record<string, () => Promise<unknown>> = {
    'chat.postMessage channel_not_found': () => call('chat.postMessage', { text: 'hi' }),
    'chat.postMessage no_text': () => call('chat.postMessage', { channel: 'C0GENERAL' }),
    'chat.postMessage markdown_text_conflict': () => call('chat.postMessage', { channel: 'C0GENERAL', text: 'a', markdown_text: 'b' }),
    'chat.postMessage msg_too_long': () => call('chat.postMessage', { channel: 'C0GENERAL', markdown_text: 'x'.repeat(long) }),
    // Past 50 blocks (https://docs.slack.dev/block-kit).
    'chat.postMessage invalid_blocks': () =>
      call('chat.postMessage', { channel: 'C0GENERAL', text: 'a', blocks: Array.from({ length: 51 }, () => ({ type: 'markdown', text: 'a' })) }),
    'chat.startStream channel_not_found': () => call('chat.startStream', { thread_ts: ts(), markdown_text: 'a' }),
    'chat.startStream missing_recipient_user_id': () => call('chat.startStream', { channel: 'C0GENERAL', thread_ts: ts(), markdown_text: 'a' }),
    'chat.startStream missing_recipient_team_id': () =>
      call('chat.startStream', { channel: 'C0GENERAL', thread_ts: ts(), markdown_text: 'a', recipient_user_id: 'U0PERSON' }),
    'chat.startStream channel_type_not_supported': () => {
      api.refuseStreamsIn.add('C0NOSTREAMS');
      return openStream('C0NOSTREAMS');
    },
    'chat.startStream no_text': () => openStream('C0GENERAL', ''),
    'chat.startStream invalid_chunks': () =>
      call('chat.startStream', {
        channel: 'C0GENERAL',
        thread_ts: ts(),
        chunks: [{ type: 'task_update', id: 't1', title: 'Search', status: 'running' }],
        recipient_user_id: 'U0PERSON',
        recipient_team_id: 'T0AUTOHUB',
      }),
    'chat.startStream invalid_arguments': () =>
      call('chat.startStream', {
        channel: 'C0GENERAL',
        thread_ts: ts(),
        markdown_text: 'a',
        task_display_mode: 'kanban',
        recipient_user_id: 'U0PERSON',
        recipient_team_id: 'T0AUTOHUB',
      }),
    'chat.startStream msg_too_long': () => openStream('C0GENERAL', 'x'.repeat(long)),
    ...Object.fromEntries(
      (['chat.appendStream', 'chat.stopStream'] as const).flatMap((method) => {
        const text = method === 'chat.appendStream' ? { markdown_text: 'more' } : {};
        return [
          [`${method} message_not_found`, () => call(method, { channel: 'C0GENERAL', ts: ts(), ...text })],
          [`${method} message_not_in_streaming_state`, async () => call(method, { channel: 'C0GENERAL', ts: await stoppedStream(), ...text })],
          [`${method} message_not_owned_by_app`, () => call(method, { channel: 'C0GENERAL', ts: othersReply(), ...text })],
          [`${method} stopped_by_user`, async () => call(method, { channel: 'C0GENERAL', ts: await userStopped(), ...text })],
          [
            `${method} streaming_mode_mismatch`,
            async () => call(method, { channel: 'C0GENERAL', ts: await openStream(), chunks: [{ type: 'markdown_text', text: 'more' }] }),
          ],
          [
            `${method} cannot_provide_both_markdown_text_and_chunks`,
            async () => call(method, { channel: 'C0GENERAL', ts: await openStream(), markdown_text: 'a', chunks: [{ type: 'markdown_text', text: 'b' }] }),
          ],
          [`${method} channel_not_found`, async () => call(method, { ts: await openStream(), ...text })],
          [`${method} invalid_chunks`, async () => call(method, { channel: 'C0GENERAL', ts: await openChunked(), chunks: [{ type: 'plan_update' }] })],
          [`${method} msg_too_long`, async () => call(method, { channel: 'C0GENERAL', ts: await openStream(), markdown_text: 'x'.repeat(long) })],
        ];
      }),
    ),
    // The feedback buttons and more: past 50 blocks (https://docs.slack.dev/block-kit), as a post's.
    'chat.stopStream invalid_blocks': async () =>
      call('chat.stopStream', { channel: 'C0GENERAL', ts: await openStream(), blocks: Array.from({ length: 51 }, () => ({ type: 'divider' })) }),
    'chat.appendStream markdown_text_or_chunks_required': async () => call('chat.appendStream', { channel: 'C0GENERAL', ts: await openStream() }),
    'chat.update msg_too_long': async () => call('chat.update', { channel: 'C0GENERAL', ts: await stoppedStream(), text: 'x'.repeat(4_001) }),
    'chat.update streaming_state_conflict': async () => call('chat.update', { channel: 'C0GENERAL', ts: await openStream(), text: 'whole' }),
    'chat.update cant_update_message': () => call('chat.update', { channel: 'C0GENERAL', ts: othersReply(), text: 'mine now' }),
    'chat.update message_not_found': () => call('chat.update', { channel: 'C0GENERAL', ts: ts(), text: 'x' }),
    'chat.update markdown_text_conflict': async () => call('chat.update', { channel: 'C0GENERAL', ts: await stoppedStream(), text: 'a', markdown_text: 'b' }),
    // A task card without its task_id (https://docs.slack.dev/reference/block-kit/blocks/task-card-block: required).
    'chat.update invalid_blocks': async () =>
      call('chat.update', { channel: 'C0GENERAL', ts: await stoppedStream(), text: 'a', blocks: [{ type: 'task_card', title: 'Search', status: 'complete' }] }),
    'chat.update no_text': async () => call('chat.update', { channel: 'C0GENERAL', ts: await stoppedStream() }),
    'chat.update channel_not_found': async () => call('chat.update', { ts: await stoppedStream(), text: 'x' }),
    'assistant.threads.setStatus channel_not_found': () => call('assistant.threads.setStatus', { thread_ts: ts(), status: 'is thinking...' }),
    'assistant.threads.setStatus invalid_thread_ts': () => call('assistant.threads.setStatus', { channel_id: 'D0PERSON', status: 'is thinking...' }),
    'assistant.threads.setSuggestedPrompts channel_not_found': () =>
      call('assistant.threads.setSuggestedPrompts', { thread_ts: ts(), prompts: [{ title: 'Hi', message: 'Hi there' }] }),
    'assistant.threads.setTitle channel_not_found': () => call('assistant.threads.setTitle', { thread_ts: ts(), title: 'A title' }),
    'assistant.threads.setTitle invalid_thread_ts': () => call('assistant.threads.setTitle', { channel_id: 'D0PERSON', title: 'A title' }),
    'conversations.replies channel_not_found': () => call('conversations.replies', { ts: ts() }),
    'conversations.replies thread_not_found': () => call('conversations.replies', { channel: 'C0GENERAL' }),
    'conversations.replies invalid_cursor': () => call('conversations.replies', { channel: 'C0GENERAL', ts: ts(), cursor: 'bm90IG91cnM=' }),
    'conversations.history channel_not_found': () => call('conversations.history', { channel: 'C0NEVERHEARDOF' }),
    'conversations.history invalid_cursor': () => {
      api.addMessage('C0HISTORY', { ts: ts(), user: 'U0PERSON', text: 'hello' });
      return call('conversations.history', { channel: 'C0HISTORY', cursor: 'bm90IG91cnM=' });
    },
    'users.conversations invalid_cursor': () => call('users.conversations', { cursor: 'bm90IG91cnM=' }),
  };

  beforeAll(() => {
    client = new WebClient('xoxb-test', { slackApiUrl: api.url, retryConfig: { retries: 0 } });
  });

  const documented = SLACK_METHODS.flatMap((row) => Object.keys(row.errors).map((error) => `${row.method} ${error}`));

  it('a blocks chunk holds 1 to 50 blocks (@slack/types 3.2 BlocksChunk): 50 are shown after the text before them, 51 or none are invalid_chunks', async () => {
    const divider = { type: 'divider' };
    const ts = await openChunked();
    const fifty = Array.from({ length: 50 }, () => divider);
    await call('chat.appendStream', {
      channel: 'C0GENERAL',
      ts,
      chunks: [
        { type: 'markdown_text', text: 'before ' },
        { type: 'blocks', blocks: fifty },
      ],
    });
    expect(api.streams.get(ts)!.shows.slice(-2)).toEqual([{ text: 'before ' }, { blocks: fifty }]);
    for (const blocks of [[...fifty, divider], []]) {
      await expect(call('chat.appendStream', { channel: 'C0GENERAL', ts, chunks: [{ type: 'blocks', blocks }] })).rejects.toMatchObject({
        data: { error: 'invalid_chunks' },
      });
    }
  });

  it('has a way to provoke every error the table lists, and no other', () => {
    expect(Object.keys(provoke).sort()).toEqual([...documented].sort());
  });

  it.each(documented)('%s comes back as Slack documents it', async (key) => {
    const error = key.split(' ')[1]!;
    expect(await errorOf(provoke[key]!())).toBe(error);
  });

  it.each(SLACK_METHODS.flatMap((row) => row.limits.filter((l) => !l.truncate).map((l) => [row.method, l.arg, l.max] as const)))(
    '%s takes %s of exactly %i characters (the limit is not off by one)',
    async (method, arg, max) => {
      const args: Record<string, unknown> = { channel: 'C0GENERAL', [arg]: 'y'.repeat(max) };
      if (method === 'chat.startStream') Object.assign(args, { thread_ts: ts(), recipient_user_id: 'U0PERSON', recipient_team_id: 'T0AUTOHUB' });
      if (method === 'chat.appendStream' || method === 'chat.stopStream') args.ts = await openStream();
      if (method === 'chat.update') args.ts = await stoppedStream();
      expect(await errorOf(call(method, args))).toBeUndefined();
    },
  );

  it("sends only arguments the table lists when autohub's own reply code runs (a new argument needs its row checked against Slack's page)", async () => {
    const target = { channel: 'C0ARGS', threadTs: ts(), eventId: 'Ev-args', recipientUser: 'U0PERSON', recipientTeam: 'T0AUTOHUB' };
    const from = api.calls.length;
    async function* chunks() {
      yield 'Hi, ';
      yield 'all of it.';
    }
    const writer = new ReplyWriter(client, target, undefined, { closed: () => false, appendEveryMs: 0 });
    const streamed = await writer.write(chunks());
    await new ReplyWriter(client, { ...target, threadTs: ts() }, undefined, { closed: () => false }).post('posted');
    await writer.complete(streamed.parts, 'Hi, all of it, again.');
    await checkThread(client, target, { appId: 'A0AUTOHUB', botId: 'BAUTOHUB', botUserId: 'UAUTOHUB' }, true);
    const made = api.calls.slice(from);
    expect(made.map((c) => c.method)).toEqual(
      expect.arrayContaining(['chat.startStream', 'chat.appendStream', 'chat.stopStream', 'chat.postMessage', 'chat.update', 'conversations.replies']),
    );
    expect(made.filter((c) => c.unknown).map((c) => `${c.method}: ${c.unknown!.join(', ')}`)).toEqual([]);
  });

  it('cuts a chat.postMessage text past 40,000 characters and accepts the post (Slack truncates, it does not refuse)', async () => {
    const thread = ts();
    expect(await errorOf(call('chat.postMessage', { channel: 'C0GENERAL', thread_ts: thread, text: 'z'.repeat(40_001) }))).toBeUndefined();
    const post = api.posts().find((p) => p.params.thread_ts === thread)!;
    expect(post.params.text).toHaveLength(40_000);
    expect(post.truncated).toBe(true);
  });

  it('a Stop press ends the stream as the person left it: appends refused, the message kept and counted as the reply', async () => {
    const thread = ts();
    const s = (await call('chat.startStream', { channel: 'D0PERSON', thread_ts: thread, markdown_text: 'Hi, ' })).ts as string;
    await call('chat.appendStream', { channel: 'D0PERSON', ts: s, markdown_text: 'the first part' });
    expect(api.pressStop(s)).toBe(true);
    expect(await errorOf(call('chat.appendStream', { channel: 'D0PERSON', ts: s, markdown_text: ' and more' }))).toBe('stopped_by_user');
    expect(api.streams.get(s)).toMatchObject({ state: 'stopped_by_user', text: 'Hi, the first part' });
    expect(api.posts().filter((p) => p.params.thread_ts === thread)).toHaveLength(1);
  });

  it('a chat.update of a post changes what the thread shows (text and metadata), as Slack holds it', async () => {
    const thread = ts();
    const posted = (await call('chat.postMessage', { channel: 'C0EDIT', thread_ts: thread, text: 'first draft' })).ts as string;
    await call('chat.update', {
      channel: 'C0EDIT',
      ts: posted,
      markdown_text: '**final**',
      metadata: { event_type: 'autohub_turn', event_payload: { event_id: 'Ev-edit' } },
    });
    const read = (await call('conversations.replies', { channel: 'C0EDIT', ts: thread, include_all_metadata: true })) as {
      messages: Array<Record<string, unknown>>;
    };
    expect(read.messages).toEqual([
      expect.objectContaining({ ts: posted, text: '**final**', metadata: expect.objectContaining({ event_payload: { event_id: 'Ev-edit' } }) }),
    ]);
    expect(api.posts().find((p) => p.params.thread_ts === thread)!.params.text).toBe('**final**');
  });

  it('a stream in a DM needs no recipient (Slack asks for one only in channels)', async () => {
    expect(await errorOf(call('chat.startStream', { channel: 'D0PERSON', thread_ts: ts(), markdown_text: 'Hi' }))).toBeUndefined();
  });

  it("messages read back carry bot_id, app_id, the bot user and bot_profile; another app's reply carries its own", async () => {
    const thread = ts();
    api.addMessage('C0READ', { ts: thread, user: 'U0PERSON', text: '<@UAUTOHUB> hi' });
    await call('chat.postMessage', {
      channel: 'C0READ',
      thread_ts: thread,
      text: 'mine',
      metadata: { event_type: 'autohub_turn', event_payload: { event_id: 'Ev1' } },
    });
    const other = api.addOtherAppReply('C0READ', thread, 'theirs');
    const read = (await call('conversations.replies', { channel: 'C0READ', ts: thread, include_all_metadata: true })) as {
      messages: Array<Record<string, unknown>>;
    };
    expect(read.messages.map((m) => m.ts)[0]).toBe(thread);
    const [, mine, theirs] = read.messages;
    expect(mine).toMatchObject({
      bot_id: AUTOHUB_BOT.bot_id,
      app_id: AUTOHUB_BOT.app_id,
      user: AUTOHUB_BOT.user,
      bot_profile: { app_id: AUTOHUB_BOT.app_id },
      metadata: { event_type: 'autohub_turn' },
    });
    expect(theirs).toMatchObject({
      ts: other,
      bot_id: OTHER_APP.bot_id,
      app_id: OTHER_APP.app_id,
      user: OTHER_APP.user,
      bot_profile: { app_id: OTHER_APP.app_id },
    });
    expect(theirs).not.toHaveProperty('metadata');
    const history = (await call('conversations.history', { channel: 'C0READ' })) as { messages: Array<Record<string, unknown>> };
    expect(history.messages[0]).toMatchObject({ ts: thread, thread_ts: thread, reply_count: 2, reply_users_count: 2, latest_reply: other });
    expect(history.messages[0]!.reply_users).toEqual(expect.arrayContaining([AUTOHUB_BOT.user, OTHER_APP.user]));
  });

  it("a reply's ts is later than the message it answers, whatever that message's ts (Slack's ts orders a channel): history reads question, then answer", async () => {
    // A person's message late in this second (as try's are: the ms in the fraction), then the bot's answers to it.
    const now = Date.now();
    const thread = `${Math.floor(now / 1000)}.999999`;
    api.addMessage('C0ORDER', { ts: thread, user: 'U0PERSON', text: '<@UAUTOHUB> first?' });
    const posted = (await call('chat.postMessage', { channel: 'C0ORDER', thread_ts: thread, text: 'posted answer' })) as { ts: string };
    const streamed = (await call('chat.startStream', {
      channel: 'C0ORDER',
      thread_ts: thread,
      markdown_text: 'streamed',
      recipient_team_id: 'T1',
      recipient_user_id: 'U0PERSON',
    })) as { ts: string };
    expect(Number(posted.ts)).toBeGreaterThan(Number(thread));
    expect(Number(streamed.ts)).toBeGreaterThan(Number(posted.ts));
    const read = (await call('conversations.replies', { channel: 'C0ORDER', ts: thread })) as { messages: Array<{ ts: string; text: string }> };
    expect(read.messages.map((m) => m.text)).toEqual(['<@UAUTOHUB> first?', 'posted answer', 'streamed']);
  });

  it('conversations.replies pages at its limit with cursors however long the thread (4,500 replies, 23 pages of 200)', async () => {
    const thread = ts();
    api.addMessage('C0LONG', { ts: thread, user: 'U0PERSON', text: '<@UAUTOHUB> hi' });
    for (let i = 0; i < 4_500; i++) api.addOtherAppReply('C0LONG', thread, `reply ${i}`);
    let cursor: string | undefined;
    let pages = 0;
    let seen = 0;
    do {
      const page = (await call('conversations.replies', { channel: 'C0LONG', ts: thread, limit: 200, ...(cursor ? { cursor } : {}) })) as {
        messages: unknown[];
        has_more: boolean;
        response_metadata?: { next_cursor?: string };
      };
      pages += 1;
      seen += page.messages.length;
      expect(page.messages.length).toBeLessThanOrEqual(200);
      cursor = page.has_more ? page.response_metadata?.next_cursor : undefined;
    } while (cursor);
    expect(seen).toBe(4_501);
    expect(pages).toBe(23);
  });
});

describe("the method table's calledFrom names the code that calls each method", () => {
  it('every calledFrom path is a file of this repository that names the method (before: two rows named app/listeners files that were gone)', () => {
    const stale: string[] = [];
    for (const row of SLACK_METHODS) {
      // The method as the code writes it: `client.chat.postMessage(`, `'auth.test'`; its last segment at least.
      const name = row.method.slice(row.method.lastIndexOf('.') + 1);
      for (const entry of row.calledFrom) {
        const path = entry.split(' ')[0]!;
        const file = join(ROOT, path);
        let text: string;
        try {
          text = readFileSync(file, 'utf8');
        } catch {
          stale.push(`${row.method}: ${path} does not exist`);
          continue;
        }
        if (!text.includes(name)) stale.push(`${row.method}: ${path} never names ${name}`);
      }
    }
    expect(stale).toEqual([]);
  });
});
