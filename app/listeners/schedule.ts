/** A schedule's firing (lib/schedule): a turn nobody wrote, answered at the top level of its channel or DM through its handle. */
import type { App } from '@slack/bolt';
import type { Logger } from '../../lib/log/index.js';
import type { AutohubContext } from '../turn-context.js';
import { SCHEDULE_EVENT_TYPE } from '../../lib/schedule/index.js';
import type { EnvelopeFields, MessageEvent } from '../../lib/turn/index.js';
import type { TakeTurn } from '../../lib/bot/index.js';

type Args = { event: unknown; body: unknown; context: AutohubContext & { botUserId?: string; botId?: string; botToken?: string } };

export function registerSchedules(app: App<AutohubContext>, log: Logger, turn: TakeTurn): void {
  app.event(SCHEDULE_EVENT_TYPE, async ({ event, body, context }: Args) => {
    const handle = context.autohubTurn;
    if (!handle) {
      log.error('turn.no_handle', { detail: 'a schedule reached a listener outside the turn runner' });
      return;
    }
    const fired = event as MessageEvent & { autohub_dm?: string };
    // A DM schedule posts to the person's id (chat.postMessage opens the bot's DM with them, chat:write only).
    const { autohub_dm: dm, ...rest } = fired;
    await handle.answer({ event: { ...rest, ...(dm ? { user: dm } : {}) }, body: body as EnvelopeFields, context }, turn);
  });
}
