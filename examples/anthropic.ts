/**
 * A Claude bot: it answers in the thread with the thread so far as context,
 * streams its answer into Slack as it is written, and can file a ticket with
 * a tool, once, however often the turn runs.
 *
 *   npm install --save-prod @anthropic-ai/sdk   (into dependencies: the deploy's prune keeps it)
 *   echo 'ANTHROPIC_API_KEY=sk-ant-...' >> .env
 *   echo 'AUTOHUB_TURN=examples/anthropic.ts' >> .env
 *   npm start
 *
 * Settings (read when a turn starts): ANTHROPIC_API_KEY (the SDK reads it),
 * ANTHROPIC_BASE_URL (another endpoint: a proxy, a test's fake), ANTHROPIC_MODEL,
 * TICKET_CHANNEL (where `file_ticket` posts; unset: the ticket is only
 * acknowledged).
 *
 * What autohub does around it: the turn runs once per mention across both
 * copies; `ctx.signal` aborts the model call when this copy loses the turn;
 * an overload (529), a rate limit, a 5xx or a reset connection thrown from
 * here is retried later (honouring `retry-after`), a bug is dead-lettered,
 * and so is a `NonRetryableError` (autohub/bot: the bot's own "give up");
 * `ctx.step` keeps the ticket's result with the turn, so a retry or a
 * takeover gets the same ticket back instead of filing a second one.
 */
import Anthropic from '@anthropic-ai/sdk';
import {
  NonRetryableError,
  type AssistantThread,
  type Feedback,
  type FeedbackHelpers,
  type HistoryMessage,
  type ReplyWithBlocks,
  type TurnContext,
  type TurnRequest,
} from 'autohub/bot';

const SYSTEM =
  'You are a helpful assistant in a Slack workspace. Answer briefly, in Slack markdown. ' +
  'When someone reports a problem that needs follow-up, file a ticket with the file_ticket tool, then say its id.';

const TOOLS: Anthropic.Tool[] = [
  {
    name: 'file_ticket',
    description: 'File a support ticket for a problem someone reported. Returns the ticket id.',
    input_schema: {
      type: 'object',
      properties: { title: { type: 'string', description: 'A one-line summary of the problem' } },
      required: ['title'],
    },
  },
];

/** Model calls in one turn at most: a tool round, then the answer, with room to spare. */
const MAX_ROUNDS = 4;

/** The thread so far as Messages API turns: consecutive turns of one role merged, starting with the user's. */
export function toMessages(history: HistoryMessage[], text: string, user: string | undefined): Anthropic.MessageParam[] {
  const said = (m: { role: string; user: string | undefined; text: string }) => (m.role === 'user' && m.user ? `<@${m.user}>: ${m.text}` : m.text);
  const out: Anthropic.MessageParam[] = [];
  for (const m of [...history, { role: 'user' as const, user, text, ts: '' }]) {
    if (m.text.trim() === '' || (out.length === 0 && m.role === 'assistant')) continue;
    const last = out.at(-1);
    if (last && last.role === m.role) last.content = `${String(last.content)}\n\n${said(m)}`;
    else out.push({ role: m.role, content: said(m) });
  }
  return out;
}

/** The tool's side effect: one Slack post in TICKET_CHANNEL (a message sent elsewhere, which must happen once). */
async function fileTicket(input: unknown, request: TurnRequest, ctx: TurnContext): Promise<{ ticket: string; title: string }> {
  const title = String((input as { title?: unknown }).title ?? 'untitled').slice(0, 200);
  const channel = process.env.TICKET_CHANNEL;
  if (!channel) return { ticket: `TCK-${request.eventId}`, title };
  const posted = await ctx.client.chat.postMessage({ channel, text: `New ticket from <@${request.user ?? 'someone'}>: ${title}` });
  return { ticket: `TCK-${posted.ts ?? request.eventId}`, title };
}

export async function takeTurn(request: TurnRequest, ctx: TurnContext): Promise<ReplyWithBlocks & { text: AsyncIterable<string> }> {
  // No retry would find a key that is not set: a dead letter at once, saying which (replay it once the key is in .env).
  if (!process.env.ANTHROPIC_API_KEY && !process.env.ANTHROPIC_AUTH_TOKEN) throw new NonRetryableError('ANTHROPIC_API_KEY is not set');
  // Built per turn, so .env (already in process.env: autohub puts it there) and a test's settings apply.
  const client = new Anthropic({ baseURL: process.env.ANTHROPIC_BASE_URL || undefined });
  const model = process.env.ANTHROPIC_MODEL || 'claude-sonnet-4-6';
  const messages = toMessages(await ctx.history(), request.text, request.user);
  // In the split view, the channel the person is looking at (kept across copies as they move around Slack).
  if (request.context?.channel)
    messages.unshift({ role: 'user', content: `(I am looking at <#${request.context.channel}>.)` }, { role: 'assistant', content: 'Noted.' });

  const answer = (async function* () {
    let wrote = false;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      // The signal stops the model call when this copy no longer owns the turn.
      const stream = client.messages.stream({ model, max_tokens: 1024, system: SYSTEM, tools: TOOLS, messages }, { signal: ctx.signal });
      let gap = wrote; // a paragraph between one round's text and the next's
      for await (const event of stream) {
        if (event.type !== 'content_block_delta' || event.delta.type !== 'text_delta' || event.delta.text === '') continue;
        if (gap) yield '\n\n';
        gap = false;
        wrote = true;
        yield event.delta.text;
      }
      const message = await stream.finalMessage();
      if (message.stop_reason !== 'tool_use') return;
      const results: Anthropic.ToolResultBlockParam[] = [];
      for (const [i, block] of message.content.entries()) {
        if (block.type !== 'tool_use') continue;
        // Named by its place in the turn, not by the model's tool-use id (a new one on every run):
        // the first ticket of this turn is filed once, and a rerun gets its id back.
        const result =
          block.name === 'file_ticket'
            ? await ctx.step(`file_ticket:${round}:${i}`, () => fileTicket(block.input, request, ctx))
            : { error: `no tool named ${block.name}` };
        results.push({ type: 'tool_result', tool_use_id: block.id, content: JSON.stringify(result) });
      }
      messages.push({ role: 'assistant', content: message.content }, { role: 'user', content: results });
    }
  })();
  return { text: answer, blocks: FEEDBACK_BLOCKS };
}

// ---------------------------------------------------------------------------
// Slack's AI-app features (docs/ai-apps.md): the status while Claude thinks,
// prompts when someone opens the split view, and feedback buttons under each
// answer, heard once whichever copy Slack's click reaches.
// ---------------------------------------------------------------------------

/** Under the thread while the turn runs. */
export const status = 'is thinking...';

/** Slack rotates these while the turn runs (at most 10). */
export function loadingMessages(request: TurnRequest): string[] {
  return request.files.length > 0 ? ['Reading your files...', 'Thinking it over...'] : ['Reading the thread...', 'Thinking it over...', 'Writing...'];
}

/** Offered when someone opens an assistant thread; one names the channel they are looking at. */
export function prompts(thread: AssistantThread): { title: string; message: string }[] {
  const here = thread.context.channel ? `<#${thread.context.channel}>` : 'this channel';
  return [
    { title: 'Summarise the channel', message: `Summarise what happened in ${here} today.` },
    { title: 'Report a problem', message: 'Something is broken: please file a ticket.' },
  ];
}

/** Thumbs up and down under each answer. */
export const FEEDBACK_BLOCKS = [
  {
    type: 'context_actions',
    elements: [
      {
        type: 'feedback_buttons',
        action_id: 'claude_feedback',
        positive_button: { text: { type: 'plain_text', text: '👍' }, value: 'good', accessibility_label: 'This answer helped' },
        negative_button: { text: { type: 'plain_text', text: '👎' }, value: 'bad', accessibility_label: 'This answer did not help' },
      },
    ],
  },
];

/** A click on those buttons: logged, and a bad answer is reported to TICKET_CHANNEL when it is set. */
export async function onFeedback(feedback: Feedback, { client, log }: FeedbackHelpers): Promise<void> {
  log.info('claude.feedback', { positive: feedback.positive, eventId: feedback.eventId });
  const channel = process.env.TICKET_CHANNEL;
  if (feedback.positive || !channel || !feedback.channel) return;
  await client.chat.postMessage({
    channel,
    text: `<@${feedback.user ?? 'someone'}> found an answer unhelpful (message ${feedback.messageTs} in <#${feedback.channel}>).`,
  });
}
