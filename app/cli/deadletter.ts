/**
 * `npm run deadletter -- list [--json] | replay ID | drop ID`, and in bulk
 * `replay|drop --all | --since DURATION | --cause TEXT`.
 *
 * Turns that could not be answered, from the shared store. `replay` runs one
 * again here, through the same claim-and-lease path and listeners as a copy
 * (it reads the thread first, so it never answers twice); `drop` forgets it.
 * In bulk, one line a letter (oldest first) and a summary.
 * Exit 0 done, 1 when a replay failed again or the store did not answer,
 * 2 for a usage error or a missing setting.
 */
import { exportEnvFile, loadEnv, parseAppConfig, parseStoreConfig, secretsOf, type AppConfig, type Env } from '../../lib/config/index.js';
import { ConfigError, UsageError } from '../../lib/errors/index.js';
import { createLogger, silentLogger, type Logger } from '../../lib/log/index.js';
import { createSealer, createStore, isSealed, parseLeaseRecord, type DeadLetter, type SharedStore } from '../../lib/store/index.js';
import type { TurnModule } from '../../lib/bot/index.js';
import { createAutohub } from '../create-app.js';
import { loadBot } from '../turn-module.js';
import { helpAsked, parseCli } from './args.js';
import { describeFilter, parseDuration, selectDead, type DeadLetterFilter } from './dead-letter-filter.js';
import { isMain } from './is-main.js';

const USAGE = 'usage: npm run deadletter -- list [--json] | replay ID | drop ID | replay|drop --all | --since DURATION | --cause TEXT';
/** `--help`: the usage line, and what each word does. */
const HELP = [
  USAGE,
  '  list               the dead letters, newest first (--json: {"entries":[...]})',
  '  replay ID          run one again here, through the lease path (one reply, never two)',
  '  drop ID            forget one (its claim is kept a day)',
  '  --all              every dead letter',
  '  --since DURATION   those dead in the last DURATION: 90s, 30m, 2h, 7d',
  '  --cause TEXT       those whose reason holds TEXT, any case (e.g. not_in_channel); with --since: both',
  '  In bulk: one line a letter, oldest first, then a summary; exit 1 when any was not replayed or dropped.',
].join('\n');

export type DeadletterCommand =
  | { verb: 'list'; json: boolean }
  | { verb: 'replay' | 'drop'; id: string }
  | { verb: 'replay' | 'drop'; filter: DeadLetterFilter; described: string };

export function parseDeadletterArgs(argv: readonly string[]): DeadletterCommand {
  const parsed = parseCli(argv, { json: { type: 'boolean' }, all: { type: 'boolean' }, since: { type: 'string' }, cause: { type: 'string' } }, USAGE, true);
  const [verb, id, ...rest] = parsed.positionals;
  const { all, since, cause } = parsed.values;
  const bulk = all === true || since !== undefined || cause !== undefined;
  if (rest.length > 0) throw new UsageError(`unexpected ${JSON.stringify(rest[0])}; ${USAGE}`);
  if (verb === 'list' && id === undefined && !bulk) return { verb, json: parsed.values.json === true };
  if ((verb === 'replay' || verb === 'drop') && !parsed.values.json) {
    if (id && !bulk) return { verb, id };
    if (!id && bulk) {
      if (all && (since !== undefined || cause !== undefined)) throw new UsageError(`--all takes every dead letter: not with --since or --cause; ${USAGE}`);
      if (cause !== undefined && cause.trim() === '') throw new UsageError(`--cause needs some text of the reason; ${USAGE}`);
      const filter: DeadLetterFilter = { all: all === true, sinceMs: since === undefined ? undefined : parseDuration(since, USAGE), cause };
      return { verb, filter, described: describeFilter(filter, { since }) };
    }
    if (id && bulk) throw new UsageError(`${verb} takes an ID or --all, --since, --cause, not both; ${USAGE}`);
  }
  throw new UsageError(verb === undefined ? USAGE : `cannot ${JSON.stringify([verb, id].filter(Boolean).join(' '))}; ${USAGE}`);
}

export interface Out {
  log(line: string): void;
  error(line: string): void;
}

function table(entries: readonly DeadLetter[]): string[] {
  if (entries.length === 0) return ['no dead letters'];
  const rows = entries.map((d) => [d.eventId, d.channel ?? '-', String(d.attempts), d.at, d.reason]);
  const header = ['id', 'channel', 'runs', 'at', 'reason'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  return [header, ...rows].map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  '));
}

async function find(store: SharedStore, id: string): Promise<DeadLetter | undefined> {
  return (await store.listDead(1000))?.find((d) => d.eventId === id || d.key === id);
}

/** Why this copy's settings cannot open a dead letter's stored delivery (the receiver's `lease.takeover_unreadable`); undefined when they can. */
export function unreadableReason(stored: string | null | undefined, sealKeys: AppConfig['sealKeys']): string | undefined {
  const record = parseLeaseRecord(stored);
  if (!record) return 'its record is gone from the store';
  if (typeof record.body !== 'string' || record.body === '') return 'the store kept no delivery for it';
  const opened = !isSealed(record.body) ? record.body : sealKeys ? createSealer(sealKeys.current, sealKeys.previous).open(record.body) : undefined;
  if (opened === undefined) {
    return 'lease.takeover_unreadable: sealed under a store key these settings do not have (check SLACK_SIGNING_SECRET and AUTOHUB_STORE_KEY: the same as the copies)';
  }
  try {
    JSON.parse(opened);
    return undefined;
  } catch {
    return 'its stored delivery is not JSON';
  }
}

/** How long a replay waits for its run, at most: 50 ms polls for the default retry window, 10 minutes. */
const REPLAY_POLLS = 12_000;

/** Run one dead letter again in this process, as a copy would (with the owner's bot), and wait for its end. */
async function replay(config: AppConfig, store: SharedStore, dead: DeadLetter, log: Logger, turn: TurnModule): Promise<{ answered: boolean; line: string }> {
  // Opened before it is taken: a record these settings cannot read stays a dead letter, listed, untouched.
  const unreadable = unreadableReason(await store.read(dead.key), config.sealKeys);
  if (unreadable) return { answered: false, line: `not replayed, still a dead letter: ${unreadable}` };
  const autohub = createAutohub({ config: { ...config, instance: `${config.role}-deadletter`, port: 0, peer: null }, log, store, turn });
  const sentAt = Date.now();
  const takeover = await store.replayDead(dead.key, { instance: `${config.role}-deadletter`, role: config.role }, config.lease.leaseMs);
  if (!takeover) return { answered: false, line: 'not dead any more (replayed or dropped meanwhile)' };
  autohub.keeper.start();
  autohub.runner.resume(takeover, sentAt);
  // The run may be queued before it starts: wait for its record to leave the live states (answered,
  // dead or a retry), then stop; a stop before that would hand it back unrun.
  for (let i = 0; i < REPLAY_POLLS; i++) {
    const state = parseLeaseRecord(await store.read(dead.key))?.state;
    if (state !== 'claimed' && state !== 'posting' && autohub.runner.inFlight + autohub.runner.queued === 0) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  await autohub.receiver.stop();
  autohub.keeper.stop();
  const record = parseLeaseRecord(await store.read(dead.key));
  if (record?.state === 'done') return { answered: true, line: record.reply_ts ? `answered (reply ${record.reply_ts})` : 'answered' };
  if (record?.state === 'dead') return { answered: false, line: `failed again: ${record.reason ?? 'unknown'}` };
  return { answered: false, line: `handed back for another run (${record?.reason ?? 'no reason recorded'})` };
}

export async function runDeadletter(argv: readonly string[], env: Env = loadEnv(), out: Out = console): Promise<number> {
  let command: DeadletterCommand;
  let storeConfig: Pick<AppConfig, 'upstash' | 'claim' | 'sealKeys'>;
  let config: AppConfig | undefined;
  try {
    command = parseDeadletterArgs(argv);
    // A replay posts as the bot: it needs a copy's whole configuration. Listing and dropping need only the store.
    storeConfig = parseStoreConfig(env);
    if (command.verb === 'replay') config = parseAppConfig(env);
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError) {
      out.error(`deadletter: ${error.message}`);
      return 2;
    }
    throw error;
  }
  if (!storeConfig.upstash) {
    out.error('deadletter: dead letters live in the shared store; set UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN (the same as the copies)');
    return 2;
  }
  const store = createStore(storeConfig, silentLogger);
  if (command.verb === 'list') {
    const entries = await store.listDead(1000);
    if (!entries) {
      out.error('deadletter: the store did not answer');
      return 1;
    }
    if (command.json) {
      out.log(
        JSON.stringify({
          entries: entries.map((d) => ({ id: d.eventId, event_id: d.eventId, channel: d.channel, reason: d.reason, attempts: d.attempts, at: d.at })),
        }),
      );
    } else for (const line of table(entries)) out.log(line);
    return 0;
  }
  if ('filter' in command) return bulk(command, store, config, out);
  const dead = await find(store, command.id);
  if (!dead) {
    out.error(`deadletter: no dead letter ${JSON.stringify(command.id)} (see \`npm run deadletter -- list\`)`);
    return 1;
  }
  if (command.verb === 'drop') {
    const dropped = await store.dropDead(dead.key);
    out.log(dropped ? `dropped ${dead.eventId}` : `${dead.eventId} was not dead any more`);
    return dropped ? 0 : 1;
  }
  if (!config) return 2;
  const replayer = await replayerFor(config, store, out);
  if (typeof replayer === 'number') return replayer;
  const result = await replayer(dead);
  out.log(`replayed ${dead.eventId}: ${result.line}`);
  return result.answered ? 0 : 1;
}

/** Replays with the owner's bot, loaded once; or the exit code when it cannot be loaded (named on stderr). */
async function replayerFor(config: AppConfig, store: SharedStore, out: Out): Promise<((dead: DeadLetter) => ReturnType<typeof replay>) | number> {
  let turn: TurnModule;
  try {
    // The bot `npm start` runs (AUTOHUB_TURN, else the demo turn), loaded the same way.
    turn = await loadBot(config);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    out.error(`deadletter: ${error.message}`);
    return 2;
  }
  const log = createLogger({ level: config.logLevel, base: { instance: 'deadletter' }, secrets: secretsOf(config) });
  return (dead) => replay(config, store, dead, log, turn);
}

/** `replay|drop --all | --since | --cause`: each letter the filter takes, oldest first, one line each, then a summary. */
async function bulk(
  command: Extract<DeadletterCommand, { filter: DeadLetterFilter }>,
  store: SharedStore,
  config: AppConfig | undefined,
  out: Out,
): Promise<number> {
  const entries = await store.listDead(1000);
  if (!entries) {
    out.error('deadletter: the store did not answer');
    return 1;
  }
  const chosen = selectDead(entries, command.filter, Date.now());
  if (chosen.length === 0) {
    out.log(`no dead letters match ${command.described} (${entries.length} listed)`);
    return 0;
  }
  let done = 0;
  if (command.verb === 'drop') {
    for (const dead of chosen) {
      const dropped = await store.dropDead(dead.key);
      if (dropped) done++;
      out.log(dropped ? `dropped ${dead.eventId} (${dead.reason})` : `${dead.eventId} was not dead any more`);
    }
    out.log(`dropped ${done} of ${chosen.length} matching ${command.described}`);
    return done === chosen.length ? 0 : 1;
  }
  if (!config) return 2;
  const replayer = await replayerFor(config, store, out);
  if (typeof replayer === 'number') return replayer;
  for (const dead of chosen) {
    const result = await replayer(dead);
    if (result.answered) done++;
    out.log(`replayed ${dead.eventId}: ${result.line}`);
  }
  out.log(`replayed ${chosen.length} matching ${command.described}: ${done} answered, ${chosen.length - done} not`);
  return done === chosen.length ? 0 : 1;
}

if (isMain(import.meta.url)) {
  const argv = process.argv.slice(2);
  // `.env` reaches process.env as at `npm start`, so the bot's SDKs find their keys in a replay too.
  process.exitCode = helpAsked(argv, HELP) ? 0 : await runDeadletter(argv, exportEnvFile());
}
