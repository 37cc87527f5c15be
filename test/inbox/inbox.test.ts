/**
 * The edge's inbox on Node, over a real redis-server behind the Upstash REST bridge: with both copies down the
 * edge keeps each delivery and answers 200 (before: 503, and a slash command was lost); a store that hangs ends
 * in 503 by the inbox write's own timeout; a copy that starts drains the inbox, answering each kept mention once
 * (late, in its thread) and each kept command at its response_url.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandForm, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { createEdgeRouter, parseEdgeSettings } from '../../lib/edge/index.js';
import { CATCHING_UP_TEXT, createEdgeKeeper, createInboxStore, createWebSealer, deriveStoreKeyWeb, parseInboxSettings } from '../../lib/inbox/index.js';
import { signedHeaders } from '../../lib/slack/index.js';
import { createSealer, deriveStoreKey } from '../../lib/store/index.js';
import { LATE_NOTE } from '../../lib/turn/handle.js';
import { eventually, SECRET, startCopy, type RunningCopy } from '../support/copies.js';
import { bothCopiesDownEnv } from '../support/fake-copy.js';
import { useFakeWebApi } from '../support/fixtures.js';
import { useRedisBridge } from '../support/redis-fixture.js';

describe('the store seal in WebCrypto (the Worker has no node:crypto)', () => {
  it('derives the same key from the signing secret, and each side opens what the other sealed', async () => {
    const node = deriveStoreKey(SECRET);
    const web = await deriveStoreKeyWeb(SECRET);
    expect(Buffer.from(web).equals(node)).toBe(true);
    const webSealer = await createWebSealer(web);
    const nodeSealer = createSealer(node);
    expect(nodeSealer.open(await webSealer.seal('kept at the edge'))).toBe('kept at the edge');
    expect(await webSealer.open(nodeSealer.seal('sealed by a copy'))).toBe('sealed by a copy');
    expect(await webSealer.open(`${(await webSealer.seal('x')).slice(0, -2)}AA`)).toBeUndefined();
  });
});

/** Records what reaches a slash command's response_url. */
async function startResponseUrl(): Promise<{ url: string; posts: unknown[]; server: Server }> {
  const posts: unknown[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      posts.push(JSON.parse(body));
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/commands/1`, posts, server };
}

describe('both copies down, then back', () => {
  const redis = useRedisBridge();
  const api = useFakeWebApi();
  const logs: Array<{ event: string; fields: Record<string, unknown> }> = [];
  let responseUrl: Awaited<ReturnType<typeof startResponseUrl>>;
  let copy: RunningCopy | undefined;
  const edge = () => {
    const env = bothCopiesDownEnv(redis.bridge, SECRET);
    const settings = parseEdgeSettings(env);
    return createEdgeRouter({
      settings,
      inbox: createEdgeKeeper({ settings: parseInboxSettings(env)!, signingSecret: SECRET }),
      log: (event, fields) => logs.push({ event, fields }),
    });
  };
  const deliver = async (router: ReturnType<typeof edge>, body: string, contentType: string, extra: Record<string, string> = {}) =>
    router.handle(
      new Request('https://edge.example.com/slack/events', {
        method: 'POST',
        headers: { 'content-type': contentType, ...(await signedHeaders(SECRET, body, Date.now())), ...extra },
        body,
      }),
    );

  beforeAll(async () => {
    responseUrl = await startResponseUrl();
  });
  afterAll(async () => {
    await copy?.stop();
    responseUrl?.server.close();
  });

  const ts = '1700000100.000100';
  const mention = JSON.stringify(mentionEnvelope({ eventId: 'Ev-kept-1', ts }));

  it('keeps a mention, its Slack retry and a slash command: 200 with x-autohub-route inbox, the command told at once', async () => {
    const router = edge();
    const first = await deliver(router, mention, 'application/json');
    const retry = await deliver(router, mention, 'application/json', { 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_timeout' });
    const form = new URLSearchParams(commandForm({ triggerId: 'trig-kept-1' }));
    form.set('response_url', responseUrl.url);
    const command = await deliver(router, form.toString(), 'application/x-www-form-urlencoded');
    expect([first.status, retry.status, command.status]).toEqual([200, 200, 200]);
    expect([first, retry, command].map((r) => r.headers.get('x-autohub-route'))).toEqual(['inbox', 'inbox', 'inbox']);
    expect(await command.json()).toEqual({ response_type: 'ephemeral', text: CATCHING_UP_TEXT });
    expect((await createInboxStore({ url: redis.bridge.url, token: redis.bridge.token }).stats()).size).toBe(3);
  });

  it('a store that hangs: 503 within the budget, ended by the inbox write timeout (logged as a store timeout)', async () => {
    redis.bridge.mode = 'hang';
    try {
      const response = await deliver(edge(), JSON.stringify(mentionEnvelope({ eventId: 'Ev-hung', ts: '1700000200.000200' })), 'application/json');
      expect(response.status).toBe(503);
      // Ended by the write's own fuse, given what the legs left of the 2,800 ms budget (400 ms at most), not Slack's 3 s.
      const failed = logs.filter((l) => l.event === 'edge.inbox_failed');
      expect(failed.map((l) => l.fields.inbox)).toEqual(['store timeout']);
      expect(failed[0]!.fields.timeoutMs as number).toBeLessThanOrEqual(400);
    } finally {
      redis.bridge.mode = 'normal';
    }
  });

  it('a copy that starts drains it: the mention answered once, late, in its thread; the command at its response_url', async () => {
    copy = await startCopy({
      role: 'hub',
      webApiUrl: api.url,
      upstash: { url: redis.bridge.url, token: redis.bridge.token },
      env: { AUTOHUB_OWNER: 'U0OWNER' },
    });
    const inbox = createInboxStore({ url: redis.bridge.url, token: redis.bridge.token });
    await eventually(async () => (await inbox.stats()).size === 0, 'the inbox to be drained', 15_000);
    await eventually(() => api.posts().some((c) => c.params.thread_ts === ts), 'the kept mention to be answered', 15_000);
    await eventually(() => responseUrl.posts.length > 0, 'the kept command to be answered at its response_url', 15_000);
    // Drained again (as the peer's return would): nothing runs twice.
    await copy.inbox!.drain('again');
    const replies = api.posts().filter((c) => c.params.thread_ts === ts && c.params.channel !== 'U0OWNER');
    expect(replies).toHaveLength(1);
    expect(JSON.stringify(replies[0]!.params)).toContain(LATE_NOTE.slice(2, 30));
    expect(responseUrl.posts).toHaveLength(1);
    expect(responseUrl.posts[0]).toMatchObject({ response_type: 'ephemeral' });
    const owner = api
      .posts()
      .filter((c) => c.params.channel === 'U0OWNER')
      .map((c) => c.params.text);
    await eventually(
      () => api.posts().some((c) => c.params.channel === 'U0OWNER' && /All 3 deliveries/.test(c.params.text ?? '')),
      'the owner told all are answered',
      15_000,
    );
    expect(owner.filter((t) => /kept 3 deliveries/.test(t ?? ''))).toHaveLength(1);
  });
});
