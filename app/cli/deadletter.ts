/**
 * `npm run deadletter -- list [--json] | replay ID | drop ID`
 *
 * Turns that could not be answered, from the shared store. `replay` runs one
 * again here, through the same claim-and-lease path and listeners as a copy
 * (it reads the thread first, so it never answers twice); `drop` forgets it.
 * Exit 0 done, 1 when the replay failed again or the store did not answer,
 * 2 for a usage error or a missing setting.
 */
import { loadEnv, parseAppConfig, parseStoreConfig, secretsOf, type AppConfig, type Env } from '../../lib/config/index.js';
import { ConfigError, UsageError } from '../../lib/errors/index.js';
import { createLogger, silentLogger, type Logger } from '../../lib/log/index.js';
import { createStore, parseLeaseRecord, type DeadLetter, type SharedStore } from '../../lib/store/index.js';
import { createAutohub } from '../create-app.js';
import { helpAsked, parseCli } from './args.js';
import { isMain } from './is-main.js';

const USAGE = 'usage: npm run deadletter -- list [--json] | replay ID | drop ID';

export type DeadletterCommand = { verb: 'list'; json: boolean } | { verb: 'replay' | 'drop'; id: string };

export function parseDeadletterArgs(argv: readonly string[]): DeadletterCommand {
  const parsed = parseCli(argv, { json: { type: 'boolean' } }, USAGE, true);
  const [verb, id, ...rest] = parsed.positionals;
  if (rest.length > 0) throw new UsageError(`unexpected ${JSON.stringify(rest[0])}; ${USAGE}`);
  if (verb === 'list' && id === undefined) return { verb, json: parsed.values.json === true };
  if ((verb === 'replay' || verb === 'drop') && id && !parsed.values.json) return { verb, id };
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

/** Run one dead letter again in this process, as a copy would, and wait for its end. */
async function replay(config: AppConfig, store: SharedStore, dead: DeadLetter, log: Logger): Promise<string> {
  const autohub = createAutohub({ config: { ...config, instance: `${config.role}-deadletter`, port: 0, peer: null }, log, store });
  const sentAt = Date.now();
  const takeover = await store.replayDead(dead.key, { instance: `${config.role}-deadletter`, role: config.role }, config.lease.leaseMs);
  if (!takeover) return 'not dead any more (replayed or dropped meanwhile)';
  autohub.keeper.start();
  autohub.receiver.resume(takeover, sentAt);
  await autohub.receiver.stop();
  autohub.keeper.stop();
  const record = parseLeaseRecord(await store.read(dead.key));
  if (record?.state === 'done') return record.reply_ts ? `answered (reply ${record.reply_ts})` : 'answered';
  if (record?.state === 'dead') return `failed again: ${record.reason ?? 'unknown'}`;
  return `handed back for another run (${record?.reason ?? 'no reason recorded'})`;
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
  const log = createLogger({ level: config.logLevel, base: { instance: 'deadletter' }, secrets: secretsOf(config) });
  const result = await replay(config, store, dead, log);
  out.log(`replayed ${dead.eventId}: ${result}`);
  return result.startsWith('answered') ? 0 : 1;
}

if (isMain(import.meta.url)) {
  const argv = process.argv.slice(2);
  process.exitCode = helpAsked(argv, USAGE) ? 0 : await runDeadletter(argv);
}
