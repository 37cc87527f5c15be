/**
 * AUTOHUB_TURN: your bot in a file of its own. The module is imported once at
 * start-up and checked: it must export a `takeTurn(request, ctx)` function,
 * and may export `register(app, helpers)` and the AI-app exports (lib/turn/ai-exports.ts). A module that cannot be used stops
 * start-up with one line naming AUTOHUB_TURN and the path (a ConfigError,
 * which app/main.ts prints), never a stack trace at the first mention.
 *
 * Paths are relative to the project root (the folder holding package.json),
 * or absolute. `.js` and `.mjs` load as they are. `.ts` loads with Node's own
 * type stripping (Node 24 and 26 erase the types of a `.ts` file outside
 * node_modules), so a TypeScript bot runs in a production install (`npm ci
 * --omit=dev`, no tsx); tsx, where it is installed, takes what Node cannot
 * strip (an enum, a namespace, `./helper.js` naming a `.ts` file).
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseConcurrency } from '../lib/conversation/index.js';
import { ConfigError } from '../lib/errors/index.js';
import type { AppConfig } from '../lib/config/index.js';
import type { TurnModule } from '../lib/bot/index.js';
import { parseFollowUps, TASK_DISPLAY_MODES } from '../lib/turn/index.js';
import type { TaskDisplayMode } from '../lib/bot/index.js';
import { aiExportsOf, aiExportsProblem } from '../lib/turn/index.js';
import { parseSchedules } from '../lib/schedule/index.js';
import { demoTurn, type DemoTurnOptions } from './turn.js';
import { exposeBotContract } from './bot-contract.js';
import { parseFailureOf } from './module-error.js';

export interface LoadTurnOptions {
  /** Where a relative path starts. @default the project root: the nearest folder above this file with a package.json */
  root?: string;
  /** The demo's settings, when no module is named. @default { thinkMs: 0, chunkMs: 0 } */
  demo?: DemoTurnOptions;
  /**
   * How a TypeScript module is imported. @default `import()` when this file
   * itself runs as TypeScript (tsx, vitest), else tsx's `tsImport`
   */
  importTs?: (url: string) => Promise<unknown>;
}

/** This file's project root: two levels up from app/ or dist/node/app/, wherever package.json is. */
export function projectRoot(from: string = fileURLToPath(import.meta.url)): string {
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    if (existsSync(resolve(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return process.cwd();
  }
}

const runningFromSource = import.meta.url.endsWith('.ts');

/** Node's own refusals that tsx can get past: syntax it cannot strip, no stripping at all, a `.js` specifier naming a `.ts` file. */
const TSX_CAN_HELP = new Set(['ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX', 'ERR_UNKNOWN_FILE_EXTENSION', 'ERR_MODULE_NOT_FOUND', 'ERR_INVALID_TYPESCRIPT_SYNTAX']);

async function defaultImportTs(url: string): Promise<unknown> {
  if (runningFromSource) return import(url);
  try {
    return await import(url);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code !== 'string' || !TSX_CAN_HELP.has(code)) throw error;
    // tsx is a development dependency: a production install has Node's stripping alone.
    const tsx = await import('tsx/esm/api').catch(() => undefined);
    if (!tsx) throw error;
    return tsx.tsImport(url, import.meta.url);
  }
}

/** What to do about a failed import, when it is a package the bot needs that this install does not have. */
function hint(error: unknown): string {
  const e = error as { code?: unknown; message?: unknown };
  const missing = e.code === 'ERR_MODULE_NOT_FOUND' ? /Cannot find package '([^']+)'/.exec(String(e.message)) : null;
  if (missing)
    return ` (a package your bot imports goes in package.json's dependencies, \`npm install --save-prod ${missing[1]}\`, so \`npm ci --omit=dev\` keeps it)`;
  if (e.code === 'ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX')
    return ' (Node strips erasable types only: write the enum or namespace as plain TypeScript, or compile the bot to .js)';
  return '';
}

function invalid(path: string, expected: string, cause?: unknown): ConfigError {
  const error = new ConfigError('AUTOHUB_TURN', expected, path);
  if (cause !== undefined) Object.defineProperty(error, 'cause', { value: cause, enumerable: false, writable: true, configurable: true });
  return error;
}

/**
 * The first line of why an import failed, with no stack: "SyntaxError: Unexpected token '}'";
 * for a module that does not parse, where: "SyntaxError at /srv/bot.ts:2:18: Unexpected token ';'".
 */
function why(error: unknown, file: string): string {
  if (!(error instanceof Error)) return String(error).split('\n')[0] ?? 'thrown';
  const parse = parseFailureOf(error, file);
  if (parse) return `SyntaxError at ${parse.at}: ${parse.what}`.slice(0, 300);
  return `${error.name}: ${error.message.split('\n')[0] ?? ''}`.slice(0, 200);
}

export async function loadTurnModule(path: string | undefined, options: LoadTurnOptions = {}): Promise<TurnModule> {
  if (path === undefined) return { takeTurn: demoTurn(options.demo ?? { thinkMs: 0, chunkMs: 0 }) };
  const file = isAbsolute(path) ? path : resolve(options.root ?? projectRoot(), path);
  if (!existsSync(file) || !statSync(file).isFile()) {
    throw invalid(path, `the path of your bot's module, but there is no file at ${file}`);
  }
  const url = pathToFileURL(file).href;
  const ts = file.endsWith('.ts') || file.endsWith('.mts');
  // `autohub/bot` from a bot outside the project's tree too.
  exposeBotContract();
  let loaded: unknown;
  try {
    loaded = ts ? await (options.importTs ?? defaultImportTs)(url) : await import(url);
  } catch (error) {
    throw invalid(path, `a module that loads, but importing ${file} failed: ${why(error, file)}${hint(error)}`, error);
  }
  const named = (loaded ?? {}) as Record<string, unknown>;
  // `export default { takeTurn }` is accepted too.
  const exports =
    typeof named.takeTurn === 'function' || typeof named.default !== 'object' || named.default === null ? named : (named.default as Record<string, unknown>);
  if (typeof exports.takeTurn !== 'function') {
    const found = Object.keys(named).filter((k) => k !== 'default');
    throw invalid(path, `a module exporting a takeTurn(request, ctx) function, but ${file} exports ${found.length ? found.join(', ') : 'nothing by name'}`);
  }
  if (exports.register !== undefined && typeof exports.register !== 'function') {
    throw invalid(path, `register, when exported, to be a function (app, helpers), but in ${file} it is a ${typeof exports.register}`);
  }
  // Slack's AI-app exports (status, loadingMessages, prompts, title, onFeedback): checked here, used by the handle.
  const ai = aiExportsProblem(exports);
  if (ai) throw invalid(path, `${ai} (in ${file})`);
  // Schedules: every entry checked here (a bad cron, time zone or target stops start-up with one line).
  const schedules = parseSchedules(exports.schedules);
  if (!schedules.ok) throw invalid(path, `${schedules.expected} (in ${file})`);
  return {
    takeTurn: exports.takeTurn as TurnModule['takeTurn'],
    ...(exports.register ? { register: exports.register as NonNullable<TurnModule['register']> } : {}),
    ...aiExportsOf(exports),
    ...conversationExports(exports, path, file),
    ...(exports.schedules === undefined ? {} : { schedules: exports.schedules as NonNullable<TurnModule['schedules']> }),
  };
}

// --- Conversations and tasks (docs/tasks-and-conversations.md): kept apart from the checks above. ---

/** `concurrency`, checked once here: a wrong value stops start-up with one line. */
function conversationExports(
  exports: Record<string, unknown>,
  path: string,
  file: string,
): Pick<TurnModule, 'concurrency' | 'taskDisplayMode' | 'edits' | 'followUps'> {
  const followUps = parseFollowUps(exports.followUps);
  if (!followUps.ok) throw invalid(path, `${followUps.expected} in ${file}`);
  const edits = exports.edits;
  if (edits !== undefined && edits !== 'answer' && edits !== 'ignore') {
    throw invalid(path, `edits, when exported, to be one of answer, ignore, but it is ${JSON.stringify(edits) ?? typeof edits} in ${file}`);
  }
  const concurrency = parseConcurrency(exports.concurrency);
  if (!concurrency.ok) throw invalid(path, `${concurrency.expected} in ${file}`);
  const mode = exports.taskDisplayMode;
  if (mode !== undefined && !(TASK_DISPLAY_MODES as readonly unknown[]).includes(mode)) {
    throw invalid(
      path,
      `taskDisplayMode, when exported, to be one of ${TASK_DISPLAY_MODES.join(', ')}, but it is ${JSON.stringify(mode) ?? typeof mode} in ${file}`,
    );
  }
  return {
    ...(exports.concurrency === undefined ? {} : { concurrency: concurrency.mode }),
    ...(mode === undefined ? {} : { taskDisplayMode: mode as TaskDisplayMode }),
    ...(edits === undefined ? {} : { edits }),
    ...(followUps.value === undefined ? {} : { followUps: followUps.value }),
  };
}

/** The bot a copy runs: AUTOHUB_TURN's module, else the demo turn with its settings. `npm start` and a replay load it alike. */
export function loadBot(
  config: Pick<AppConfig, 'turn' | 'demoThinkMs' | 'demoChunkMs' | 'demoReplyChars' | 'demoTicketUrl'>,
  options: Omit<LoadTurnOptions, 'demo'> = {},
): Promise<TurnModule> {
  const demo = { thinkMs: config.demoThinkMs, chunkMs: config.demoChunkMs, replyChars: config.demoReplyChars, ticketUrl: config.demoTicketUrl };
  return loadTurnModule(config.turn, { ...options, demo });
}
