/**
 * The edge's inbox, visible from a real copy: its health body (with the token) and `/autohub status` show the
 * inbox's size and its oldest entry's age as the drainer last saw them (before: neither showed it, so an owner
 * could not tell the edge held deliveries no copy had answered), and reading them sends no store command.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { mentionEnvelope } from '../../drill/sim/slack-events.js';
import { createEdgeRouter, parseEdgeSettings } from '../../lib/edge/index.js';
import { createEdgeKeeper, parseInboxSettings, STATS_SCRIPT } from '../../lib/inbox/index.js';
import { signedHeaders } from '../../lib/slack/index.js';
import { pageFor } from '../../lib/status/index.js';
import { eventually, HEALTH_AUTH, SECRET, startCopy, type RunningCopy } from '../support/copies.js';
import { bothCopiesDownEnv } from '../support/fake-copy.js';
import { useFakeWebApi } from '../support/fixtures.js';
import { useRedisBridge } from '../support/redis-fixture.js';

describe("the edge's inbox in a copy's health body and on /autohub status", () => {
  const redis = useRedisBridge();
  const api = useFakeWebApi();
  let copy: RunningCopy | undefined;
  afterAll(async () => {
    await copy?.stop();
  });

  it('shows the size and the oldest entry the drain saw, and reading them costs no store command', async () => {
    const env = bothCopiesDownEnv(redis.bridge, SECRET);
    const edge = createEdgeRouter({ settings: parseEdgeSettings(env), inbox: createEdgeKeeper({ settings: parseInboxSettings(env)!, signingSecret: SECRET }) });
    for (const id of ['Ev-seen-1', 'Ev-seen-2']) {
      const body = JSON.stringify(mentionEnvelope({ eventId: id, ts: `1700000300.00030${id.slice(-1)}` }));
      const response = await edge.handle(
        new Request('https://edge.example.com/slack/events', {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(await signedHeaders(SECRET, body, Date.now())) },
          body,
        }),
      );
      expect(response.headers.get('x-autohub-route')).toBe('inbox');
    }
    // The copy's inbox store (its fetch) answers the start-up drain's first read (one script), then fails: the two stay kept.
    const inboxRequests: string[] = [];
    const copyFetch: typeof fetch = async (input, init) => {
      if (!String(input).startsWith(redis.bridge.url)) return fetch(input, init);
      const [name, script] = JSON.parse(String(init?.body)) as string[];
      inboxRequests.push(name === 'EVAL' && script === STATS_SCRIPT.source ? 'stats' : name!);
      if (inboxRequests.length > 1) throw new TypeError('fetch failed');
      return fetch(input, init);
    };
    copy = await startCopy({ role: 'hub', webApiUrl: api.url, upstash: { url: redis.bridge.url, token: redis.bridge.token }, fetch: copyFetch });
    await eventually(() => copy!.inbox?.last?.size === 2, "the start-up drain's look");
    // The start-up drain goes on to take the two: that read fails and is logged; only then is the window opened.
    await eventually(() => copy!.lines.some((l) => l.event === 'inbox.unreachable' && l.reason === 'start'), "the start-up drain's failed take");
    // The reaper's first look may drain now too: that drain sends one read, fails and logs inbox.unreachable.
    // Each such read is told apart by its line; any other inbox request in the window is the health route's or the page's.
    const unreachable = () => copy!.lines.filter((l) => l.event === 'inbox.unreachable' && l.reason === 'look').length;
    const before = { requests: inboxRequests.length, unreachable: unreachable() };
    const health = await fetch(copy.healthUrl, { headers: HEALTH_AUTH });
    const { inbox } = (await health.json()) as { inbox: Record<string, unknown> };
    expect(inbox).toMatchObject({ size: 2, expired: 0 });
    expect(inbox.oldest_age_s as number).toBeGreaterThanOrEqual(0);
    expect(typeof inbox.oldest_at).toBe('string');
    expect(typeof inbox.checked_at).toBe('string');
    // Without the token, nothing of it.
    expect(await (await fetch(copy.healthUrl)).json()).toEqual({ status: expect.any(String) });

    const page = JSON.stringify(await pageFor(copy.health, copy.store));
    expect(page).toContain("*Edge's inbox*: :warning: 2 kept, not answered yet, the oldest kept");
    await eventually(() => inboxRequests.length - before.requests === unreachable() - before.unreachable, "a look's drain to log its failed read");
    expect(inboxRequests.slice(before.requests).every((r) => r === 'stats')).toBe(true);
    expect(inboxRequests.length - before.requests).toBe(unreachable() - before.unreachable);
  });
});
