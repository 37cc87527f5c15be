/**
 * The request carries what Slack gives (issue 45, item 7). Before, a turn had no way to the event's
 * `action_token` (for Slack's Real-time Search API, assistant.search.context: "Send action_token as
 * received in a message event") nor to any field of the event autohub did not copy out.
 */
import { describe, expect, it } from 'vitest';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import type { TurnRequest } from '../../lib/bot/index.js';
import { SECRET, turnOver } from '../support/copies.js';
import { useCopy, useFakeWebApi } from '../support/fixtures.js';

describe('the request carries the event as Slack sent it', () => {
  const api = useFakeWebApi();
  const seen = new Map<string, TurnRequest>();
  const copy = useCopy({
    role: 'hub',
    api,
    turn: (request) => {
      seen.set(request.eventId, request);
      return 'ok';
    },
  });

  it("the event's action_token as request.actionToken, and the raw event (its client_msg_id, its blocks) as request.event", async () => {
    const envelope = mentionEnvelope({ eventId: 'Ev-action-token', ts: '1700015000.000100' });
    const blocks = [{ type: 'rich_text', block_id: 'b1', elements: [] }];
    Object.assign(envelope.event as Record<string, unknown>, { action_token: '12345.98765.abcd2358fdea', client_msg_id: 'c0ffee', blocks });
    expect((await deliver(copy.eventsUrl, envelope, { signingSecret: SECRET })).status).toBe(200);
    await turnOver(copy.store, 'Ev-action-token');
    const request = seen.get('Ev-action-token')!;
    expect(request.actionToken).toBe('12345.98765.abcd2358fdea');
    expect(request.event).toMatchObject({ type: 'app_mention', client_msg_id: 'c0ffee', blocks, ts: '1700015000.000100' });
  });

  it('no action_token in the event: none on the request', async () => {
    expect((await deliver(copy.eventsUrl, mentionEnvelope({ eventId: 'Ev-no-token', ts: '1700015000.000200' }), { signingSecret: SECRET })).status).toBe(200);
    await turnOver(copy.store, 'Ev-no-token');
    expect(seen.get('Ev-no-token')!.actionToken).toBeUndefined();
    expect(seen.get('Ev-no-token')!.event?.type).toBe('app_mention');
  });
});
