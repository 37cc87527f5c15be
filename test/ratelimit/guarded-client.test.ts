import { WebClient } from '@slack/web-api';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger, slackLogger } from '../../lib/log/index.js';
import { createRateLimitFetch, guardedClients } from '../../lib/ratelimit/index.js';
import { useFakeWebApi } from '../support/fixtures.js';

/** Every API method of a client, by its full name, as web-api lays them out (`chat.postMessage`, `admin.apps.approved.list`). */
function methodsOf(value: Record<string, unknown>, path = ''): string[] {
  return Object.entries(value).flatMap(([name, member]) => {
    const full = path ? `${path}.${name}` : name;
    if (typeof member === 'function') return path && member.name === 'bound apiCall' ? [full] : [];
    return typeof member === 'object' && member !== null && !Array.isArray(member) && name !== 'logger'
      ? methodsOf(member as Record<string, unknown>, full)
      : [];
  });
}

function at(client: WebClient, method: string): (options?: Record<string, unknown>) => Promise<unknown> {
  let fn: unknown = client;
  for (const part of method.split('.')) fn = (fn as Record<string, unknown>)[part];
  return fn as (options?: Record<string, unknown>) => Promise<unknown>;
}

describe("a turn's client is a view of the copy's one WebClient, fenced at every request", () => {
  const api = useFakeWebApi();
  afterEach(() => {
    api.calls.length = 0;
  });
  const rateLimit = createRateLimitFetch();
  let shared: WebClient;
  let viewFor: ReturnType<typeof guardedClients>;
  let methods: string[];
  beforeAll(() => {
    shared = new WebClient('xoxb-test', { slackApiUrl: api.url, retryConfig: { retries: 0 }, fetch: rateLimit, logger: slackLogger(silentLogger) });
    viewFor = guardedClients(shared, rateLimit.fenced);
    methods = methodsOf(shared as unknown as Record<string, unknown>);
  });

  it("every API method of the view passes the turn's guard before its request reaches Slack (before: a per-turn WebClient did; a view that inherited a namespace would skip the fence)", async () => {
    expect(methods.length).toBeGreaterThan(200);
    const guarded: string[] = [];
    let sent = 0;
    const view = viewFor({
      check: async () => {
        // The guard runs before the request is sent: the Web API has not seen it yet.
        guarded.push(`guard before call ${api.calls.length + 1}`);
        sent = api.calls.length;
      },
    });
    for (const method of methods) {
      const before = api.calls.length;
      await at(view, method)({ channel: 'C0GENERAL' }).catch(() => undefined);
      expect(api.calls.length, method).toBe(before + 1);
      expect(api.calls.at(-1)!.method, method).toBe(method);
      expect(sent, method).toBe(before);
    }
    expect(guarded).toHaveLength(methods.length);
  });

  it("a guard that refuses keeps every method's request from leaving, and the call rejects with the guard's error", async () => {
    const view = viewFor({ check: () => Promise.reject(new Error('lease lost: another copy holds the turn')) });
    for (const method of methods) await expect(at(view, method)({ channel: 'C0GENERAL' }), method).rejects.toThrow(/lease lost/);
    await expect(view.chatStream({ channel: 'C0GENERAL', thread_ts: '1.000001' }).stop()).rejects.toThrow(/lease lost/);
    expect(api.calls).toHaveLength(0);
  });

  it("the copy's own client stays unguarded, and two views do not share a guard", async () => {
    const refused = viewFor({ check: () => Promise.reject(new Error('refused')) });
    const allowed = viewFor({ check: () => Promise.resolve() });
    await expect(refused.chat.postMessage({ channel: 'C0GENERAL', text: 'no' })).rejects.toThrow(/refused/);
    await allowed.chat.postMessage({ channel: 'C0GENERAL', text: 'yes' });
    await shared.chat.postMessage({ channel: 'C0GENERAL', text: 'plain' });
    expect(api.calls.map((c) => c.params.text)).toEqual(['yes', 'plain']);
  });
});
