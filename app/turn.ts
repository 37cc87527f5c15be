/**
 * The demo turn: what runs when AUTOHUB_TURN is unset. Do not edit it to
 * write your bot: put your bot in a file of its own and point AUTOHUB_TURN at
 * it (README, "Write your bot"; examples/echo.mjs and examples/anthropic.ts).
 *
 * It greets the asker and says which copy answered, streamed in a few chunks
 * so the streaming path runs everywhere. Its two settings are for the drill:
 * AUTOHUB_DEMO_THINK_MS holds a turn open as a model call would (across lease
 * renewals), AUTOHUB_DEMO_CHUNK_MS slows its stream.
 */
import type { TakeTurn, TurnContext, TurnRequest } from '../lib/turn/types.js';
import { realSleep as pause } from '../lib/time/index.js';

export type { TurnRequest } from '../lib/turn/types.js';
export type { TurnReply } from '../lib/turn/types.js';

export interface DemoTurnOptions {
  /** How long the turn pretends to think before its first chunk. @default 0 */
  thinkMs: number;
  /** The pause between its chunks. @default 0 */
  chunkMs?: number;
}

/** What the demo reads of a request (the listeners before the turn handle pass only part of one). */
type DemoRequest = Pick<TurnRequest, 'user' | 'copy'> & Partial<TurnRequest>;

/** The demo turn with its settings injected: the drill's think and chunk pauses. */
export function demoTurn(options: DemoTurnOptions): (request: DemoRequest, ctx?: Partial<TurnContext>) => Promise<AsyncIterable<string>> {
  const { thinkMs } = options;
  const chunkMs = options.chunkMs ?? 0;
  return async (request, ctx) => {
    const signal = ctx?.signal;
    if (thinkMs > 0) await pause(thinkMs);
    signal?.throwIfAborted();
    const where = request.copy.role === 'hub' ? 'the hub' : 'the cloud copy';
    const asker = request.user ? `<@${request.user}>` : 'you';
    const parts = [`Hi ${asker}, `, 'I got that. ', 'Answered by ', `${where} (${request.copy.instance}).`];
    return (async function* () {
      for (const [i, part] of parts.entries()) {
        if (i > 0 && chunkMs > 0) await pause(chunkMs);
        // This copy no longer owns the turn: stop writing.
        if (signal?.aborted) return;
        yield part;
      }
    })();
  };
}

/**
 * The module-level settings of `takeTurn` below: kept only until
 * app/create-app.ts builds its turn with `demoTurn(...)` instead.
 * @deprecated use `demoTurn({ thinkMs, chunkMs })`
 */
let configured: DemoTurnOptions = { thinkMs: 0, chunkMs: 0 };
/** @deprecated use `demoTurn({ thinkMs, chunkMs })` */
export function configureDemoTurn(options: DemoTurnOptions): void {
  configured = options;
}

/** The demo as a module's `takeTurn` (the TurnModule contract), with the settings `configureDemoTurn` gave. */
export const takeTurn = (request: DemoRequest, ctx?: Partial<TurnContext>): Promise<AsyncIterable<string>> => demoTurn(configured)(request, ctx);

// The demo fits the contract a module named by AUTOHUB_TURN must meet.
takeTurn satisfies TakeTurn;
