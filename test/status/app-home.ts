/** Opening the bot's App Home tab, for the status tests. */
import { expect } from 'vitest';
import type { FakeWebApi, RecordedCall } from '../../drill/sim/fake-web-api.js';
import { deliver } from '../../drill/sim/slack-events.js';
import { eventually, SECRET, type RunningCopy } from '../support/copies.js';

/** `user` opens the Home tab (app_home_opened, https://docs.slack.dev/reference/events/app_home_opened): resolves with the copy's views.publish. */
export async function openHome(copy: RunningCopy, api: FakeWebApi, o: { user: string; eventId: string; eventTs: string }): Promise<RecordedCall> {
  const opened = {
    token: 'x',
    team_id: 'T0AUTOHUB',
    api_app_id: 'A0AUTOHUB',
    type: 'event_callback',
    event_id: o.eventId,
    event_time: Math.floor(Number(o.eventTs)),
    event: { type: 'app_home_opened', user: o.user, channel: 'D0HOME', tab: 'home', event_ts: o.eventTs },
  };
  expect((await deliver(copy.eventsUrl, opened, { signingSecret: SECRET })).status).toBe(200);
  const published = () => api.calls.find((c) => c.method === 'views.publish');
  await eventually(() => published() !== undefined, 'the home tab', 10_000);
  return published()!;
}
