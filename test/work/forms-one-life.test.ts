/**
 * One life for slash commands and clicks, on real copies over a real
 * redis-server behind the Upstash REST bridge (issue 43, breaks 1 and 2).
 * Before, a kept command's drain took the trigger_id claim and then ran the
 * listener with nothing after it: a listener that threw once left the entry,
 * the next drain found the claim taken, counted it run and removed it (lost,
 * the owner told "all answered"); a respond() to a response_url Slack had
 * expired reached nobody; and a live command whose ack came after the edge
 * gave up on that leg answered into a response nobody read, while the kept
 * copy was later dropped as already run. Now a command is leased like a
 * mention: a passing failure is retried, a lasting one is a dead letter told
 * to the owner, and an answer nobody reads where it was given goes to the
 * response_url, else by DM.
 */
import type { App } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandForm } from '../../drill/sim/slack-events.js';
import { createEdgeKeeper, createInboxStore, parseInboxSettings } from '../../lib/inbox/index.js';
import { RetryableError } from '../../lib/errors/index.js';
import { signedHeaders } from '../../lib/slack/index.js';
import type { TurnModule } from '../../lib/bot/index.js';
import { eventually, SECRET } from '../support/copies.js';
import { useCopiesPerTest, useFakeWebApi } from '../support/fixtures.js';
import { useRedisBridge } from '../support/redis-fixture.js';
import { startResponseUrl } from '../support/response-url.js';

const FORM = 'application/x-www-form-urlencoded';

describe('a slash command has the life of a mention', () => {
  const redis = useRedisBridge();
  const api = useFakeWebApi();
  // Retries come quickly here: the reaper is woken when each falls due.
  const copies = useCopiesPerTest({ api, redis, env: { AUTOHUB_TURN_RETRY_DELAY_MS: '50', AUTOHUB_OWNER: 'U0OWNER' } });
  let hook: Awaited<ReturnType<typeof startResponseUrl>>;
  beforeAll(async () => {
    hook = await startResponseUrl();
  });
  afterAll(() => hook?.server.close());

  const command = (name: string, trigger: string) => {
    const form = new URLSearchParams(commandForm({ command: name, triggerId: trigger }));
    form.set('response_url', hook.url);
    return form.toString();
  };
  /** What the edge does when no copy answers: kept as it arrived, signed by Slack then. */
  const keep = async (body: string) => {
    const settings = parseInboxSettings({ UPSTASH_REDIS_REST_URL: redis.bridge.url, UPSTASH_REDIS_REST_TOKEN: redis.bridge.token })!;
    const request = new Request('https://edge.example.com/slack/events', {
      method: 'POST',
      headers: { 'content-type': FORM, ...(await signedHeaders(SECRET, body, Date.now())) },
      body,
    });
    const kept = await createEdgeKeeper({ settings, signingSecret: SECRET }).keep(request, new TextEncoder().encode(body), Date.now(), 2_000);
    expect(kept.kind).toBe('kept');
  };
  const inboxSize = async () => (await createInboxStore({ url: redis.bridge.url, token: redis.bridge.token }).stats()).size;
  const dms = (user: string) =>
    api
      .posts()
      .filter((c) => c.params.channel === user)
      .map((c) => c.params.text ?? '');
  const bot = (register: (app: App) => void): TurnModule => ({ takeTurn: () => 'ok', register: (app) => register(app as App) });

  it('a kept command whose listener fails once for a passing reason is run again and answered once (before: dropped as already run)', async () => {
    hook.posts.length = 0;
    hook.status = 200;
    let runs = 0;
    const copy = await copies.start('hub', {
      turn: bot((app) =>
        app.command('/flaky', async ({ ack }) => {
          runs += 1;
          if (runs === 1) throw new RetryableError('the model is overloaded');
          await ack({ text: 'flaky done' });
        }),
      ),
    });
    await keep(command('/flaky', 'trig-flaky'));
    await copy.inbox!.drain('test');
    await eventually(() => hook.posts.some((p) => p.text === 'flaky done'), 'the answer at its response_url');
    expect(runs).toBe(2);
    expect(hook.posts.filter((p) => p.text === 'flaky done')).toHaveLength(1);
    expect(await inboxSize()).toBe(0);
  });

  it("a kept command whose respond() meets Slack's 404 (the response_url expired) reaches the person by DM (before: nobody)", async () => {
    hook.posts.length = 0;
    hook.status = 404;
    const copy = await copies.start('hub', {
      turn: bot((app) =>
        app.command('/later', async ({ ack, respond }) => {
          await ack();
          await respond({ text: 'here it is' });
        }),
      ),
    });
    await keep(command('/later', 'trig-later'));
    await copy.inbox!.drain('test');
    const late = () => dms('U0PERSON').filter((t) => t === '(late, for your /later) here it is');
    await eventually(() => late().length > 0, 'the DM');
    expect(late()).toHaveLength(1);
    expect(copy.lines.filter((l) => l.event === 'turn.failed')).toHaveLength(0);
  });

  it('a kept command whose listener fails for good is a dead letter the owner is told of (before: dropped, "all answered")', async () => {
    hook.posts.length = 0;
    hook.status = 200;
    const copy = await copies.start('hub', {
      turn: bot((app) =>
        app.command('/broken', async () => {
          throw new Error('a bug in the listener');
        }),
      ),
    });
    await keep(command('/broken', 'trig-broken'));
    await copy.inbox!.drain('test');
    await eventually(() => dms('U0OWNER').some((t) => t.includes('trig-broken')), 'the owner told of the dead letter');
    const dead = await copy.store.listDead(10);
    expect(dead?.map((d) => d.eventId)).toContain('trig-broken');
    expect(hook.posts).toHaveLength(0);
  });

  it('a live command whose ack comes after the edge gave up on the request is answered at its response_url, and its kept copy is not run again', async () => {
    hook.posts.length = 0;
    hook.status = 200;
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let runs = 0;
    const copy = await copies.start('hub', {
      turn: bot((app) =>
        app.command('/slowack', async ({ ack }) => {
          runs += 1;
          await held;
          await ack({ text: 'slow answer' });
        }),
      ),
    });
    const body = command('/slowack', 'trig-slowack');
    const edgeGivesUp = new AbortController();
    const live = fetch(copy.eventsUrl, {
      method: 'POST',
      headers: { 'content-type': FORM, ...(await signedHeaders(SECRET, body, Date.now())) },
      body,
      signal: edgeGivesUp.signal,
    }).catch(() => 'abandoned' as const);
    await eventually(() => runs === 1, 'the listener to run');
    // The edge's hub leg times out: it drops the request and keeps the command.
    edgeGivesUp.abort();
    expect(await live).toBe('abandoned');
    await eventually(() => copy.lines.some((l) => l.event === 'delivery.abandoned'), 'the copy to see the request go');
    await keep(body);
    release();
    await eventually(() => hook.posts.some((p) => p.text === 'slow answer'), 'the answer at its response_url');
    await copy.inbox!.drain('test');
    expect(await inboxSize()).toBe(0);
    expect(runs).toBe(1);
    expect(hook.posts.filter((p) => p.text === 'slow answer')).toHaveLength(1);
  });
});
