/**
 * The fake Slack held to Slack's own SDK (issue 45, item 8). Before, the fake's table of methods
 * (drill/sim/slack-methods.ts) was our reading of Slack's pages alone: `chat.startStream` started a stream
 * with no `thread_ts`, which `@slack/web-api`'s ChatStartStreamArguments requires. Now every argument the
 * fake accepts must be in the SDK's request type for the method, every argument the SDK always requires
 * is one the fake refuses a call without, and every method autohub calls is one the SDK has: the SDK side
 * is test/sim/sdk-args.ts, checked against node_modules/@slack/web-api's .d.ts files by `tsc`.
 */
import { WebClient } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import { dmMentionPair, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { SLACK_METHODS } from '../../drill/sim/slack-methods.js';
import { useFakeWebApi } from '../support/fixtures.js';
import { methodsCalled } from '../support/methods-called.js';
import { SDK_ARGS } from './sdk-args.js';

const sdk = new Map(SDK_ARGS.map((e) => [e.method, e]));

describe("the fake's methods, against @slack/web-api's request types", () => {
  it('every method autohub calls, and every method the fake answers, is one the SDK types (test/sim/sdk-args.ts)', () => {
    const missing = [...methodsCalled(), ...SLACK_METHODS.map((r) => r.method)].filter((m) => !sdk.has(m));
    expect(missing).toEqual([]);
  });

  it.each(SLACK_METHODS.map((r) => [r.method, r] as const))('%s: every argument the fake accepts is in the SDK request type', (method, row) => {
    const typed = new Set(sdk.get(method)?.args ?? []);
    expect(Object.keys(row.args).filter((a) => !typed.has(a))).toEqual([]);
  });

  it.each(SLACK_METHODS.map((r) => [r.method, r] as const))('%s: every argument the SDK always requires, the fake requires', (method, row) => {
    const required = sdk.get(method)?.required ?? [];
    expect(required.filter((a) => row.args[a]?.required !== true)).toEqual([]);
  });
});

describe('the fake refuses what the SDK would not send', () => {
  const api = useFakeWebApi();

  it('chat.startStream without thread_ts (the SDK requires it; before, the fake opened a top-level stream)', async () => {
    const client = new WebClient('xoxb-test', { slackApiUrl: api.url, retryConfig: { retries: 0 } });
    const answer = (await client.apiCall('chat.startStream', { channel: 'D0SDK', markdown_text: 'Hi' }).catch((error: { data?: unknown }) => error.data)) as {
      ok?: boolean;
      error?: string;
    };
    expect(answer).toMatchObject({ ok: false, error: 'invalid_arguments' });
  });
});

describe("the fake's event envelopes, shaped as @slack/types' events (tsc checks their fields: test/sim/sdk-args.ts)", () => {
  it("carry authorizations, event.team, a person's client_msg_id (the same on a message's two events) and its rich_text blocks", () => {
    const [mention, im] = dmMentionPair({ eventIds: ['Ev-sdk-1', 'Ev-sdk-2'], ts: '1700080000.000100', text: '<@UAUTOHUB> hi there' });
    expect(mention).toMatchObject({
      authorizations: [{ team_id: 'T0AUTOHUB', user_id: 'UAUTOHUB', is_bot: true }],
      event: {
        team: 'T0AUTOHUB',
        client_msg_id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-8[0-9a-f]{3}-[0-9a-f]{12}$/),
        blocks: [
          {
            type: 'rich_text',
            elements: [
              {
                type: 'rich_text_section',
                elements: [
                  { type: 'user', user_id: 'UAUTOHUB' },
                  { type: 'text', text: ' hi there' },
                ],
              },
            ],
          },
        ],
      },
    });
    expect((im.event as { client_msg_id?: string }).client_msg_id).toBe((mention.event as { client_msg_id?: string }).client_msg_id);
    // An app's message has no client_msg_id; a Slack Connect person's event names their own team.
    const byApp = mentionEnvelope({ eventId: 'Ev-sdk-3', ts: '1.1', by: { user: 'U0B', bot_id: 'B0B', app_id: 'A0B' } });
    expect(byApp.event).not.toHaveProperty('client_msg_id');
    expect(mentionEnvelope({ eventId: 'Ev-sdk-4', ts: '1.2', userTeam: 'T0THEIRS' }).event).toMatchObject({ team: 'T0THEIRS', user_team: 'T0THEIRS' });
  });
});
