/**
 * What the bot showed the person beside its answer, for `npm run try`: the
 * thinking status under the thread (with its loading messages), the tasks its
 * answer's messages show, in their last state, and the suggested prompts set
 * where the person writes. Read from the simulated Slack's record of the calls
 * (assistant.threads.setStatus, setSuggestedPrompts) and its messages' tasks;
 * worded by `shownLine`. Pure.
 */
import type { RecordedCall, ShownTask } from '../drill/sim/fake-web-api.js';

export interface Shown {
  /** Each status the thread showed, in order, with its loading messages (a status set again alike is one). */
  statuses: Array<{ status: string; loading: string[] }>;
  /** The answer's tasks, each in its last state. */
  tasks: ShownTask[];
  /** The suggested prompts last set where the person writes, and their heading. */
  prompts: { title?: string; prompts: Array<{ title: string; message: string }> } | undefined;
}

/** Where the person wrote: the conversation, the thread, and when (calls before it are another message's). */
export interface Where {
  channel: string;
  thread: string;
  /** A DM: its prompts are set on the DM itself, with no thread (the agent view). */
  dm: boolean;
  since: number;
}

function list<T>(raw: string | undefined): T[] {
  try {
    const value = JSON.parse(raw ?? '') as unknown;
    return Array.isArray(value) ? (value as T[]) : [];
  } catch {
    return [];
  }
}

/** What was shown for the message at `where`, from the calls the simulated Slack took and the tasks of the answer's messages (`tasksOf` each). */
export function shownFor(
  calls: readonly RecordedCall[],
  where: Where,
  answerTs: readonly string[],
  tasksOf: (ts: string) => Map<string, ShownTask> | undefined,
): Shown {
  const ok = (c: RecordedCall) => c.status === 200 && (c.answer as { ok?: boolean } | undefined)?.ok !== false;
  const statuses: Shown['statuses'] = [];
  for (const c of calls) {
    if (c.method !== 'assistant.threads.setStatus' || !ok(c) || c.at < where.since) continue;
    if (c.params.channel_id !== where.channel || c.params.thread_ts !== where.thread || !c.params.status) continue;
    const shown = { status: c.params.status, loading: list<string>(c.params.loading_messages).filter((m) => typeof m === 'string') };
    if (!statuses.some((s) => s.status === shown.status && s.loading.join('\n') === shown.loading.join('\n'))) statuses.push(shown);
  }
  const tasks = new Map<string, ShownTask>();
  for (const ts of answerTs) for (const [id, task] of tasksOf(ts) ?? []) tasks.set(`${ts}:${id}`, task);
  // In a DM the prompts are the DM's (no thread_ts); in a thread, that thread's. The last call's are what shows.
  const prompted = calls.filter(
    (c) =>
      c.method === 'assistant.threads.setSuggestedPrompts' &&
      ok(c) &&
      c.params.channel_id === where.channel &&
      (c.params.thread_ts === undefined ? where.dm : c.params.thread_ts === where.thread),
  );
  const last = prompted.at(-1);
  return {
    statuses,
    tasks: [...tasks.values()],
    prompts: last
      ? { ...(last.params.title ? { title: last.params.title } : {}), prompts: list<{ title: string; message: string }>(last.params.prompts) }
      : undefined,
  };
}

const quoted = (text: string) => JSON.stringify(text);

/**
 * The line under try's summary: `shown: status "is thinking..." (loading: "Reading", "Writing"); tasks: Search
 * (complete), Draft (error); prompts "Try asking": "Say hello", "Echo a question"`, each part `no ...` when none.
 */
export function shownLine(shown: Shown): string {
  const status =
    shown.statuses.length === 0
      ? 'no status'
      : `status ${shown.statuses.map((s) => `${quoted(s.status)}${s.loading.length > 0 ? ` (loading: ${s.loading.map(quoted).join(', ')})` : ''}`).join(', then ')}`;
  const tasks = shown.tasks.length === 0 ? 'no tasks' : `tasks: ${shown.tasks.map((t) => `${t.title} (${t.status})`).join(', ')}`;
  const prompts =
    shown.prompts === undefined || shown.prompts.prompts.length === 0
      ? 'no prompts'
      : `prompts${shown.prompts.title ? ` ${quoted(shown.prompts.title)}` : ''}: ${shown.prompts.prompts.map((p) => quoted(p.title)).join(', ')}`;
  return `shown: ${status}; ${tasks}; ${prompts}`;
}
