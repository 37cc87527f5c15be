/**
 * `examples/anthropic.ts`, run as autohub runs it (its
 * takeTurn with a ctx: a real StepBook over the in-process store, a stubbed
 * history, the real WebClient against the fake Web API), against a loopback
 * fake of the Messages API that streams Server-Sent Events as Anthropic's
 * streaming page describes them (message_start, content_block_start,
 * content_block_delta with text_delta or input_json_delta, content_block_stop,
 * message_delta with the stop_reason, message_stop):
 * https://docs.claude.com/en/docs/build-with-claude/streaming
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebClient } from '@slack/web-api';
import Anthropic from '@anthropic-ai/sdk';
import { silentLogger } from '../../lib/log/index.js';
import { MemoryStore } from '../../lib/store/index.js';
import { StepBook } from '../../lib/turn/steps.js';
import type { HistoryMessage, TurnContext, TurnRequest } from '../../lib/bot/index.js';
import { FEEDBACK_BLOCKS, loadingMessages, onFeedback, prompts, takeTurn, toMessages } from '../../examples/anthropic.js';
import { useFakeWebApi } from '../support/fixtures.js';
import { NonRetryableError } from 'autohub/bot';
import { classifyTurnFailure } from '../../lib/errors/index.js';

type Event = Record<string, unknown> & { type: string };
interface Seen {
  body: { model?: string; stream?: boolean; messages: Array<{ role: string; content: unknown }> };
  closed: Promise<void>;
}

const message = (id: string): Event => ({
  type: 'message_start',
  message: {
    id,
    type: 'message',
    role: 'assistant',
    model: 'claude-test',
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 1 },
  },
});
const text = (index: number, parts: string[]): Event[] => [
  { type: 'content_block_start', index, content_block: { type: 'text', text: '' } },
  ...parts.map((t) => ({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: t } })),
  { type: 'content_block_stop', index },
];
const tool = (index: number, id: string, json: string[]): Event[] => [
  { type: 'content_block_start', index, content_block: { type: 'tool_use', id, name: 'file_ticket', input: {} } },
  ...json.map((partial_json) => ({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } })),
  { type: 'content_block_stop', index },
];
const end = (stop_reason: string): Event[] => [
  { type: 'message_delta', delta: { stop_reason, stop_sequence: null }, usage: { output_tokens: 12 } },
  { type: 'message_stop' },
];
const write = (res: ServerResponse, e: Event) => res.write(`event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);

/** What the fake model does: file a ticket when told of a printer, answer with the tool's result, or drip forever. */
let calls = 0;
function answer(seen: Seen, res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'request-id': `req_${++calls}` });
  const last = seen.body.messages.at(-1)!;
  const content = last.content;
  if (Array.isArray(content) && content[0]?.type === 'tool_result') {
    const result = JSON.parse(String(content[0].content)) as { ticket: string };
    for (const e of [message(`msg_${calls}`), ...text(0, ['Filed ', result.ticket, '.']), ...end('end_turn')]) write(res, e);
    return void res.end();
  }
  const said = String(content);
  if (said.includes('slowly')) {
    // One delta every 20 ms until the client goes away.
    write(res, message(`msg_${calls}`));
    write(res, { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    const timer = setInterval(() => write(res, { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'word ' } }), 20);
    res.on('close', () => clearInterval(timer));
    return;
  }
  if (said.includes('printer')) {
    // A new tool-use id on every call, as the real API gives.
    for (const e of [
      message(`msg_${calls}`),
      ...text(0, ['Let me file that.']),
      ...tool(1, `toolu_${calls}`, ['{"title": "Printer', ' on fire"}']),
      ...end('tool_use'),
    ])
      write(res, e);
    return void res.end();
  }
  for (const e of [message(`msg_${calls}`), ...text(0, ['Hello', ', ', 'Alice.']), ...end('end_turn')]) write(res, e);
  res.end();
}

let model: Server;
const seen: Seen[] = [];
const api = useFakeWebApi();
let slack: WebClient;
const saved = { ...process.env };

beforeAll(async () => {
  model = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const s: Seen = {
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Seen['body'],
        closed: new Promise((resolve) => res.on('close', () => resolve())),
      };
      seen.push(s);
      answer(s, res);
    });
  });
  await new Promise<void>((resolve) => model.listen(0, '127.0.0.1', resolve));
  const address = model.address();
  slack = new WebClient('xoxb-test', { slackApiUrl: api.url, retryConfig: { retries: 0 } });
  Object.assign(process.env, {
    ANTHROPIC_BASE_URL: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    ANTHROPIC_API_KEY: 'sk-ant-test',
    ANTHROPIC_MODEL: 'claude-test',
    TICKET_CHANNEL: 'C0TICKETS',
  });
});
afterAll(async () => {
  for (const key of ['ANTHROPIC_BASE_URL', 'ANTHROPIC_API_KEY', 'ANTHROPIC_MODEL', 'TICKET_CHANNEL']) {
    if (saved[key] === undefined) delete process.env[key];
    else process.env[key] = saved[key];
  }
  model.closeAllConnections();
  await new Promise<void>((resolve) => model.close(() => resolve()));
});

const HISTORY: HistoryMessage[] = [
  { role: 'user', user: 'U0ALICE', text: 'the office printer', ts: '1700000000.000100' },
  { role: 'assistant', user: 'U0BOT', text: 'What about it?', ts: '1700000001.000100' },
];
let n = 0;
const request = (text: string): TurnRequest => ({
  text,
  user: 'U0ALICE',
  channel: 'C1',
  threadTs: '1700000000.000100',
  ts: `1700000002.${String(++n).padStart(6, '0')}`,
  eventId: `Ev-anthropic-${n}`,
  via: 'mention',
  late: false,
  files: [],
  copy: { role: 'hub', instance: 'hub-test' },
});
const ctxOf = (book: StepBook, signal: AbortSignal = new AbortController().signal): TurnContext => ({
  signal,
  history: async () => HISTORY,
  step: (name, fn) => book.run(name, fn),
  ask: async () => ({ timedOut: true }),
  sleep: async () => {},
  client: slack,
  log: silentLogger,
});
async function collect(reply: AsyncIterable<string>): Promise<string> {
  let out = '';
  for await (const chunk of reply) out += chunk;
  return out;
}
const tickets = () => api.calls.filter((c) => c.method === 'chat.postMessage' && c.params.channel === 'C0TICKETS');

describe('examples/anthropic.ts', () => {
  it("streams the model's text deltas as the reply, with the thread so far as the messages", async () => {
    const store = new MemoryStore();
    const before = seen.length;
    const { text: reply, blocks } = await takeTurn(
      request('hello there'),
      ctxOf(new StepBook({ eventId: 'Ev-steps', store, key: 'k-hello', kept: undefined })),
    );
    expect(blocks).toEqual(FEEDBACK_BLOCKS);
    const chunks: string[] = [];
    for await (const chunk of reply) chunks.push(chunk);
    expect(chunks).toEqual(['Hello', ', ', 'Alice.']);
    const body = seen[before]!.body;
    expect(body).toMatchObject({ model: 'claude-test', stream: true });
    expect(body.messages).toEqual([
      { role: 'user', content: '<@U0ALICE>: the office printer' },
      { role: 'assistant', content: 'What about it?' },
      { role: 'user', content: '<@U0ALICE>: hello there' },
    ]);
  });

  it('files the ticket once across two runs of the turn that share its kept steps, and both answer with the same ticket', async () => {
    const store = new MemoryStore();
    const key = 'autohub:claim:T1:event:Ev-printer';
    const req = request('the printer is on fire');
    const first = await collect((await takeTurn(req, ctxOf(new StepBook({ eventId: 'Ev-steps', store, key, kept: undefined })))).text);
    expect(tickets()).toHaveLength(1);
    // The copy is taken over (or the turn retried) after the step: the next run loads what was kept.
    const second = await collect((await takeTurn(req, ctxOf(await StepBook.load(store, key, { eventId: 'Ev-steps' })))).text);
    expect(tickets()).toHaveLength(1);
    const ticket = `TCK-${(tickets()[0]!.answer as { ts: string }).ts}`;
    expect(first).toBe(`Let me file that.\n\nFiled ${ticket}.`);
    expect(second).toBe(first);
    expect(tickets()[0]!.params.text).toBe('New ticket from <@U0ALICE>: Printer on fire');
  });

  it("aborting ctx.signal stops the model's stream: the request is closed and the turn throws the SDK's abort", async () => {
    const controller = new AbortController();
    const before = seen.length;
    const { text: reply } = await takeTurn(
      request('answer slowly'),
      ctxOf(new StepBook({ eventId: 'Ev-steps', store: new MemoryStore(), key: 'k-slow', kept: undefined }), controller.signal),
    );
    let chunks = 0;
    const error = await (async () => {
      for await (const _chunk of reply) {
        chunks += 1;
        if (chunks === 3) controller.abort();
      }
    })().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Anthropic.APIUserAbortError);
    await seen[before]!.closed;
    expect(chunks).toBe(3);
  });

  it('in the split view, the channel the person looks at leads the messages; prompts name it; loading messages follow the request', async () => {
    const before = seen.length;
    const req = { ...request('what is new?'), via: 'dm' as const, context: { channel: 'C0ROADMAP', team: 'T1', enterprise: undefined } };
    await collect((await takeTurn(req, ctxOf(new StepBook({ eventId: 'Ev-steps', store: new MemoryStore(), key: 'k-ctx', kept: undefined })))).text);
    expect(seen[before]!.body.messages[0]).toEqual({ role: 'user', content: '(I am looking at <#C0ROADMAP>.)' });
    expect(prompts({ channel: 'D1', threadTs: '1.1', user: 'U1', context: { channel: 'C0ROADMAP', team: 'T1', enterprise: undefined } })[0]!.message).toContain(
      '<#C0ROADMAP>',
    );
    expect(loadingMessages(request('hi')).length).toBeLessThanOrEqual(10);
  });

  it('a thumbs-down is reported to TICKET_CHANNEL, a thumbs-up only logged', async () => {
    const before = tickets().length;
    const click = {
      value: 'bad',
      positive: false,
      user: 'U0ALICE',
      channel: 'C1',
      messageTs: '1700000003.000100',
      threadTs: '1.1',
      eventId: 'Ev1',
      actionId: 'claude_feedback',
    };
    await onFeedback(click, { client: slack, log: silentLogger });
    await onFeedback({ ...click, value: 'good', positive: true }, { client: slack, log: silentLogger });
    expect(
      tickets()
        .slice(before)
        .map((c) => c.params.text),
    ).toEqual(['<@U0ALICE> found an answer unhelpful (message 1700000003.000100 in <#C1>).']);
  });

  it('with no ANTHROPIC_API_KEY the turn gives up at once (NonRetryableError: a dead letter naming the key), asking the model nothing', async () => {
    const key = process.env.ANTHROPIC_API_KEY;
    delete process.env.ANTHROPIC_API_KEY;
    const before = seen.length;
    try {
      const failed = takeTurn(request('hello'), ctxOf(new StepBook({ eventId: 'Ev-nokey', store: new MemoryStore(), key: 'k-nokey', kept: undefined })));
      await expect(failed).rejects.toThrow(NonRetryableError);
      expect(classifyTurnFailure(await failed.catch((e: unknown) => e))).toMatchObject({
        kind: 'permanent',
        reason: 'non-retryable: ANTHROPIC_API_KEY is not set',
      });
    } finally {
      process.env.ANTHROPIC_API_KEY = key;
    }
    expect(seen.length).toBe(before);
  });

  it('toMessages: empty texts dropped, a leading assistant turn dropped, consecutive turns of one role merged', () => {
    expect(
      toMessages(
        [
          { role: 'assistant', user: 'U0BOT', text: 'an old greeting', ts: '1' },
          { role: 'user', user: 'U0A', text: 'one', ts: '2' },
          { role: 'user', user: 'U0B', text: '', ts: '3' },
          { role: 'user', user: 'U0B', text: 'two', ts: '4' },
        ],
        'now',
        'U0A',
      ),
    ).toEqual([{ role: 'user', content: '<@U0A>: one\n\n<@U0B>: two\n\n<@U0A>: now' }]);
  });
});
