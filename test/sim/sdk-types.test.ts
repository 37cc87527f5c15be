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
