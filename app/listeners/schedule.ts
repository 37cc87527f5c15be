/** A schedule's firing (lib/schedule): a turn nobody wrote, answered at the top level of its channel or DM through its handle. */
import type { App } from '@slack/bolt';
import type { Logger } from '../../lib/log/index.js';
import type { AutohubContext } from '../turn-context.js';
import { SCHEDULE_EVENT_TYPE } from '../../lib/schedule/index.js';
import type { EnvelopeFields, MessageEvent, TakeTurn } from '../../lib/turn/index.js';

type Args = { event: unknown; body: unknown; context: AutohubContext & { botUserId?: string; botId?: string; botToken?: string } };

export function registerSchedules(app: App<AutohubContext>, log: Logger, turn: TakeTurn): void {
  app.event(SCHEDULE_EVENT_TYPE, async ({ event, body, context }: Args) => {
    const handle = context.autohubTurn;
    if (!handle) {
      log.error('turn.no_handle', { detail: 'a schedule reached a listener outside the turn runner' });
      return;
    }
    const fired = event as MessageEvent & { autohub_dm?: string };
    let channel = fired.channel;
    if (fired.autohub_dm) {
      // The bot's DM with the person: its channel id, so a taker-over can read what was posted there (conversations.history).
      const opened = await handle.client.conversations.open({ users: fired.autohub_dm });
      channel = opened.channel?.id ?? channel;
    }
    const { autohub_dm: dm, ...rest } = fired;
    await handle.answer({ event: { ...rest, channel, ...(dm ? { user: dm } : {}) }, body: body as EnvelopeFields, context }, turn);
  });
}
