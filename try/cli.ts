/**
 * `npm run try -- [--turn FILE] [--dm] [--thread] [--fail FAULT] [--answer CHOICE] TEXT...`
 *
 * Your bot answering once, offline: a hub and a cloud copy (started as
 * `npm start` starts them, reading no .env) behind the edge, a claim store
 * and a simulated Slack, on loopback. The words are sent as a person writes
 * them; the answer prints as the person would read it while it streams, then
 * one line says which copy answered, by which route, how long to the whole
 * answer, its retries and the store commands the message cost, and one line
 * what the bot showed beside it (its status, tasks and prompts). `--dm` opens
 * the DM first, as a person does (the bot's prompts show then). A dead letter
 * ends it at once, saying why. Exit 0 when answered once, 1 when not (or
 * twice), 2 for a usage error or a bot that cannot load.
 */
import { TryAsker } from './ask.js';
import { UsageError } from '../lib/errors/index.js';
import { helpAsked, parseCli } from '../app/cli/args.js';
import { isMain } from '../app/cli/is-main.js';
import { resolveTurn, startConversation, type Conversation, type ReplyView, type Said } from './conversation.js';
import { STAGED, TRY_FAULTS, type TryFault } from './faults.js';
import { shownLine } from './shown.js';
import { retriesPhrase, TurnLog } from './turn-log.js';

export const TRY_USAGE = `usage: npm run try -- [--turn FILE] [--dm] [--thread] [--fail ${TRY_FAULTS.join('|')}] [--answer CHOICE] TEXT...`;

export interface TryArgs {
  turn?: string;
  dm: boolean;
  thread: boolean;
  fail?: TryFault;
  /** The choice clicked when the bot asks (ctx.ask, try/ask.ts). @default the first */
  answer?: string;
  text: string;
}

export function parseTryArgs(argv: readonly string[]): TryArgs {
  const { values, positionals } = parseCli(
    argv,
    { turn: { type: 'string' }, dm: { type: 'boolean' }, thread: { type: 'boolean' }, fail: { type: 'string' }, answer: { type: 'string' } },
    TRY_USAGE,
    true,
  );
  const text = positionals.join(' ').trim();
  if (text === '') throw new UsageError(`say something: the words to send come last; ${TRY_USAGE}`);
  const fail = values.fail;
  if (fail !== undefined && !(TRY_FAULTS as readonly string[]).includes(fail)) {
    throw new UsageError(`--fail ${JSON.stringify(fail)} is not a fault; one of ${TRY_FAULTS.join(', ')}`);
  }
  return {
    ...(values.turn !== undefined ? { turn: values.turn } : {}),
    dm: values.dm === true,
    thread: values.thread === true,
    ...(fail !== undefined ? { fail: fail as TryFault } : {}),
    ...(values.answer !== undefined ? { answer: values.answer } : {}),
    text,
  };
}

/** How long a message may take to be answered before try gives up on it (a takeover needs a lease, 3 s here). */
const ANSWER_WITHIN_MS = 60_000;

/** Unref'd: a wait cut short by what it races never holds the process open. */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms).unref());

const copyName = (instance: string | undefined) =>
  instance === undefined ? 'no copy' : instance.includes('hub') ? `the hub (${instance})` : `the cloud copy (${instance})`;

/** What the person reads as the answer streams: new text as it comes; a message rewritten is shown again whole. */
export function streamPrinter(write: (text: string) => void): (view: ReplyView) => void {
  let shown = '';
  let notes = 0;
  return (view) => {
    for (const note of view.parts.filter((p) => p.note).slice(notes)) {
      write(`${shown === '' ? '' : '\n'}(${note.text.trim()})\n`);
      notes += 1;
    }
    if (view.text === shown) return;
    if (shown === '') write('autohub: ');
    if (view.text.startsWith(shown)) write(view.text.slice(shown.length));
    else write(`\n(the message now reads) ${view.text}`);
    shown = view.text;
  };
}

/** The one line after an answer: who answered, by which route, how long, the store commands. */
export function summaryLine(o: {
  view: ReplyView;
  routes: string[];
  ackedBy: string | null;
  ms: number;
  commands: number | undefined;
  fault?: string;
  /** The turn's retries, as `retriesPhrase` says them; '' for none. */
  retried?: string;
  /** Why the turn is a dead letter, when it is one. */
  dead?: string | undefined;
}): string {
  const { view } = o;
  const answered =
    o.dead !== undefined
      ? `NOT answered: a dead letter (${o.dead})`
      : view.answers === 1
        ? 'answered once'
        : view.answers === 0
          ? 'NOT answered'
          : `answered ${view.answers} times`;
  const by = view.answers > 0 ? ` by ${copyName(view.by)}` : '';
  const route = o.routes.length === 0 ? 'never delivered' : o.routes.map((r) => `edge -> ${r}`).join(', then ');
  const answererRole = view.by?.includes('hub') ? 'hub' : 'cloud';
  const takenOver = view.answers > 0 && o.ackedBy !== null && o.ackedBy !== answererRole ? `, taken over from the ${o.ackedBy} that acked it` : '';
  const store = o.commands === undefined ? 'in-process store' : `${o.commands} store command${o.commands === 1 ? '' : 's'}`;
  const retried = o.retried ? `; ${o.retried}` : '';
  return `${answered}${by}${takenOver}; route: ${route}; ${(o.ms / 1000).toFixed(1)} s${retried}; ${store}${o.fault ? `; fault: ${o.fault}` : ''}`;
}

/** Sends one message and prints its answer as it streams; true when it was answered once. */
async function exchange(c: Conversation, said: Said, o: { out: (s: string) => void; turns: TurnLog; fault?: TryFault; asker?: TryAsker }): Promise<boolean> {
  o.out(`you${said.dm ? ' (DM)' : ' (#general)'}${said.thread !== said.ts ? ' in the thread' : ''}: ${said.dm ? '' : '@autohub '}${said.text}\n`);
  const staged = o.fault ? STAGED[o.fault].during(c, said) : undefined;
  let fault: string | undefined;
  let faultError: string | undefined;
  staged?.then(
    (what) => (fault = what),
    (error: unknown) => (faultError = (error as Error).message),
  );
  const print = streamPrinter(o.out);
  const deadline = Date.now() + ANSWER_WITHIN_MS;
  let view = c.reply(said);
  // Until the answer is whole, or the turn is a dead letter (no answer will come: say why now, not in a minute).
  for (; !view.done && o.turns.dead(said.eventId) === undefined && Date.now() < deadline; view = c.reply(said)) {
    print(view);
    o.asker?.look(said, view);
    await sleep(25);
  }
  print(view);
  const dead = o.turns.dead(said.eventId);
  // The time to the whole answer: its last message's last write (a stream's stop), not its first.
  const answer = view.parts.filter((p) => !p.note);
  const ms = (answer.length > 0 ? Math.max(...answer.map((p) => p.doneAt)) : Date.now()) - said.sentAt;
  if (dead === undefined) {
    // Answered: now let Slack finish its deliveries and the store settle, so a second answer would show.
    await Promise.race([said.delivered, sleep(20_000)]);
    if (staged) await staged.catch(() => undefined);
    for (let i = 0; i < 100 && ((await c.h.pending()) ?? 0) > 0; i++) await sleep(100);
  }
  view = c.reply(said);
  print(view);
  o.out('\n');
  const attempts = c.attempts(said);
  const line = summaryLine({
    view,
    routes: attempts.map((a) => `${a.route ?? 'nowhere'} (${a.status})`),
    ackedBy: attempts.find((a) => typeof a.status === 'number' && a.status < 300)?.role ?? null,
    ms,
    commands: c.storeCommands(said),
    retried: retriesPhrase(o.turns.retries(said.eventId)),
    dead,
    ...(fault ? { fault } : {}),
  });
  o.out(`${line}\n${shownLine(c.shown(said, view))}\n`);
  if (faultError) process.stderr.write(`try: the fault was not staged: ${faultError}\n`);
  if (dead !== undefined) process.stderr.write(`try: the turn is a dead letter: ${dead}\n`);
  else if (!view.done) process.stderr.write(`try: no complete answer within ${ANSWER_WITHIN_MS / 1000} s\n`);
  return dead === undefined && view.done && view.answers === 1;
}

export async function runTry(args: TryArgs, out: (s: string) => void = (s) => void process.stdout.write(s)): Promise<number> {
  let turn: string | undefined;
  try {
    turn = await resolveTurn(args.turn);
  } catch (error) {
    process.stderr.write(`try: ${(error as Error).message}\n`);
    return 2;
  }
  process.stderr.write(`try: starting ${turn ?? 'the demo turn'} in a hub and a cloud copy behind the edge, against a simulated Slack...\n`);
  // The copies' log lines: each turn's retries and dead letter, read from them (they are not printed).
  const turns = new TurnLog();
  let c: Conversation;
  try {
    c = await startConversation({ turn, onLog: (instance, line) => turns.take(instance, line) });
  } catch (error) {
    // A copy that did not start (a machine too busy to start it in time): one line, not a stack trace; what started is stopped.
    process.stderr.write(`try: the system did not start: ${(error as Error).message}\n`);
    return 1;
  }
  // Stopped early (Ctrl-C, a timeout's SIGTERM): the copies and the redis-server it started go with it.
  const stop = (signal: NodeJS.Signals) => {
    process.stderr.write(`try: ${signal}: stopping the system\n`);
    void c.close().finally(() => process.exit(1));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    process.stderr.write(
      `try: ready (claim store: ${c.h.storeKind === 'redis-server' ? 'a private redis-server behind an Upstash REST bridge' : 'in-process'})\n`,
    );
    if (args.fail) STAGED[args.fail].before(c);
    // A person opens the DM before writing in it: the bot's prompts (and greeting) show then, as in Slack.
    if (args.dm) await c.openDm();
    const asker = new TryAsker(c, { answer: args.answer, out, warn: (s) => void process.stderr.write(s) });
    const first = c.say({ text: args.text, dm: args.dm });
    let ok = await exchange(c, first, { out, turns, asker, ...(args.fail ? { fault: args.fail } : {}) });
    if (args.thread && ok) {
      const followUp = c.say({ text: args.text, dm: args.dm, threadTs: first.thread });
      ok = await exchange(c, followUp, { out, turns, asker });
    }
    return ok ? 0 : 1;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    await c.close();
  }
}

if (isMain(import.meta.url)) {
  const argv = process.argv.slice(2);
  if (helpAsked(argv, TRY_USAGE)) process.exitCode = 0;
  else {
    let args: TryArgs | undefined;
    try {
      args = parseTryArgs(argv);
    } catch (error) {
      process.stderr.write(`try: ${(error as Error).message}\n`);
      process.exitCode = 2;
    }
    if (args) process.exitCode = await runTry(args);
  }
}
