/** What a bot module's `register(app, helpers)` gets besides the Bolt app (app/parts.ts builds it). */
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../lib/log/index.js';
import type { TakeTurn, TurnHandle } from '../lib/turn/index.js';

export interface RegisterHelpers {
  log: Logger;
  /** The copy's rate-limit-aware WebClient (not fenced: for writes outside a turn). */
  client: WebClient;
  /** The turn handle of the delivery a listener is answering (its `client` is fenced by the turn's lease). */
  turnOf(context: unknown): TurnHandle | undefined;
  /** Answer a message event like an @mention: the whole reply protocol, with `takeTurn` (default: the bot's). */
  answer(args: { event: unknown; body: unknown; context: unknown }, takeTurn?: TakeTurn): Promise<void>;
}
