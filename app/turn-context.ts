/**
 * What autohub adds to Bolt's context of every delivery its runner runs
 * (lib/runner's BoltTurnContext), as the Bolt app's own context type: the app
 * is an `App<AutohubContext>`, so a listener reads `context.autohubTurn`
 * typed, with no cast.
 */
import type { BoltTurnContext } from '../lib/runner/index.js';
import { TurnHandle } from '../lib/turn/index.js';

/** Partial: a listener may see a context the runner did not build (a delivery that reached Bolt some other way). */
export type AutohubContext = Partial<BoltTurnContext>;

/** The turn handle in a context handed in from outside the app's types (a bot module's listener): checked, not assumed. */
export function turnOf(context: unknown): TurnHandle | undefined {
  const handle = (context as AutohubContext | null | undefined)?.autohubTurn;
  return handle instanceof TurnHandle ? handle : undefined;
}
