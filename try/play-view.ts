/**
 * What one of the bot's messages shows in the simulated Slack now, for the
 * playground's page: its text, its tasks (a stream's task and plan chunks, as
 * task_card and plan blocks), and its blocks (the bot's own, the feedback
 * buttons chat.stopStream appended, a question's buttons), in the order the
 * calls sent them. Read from the fake Web API; the page draws the blocks.
 *
 * Slack's rules followed: a message with blocks shows its blocks and not its
 * `text` (https://docs.slack.dev/messaging/formatting-message-text: "the text
 * field will be used as a fallback"); a chat.update's blocks replace the
 * message's, and its text without blocks removes them
 * (https://docs.slack.dev/reference/methods/chat.update); a stream's tasks
 * show as cards among its text (`timeline`) or as one plan (`plan`)
 * (https://docs.slack.dev/reference/methods/chat.startStream, task_display_mode).
 */
import type { FakeStream, FakeWebApi, ShownTask } from '../drill/sim/fake-web-api.js';

export type Block = Record<string, unknown>;

/** One piece of a message, in order: a run of text, or blocks. */
export type Shown = { text: string } | { blocks: Block[] };

export interface MessageView {
  shows: Shown[];
  /** The message's metadata as Slack holds it now (a click carries it back). */
  metadata: string | undefined;
  /** Its blocks now, all of them (what a click's `message.blocks` carries). */
  blocks: Block[];
}

const parse = (raw: string | undefined): Block[] => {
  try {
    const v = JSON.parse(raw ?? '') as unknown;
    return Array.isArray(v) ? (v as Block[]) : [];
  } catch {
    return [];
  }
};

const taskCard = (id: string, t: ShownTask): Block => ({ type: 'task_card', task_id: id, ...t });

/** A stream's pieces as Slack shows them: text runs joined, each task where it first came, the plan once. */
function streamShows(st: FakeStream): Shown[] {
  const out: Shown[] = [];
  let planShown = false;
  for (const item of st.shows) {
    const last = out.at(-1);
    if ('text' in item) {
      if (last && 'text' in last) last.text += item.text;
      else out.push({ text: item.text });
    } else if ('task' in item) {
      const task = st.tasks.get(item.task);
      if (!task) continue;
      if (st.taskDisplayMode === 'plan') {
        if (planShown) continue;
        planShown = true;
        out.push({ blocks: [{ type: 'plan', title: st.plan ?? '', tasks: [...st.tasks].map(([id, t]) => taskCard(id, t)) }] });
      } else out.push({ blocks: [taskCard(item.task, task)] });
    } else out.push({ blocks: item.blocks });
  }
  return out;
}

type Api = Pick<FakeWebApi, 'streams' | 'posts' | 'calls'>;

/** What `ts` shows now; undefined when it is no message of this app's. */
export function messageView(api: Api, ts: string): MessageView | undefined {
  const st = api.streams.get(ts);
  if (st && st.state !== 'updated') {
    const shows = streamShows(st);
    return { shows, metadata: st.metadata, blocks: shows.flatMap((s) => ('blocks' in s ? s.blocks : [])) };
  }
  if (st) {
    // Rewritten by chat.update (a copy that took the turn over completed it): the update's text or blocks.
    const update = api.calls.findLast((c) => c.method === 'chat.update' && c.params.ts === ts && (c.answer as { ok?: boolean } | undefined)?.ok === true);
    const blocks = parse(update?.params.blocks);
    return { shows: blocks.length ? [{ blocks }] : [{ text: st.text }], metadata: st.metadata, blocks };
  }
  const post = api.posts().find((c) => (c.answer as { ts?: string } | undefined)?.ts === ts);
  if (!post) return undefined;
  const blocks = parse(post.params.blocks);
  const text = post.params.text ?? post.params.markdown_text ?? '';
  return { shows: blocks.length ? [{ blocks }] : [{ text }], metadata: post.params.metadata, blocks };
}

/** The thinking status under a thread now (assistant.threads.setStatus), as the page shows it. */
export function threadStatus(api: Pick<FakeWebApi, 'statusOf'>, channel: string, thread: string): { status: string; loadingMessages: string[] } | undefined {
  const s = api.statusOf(channel, thread);
  return s && s.status !== '' ? { status: s.status, loadingMessages: s.loadingMessages } : undefined;
}
