import { WebClient } from '@slack/web-api';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryStore, UpstashStore } from '../../lib/store/index.js';
import { silentLogger, slackLogger } from '../../lib/log/index.js';
import { createRateLimitFetch, type RefusalRecord } from '../../lib/ratelimit/index.js';
import type { ScriptedAnswer } from '../../drill/sim/fake-web-api.js';
import { eventually } from '../support/copies.js';
import { useFakeWebApi } from '../support/fixtures.js';
import { useRedisBridge } from '../support/redis-fixture.js';
import { virtualTime } from '../support/virtual-time.js';

const throttled429 = (retryAfter?: string): ScriptedAnswer => ({
  status: 429,
  body: { ok: false, error: 'ratelimited' },
  headers: retryAfter === undefined ? {} : { 'retry-after': retryAfter },
});
const throttled200: ScriptedAnswer = { status: 200, body: { ok: false, error: 'ratelimited' }, headers: { 'retry-after': '4' } };

describe('the rate-limit fetch under a real WebClient, against a loopback Web API', () => {
  const api = useFakeWebApi();
  afterEach(() => {
    api.calls.length = 0;
  });

  function client(extra: Parameters<typeof createRateLimitFetch>[0] = {}) {
    const time = virtualTime();
    const refusals: RefusalRecord[] = [];
    const fetch = createRateLimitFetch({ now: time.now, sleep: time.sleep, onRefusal: (r) => refusals.push(r), instance: 'test', ...extra });
    const web = new WebClient('xoxb-test', { slackApiUrl: api.url, retryConfig: { retries: 0 }, fetch, logger: slackLogger(silentLogger) });
    return { web, time, refusals };
  }

  it.each([
    ['"3"', 3, '3'],
    ['absent', 30, undefined],
    ['"0"', 1, '0'],
    ['"-5"', 30, '-5'],
    ['an HTTP date', 30, 'Wed, 21 Oct 2026 07:28:00 GMT'],
    ['"  "', 30, '  '],
    ['"0.5"', 0.5, '0.5'],
  ])('a 429 with Retry-After %s waits %ss, then posts exactly once', async (_, seconds, header) => {
    const { web, time, refusals } = client();
    api.script('chat.postMessage', throttled429(header));
    const result = await web.chat.postMessage({ channel: 'C1', text: 'hi' });
    expect(result.ok).toBe(true);
    expect(api.posts()).toHaveLength(1);
    expect(api.calls.filter((c) => c.method === 'chat.postMessage')).toHaveLength(2);
    expect(time.slept.reduce((a, b) => a + b, 0)).toBeCloseTo(seconds * 1000, 0);
    expect(refusals).toEqual([expect.objectContaining({ method: 'chat.postMessage', status: 429, waited: seconds, instance: 'test' })]);
    // HTTP trims header values, so "  " arrives as "".
    expect(refusals[0]!.headers['retry-after']).toBe(header === undefined ? null : header.trim());
  });

  it('an absurd window (86400) is clamped to 600 s, and past the budget the call fails with the window', async () => {
    const { web, refusals } = client({ budgetMs: 120_000 });
    api.script('chat.postMessage', throttled429('86400'));
    const failure = web.chat.postMessage({ channel: 'C1', text: 'hi' });
    await expect(failure).rejects.toThrow(/still rate limited after 1 attempt\(s\); last window 600s/);
    await expect(failure).rejects.toMatchObject({ original: { code: 'autohub_rate_limit_exhausted', lastWindowSeconds: 600 } });
    expect(api.posts()).toHaveLength(0);
    expect(refusals).toEqual([expect.objectContaining({ waited: null })]);
  });

  it('an HTTP 200 "ratelimited" is the same event: it waits and posts once', async () => {
    const { web, time, refusals } = client();
    api.script('chat.postMessage', throttled200);
    await web.chat.postMessage({ channel: 'C1', text: 'hi' });
    expect(api.posts()).toHaveLength(1);
    expect(time.slept).toEqual([4000]);
    expect(refusals[0]).toMatchObject({ status: 200, body: { ok: false, error: 'ratelimited' }, waited: 4 });
  });

  it('a refusal that is not a rate limit is not retried', async () => {
    const { web, refusals } = client();
    api.script('chat.postMessage', { status: 200, body: { ok: false, error: 'not_in_channel' } });
    await expect(web.chat.postMessage({ channel: 'C1', text: 'hi' })).rejects.toThrow(/not_in_channel/);
    expect(api.calls).toHaveLength(1);
    expect(refusals).toHaveLength(0);
  });

  it('gives up after the attempts run out, with a coded error carrying the last window', async () => {
    const { web, refusals } = client({ maxAttempts: 3 });
    api.script('chat.postMessage', throttled429('2'), throttled429('2'), throttled429('5'));
    await expect(web.chat.postMessage({ channel: 'C1', text: 'hi' })).rejects.toMatchObject({
      original: { code: 'autohub_rate_limit_exhausted', lastWindowSeconds: 5, attempts: 3 },
    });
    expect(refusals.map((r) => r.waited)).toEqual([2, 2, null]);
  });

  it('while a window is closed, calls of that method queue for it and other methods go on', async () => {
    const { web, time } = client();
    api.script('chat.postMessage', throttled429('10'));
    const first = web.chat.postMessage({ channel: 'C1', text: 'a' });
    // Refused, and its wait for the window begun: from here chat.postMessage waits (its window, then its pace), users.list does not.
    await eventually(() => time.slept.length === 1, 'the first post to be refused and wait for its window');
    const t0 = time.now();
    const other = await web.users.list({ limit: 1 });
    expect(other.ok).toBe(true);
    expect(time.now()).toBe(t0);
    await Promise.all([first, web.chat.postMessage({ channel: 'C1', text: 'b' }), web.chat.postMessage({ channel: 'C1', text: 'c' })]);
    expect(api.posts()).toHaveLength(3);
    const posts = api.calls.filter((c) => c.method === 'chat.postMessage');
    expect(posts.filter((c) => c.refused)).toHaveLength(1);
  });

  it('after a refusal, closed() holds while calls are paced and the next slot is taken, and lifts once the pace has passed', async () => {
    // A stream writer asks closed() before chat.startStream: a paced method looks open by its window alone,
    // and every reply would then queue behind Tier 2 instead of going out as a post.
    const time = virtualTime();
    const fetch = createRateLimitFetch({ now: time.now, sleep: time.sleep });
    const web = new WebClient('xoxb-test', { slackApiUrl: api.url, retryConfig: { retries: 0 }, fetch, logger: slackLogger(silentLogger) });
    expect(fetch.closed('chat.postMessage')).toBe(false);
    api.script('chat.postMessage', throttled429('1'));
    await web.chat.postMessage({ channel: 'C1', text: 'a' });
    // The window has passed (the post went out at its reopening), but the next call must wait for the pace.
    expect(fetch.closed('chat.postMessage')).toBe(true);
    time.advance(1100);
    expect(fetch.closed('chat.postMessage')).toBe(false);
    expect(fetch.closed('chat.startStream')).toBe(false);
  });

  it('a window closed by one copy is honoured by the other through the shared store', async () => {
    const time = virtualTime();
    const shared = new MemoryStore({ now: time.now }).windows;
    const make = (instance: string) =>
      new WebClient('xoxb-test', {
        slackApiUrl: api.url,
        retryConfig: { retries: 0 },
        fetch: createRateLimitFetch({ now: time.now, sleep: time.sleep, shared, instance }),
      });
    const hub = make('hub');
    const cloud = make('cloud');
    api.script('chat.postMessage', throttled429('20'));
    await hub.chat.postMessage({ channel: 'C1', text: 'a' });
    // The hub's window has passed on its own clock; rewind to just after the refusal for the cloud copy.
    const refusalAt = api.calls.find((c) => c.refused)!.at;
    expect(refusalAt).toBeGreaterThan(0);
    const before = time.slept.length;
    time.advance(-20_000);
    await cloud.chat.postMessage({ channel: 'C1', text: 'b' });
    expect(time.slept.length).toBe(before + 1);
    expect(time.slept.at(-1)).toBeGreaterThan(19_000);
    expect(api.calls.filter((c) => c.refused)).toHaveLength(1);
  });

  it("chat.postMessage has a window per channel: one channel's refusal does not hold posts to another", async () => {
    const { web, time } = client();
    api.script('chat.postMessage', throttled429('20'));
    await web.chat.postMessage({ channel: 'C1', text: 'a' });
    const waited = time.slept.length;
    // C1's window is closed for 20 s on this clock; C2's is not.
    await web.chat.postMessage({ channel: 'C2', text: 'b' });
    expect(time.slept.length).toBe(waited);
    expect(api.posts().map((c) => c.params.channel)).toEqual(['C1', 'C2']);
  });

  it('a post whose connection fails is not sent again', async () => {
    let sent = 0;
    const counting: typeof fetch = (input, init) => {
      sent += 1;
      return fetch(input, init);
    };
    const dead = new WebClient('xoxb-test', {
      slackApiUrl: 'http://127.0.0.1:9/api/',
      retryConfig: { retries: 0 },
      fetch: createRateLimitFetch({ fetch: counting }),
    });
    await expect(dead.chat.postMessage({ channel: 'C1', text: 'x' })).rejects.toThrow();
    expect(sent).toBe(1);
  });
});

describe('the stock WebClient on the same fake, recorded for the README', () => {
  const api = useFakeWebApi();

  const stock = () => new WebClient('xoxb-test', { slackApiUrl: api.url, retryConfig: { retries: 2 }, logger: slackLogger(silentLogger) });

  it('gives up at once on a 429 with no Retry-After: no retry, no post', async () => {
    api.script('chat.postMessage', throttled429());
    await expect(stock().chat.postMessage({ channel: 'C1', text: 'x' })).rejects.toThrow(/Retry header did not contain a valid timeout/);
    expect(api.posts()).toHaveLength(0);
  });

  it('throws on an HTTP 200 "ratelimited" without waiting or retrying', async () => {
    api.calls.length = 0;
    api.script('chat.postMessage', throttled200);
    await expect(stock().chat.postMessage({ channel: 'C1', text: 'x' })).rejects.toThrow(/ratelimited/);
    expect(api.calls).toHaveLength(1);
  });
});

describe('windows shared through the store, read from claim replies', () => {
  const fx = useRedisBridge();
  const api = useFakeWebApi();
  const copy = () => {
    const store = new UpstashStore({ settings: { url: fx.bridge.url, token: fx.bridge.token }, reporter: () => {} });
    const web = new WebClient('xoxb-shared', { slackApiUrl: api.url, retryConfig: { retries: 0 }, fetch: createRateLimitFetch({ shared: store.windows }) });
    return { store, web };
  };

  it('a window one copy was refused is honoured by the other after its next claim, with no store read per call', async () => {
    const a = copy();
    const b = copy();
    api.script('chat.postMessage', { status: 429, body: { ok: false, error: 'ratelimited' }, headers: { 'retry-after': '1' } });
    expect((await a.web.chat.postMessage({ channel: 'C1', text: 'a' })).ok).toBe(true);
    const refusedAt = api.calls.find((c) => c.refused)!.at;
    // B learns the window in the reply to a claim it makes anyway.
    await b.store.claim([`autohub:claim:T1:event:shared-${process.pid}`], { instance: 'b', role: 'cloud' });
    const commandsBefore = fx.bridge.commands;
    expect((await b.web.chat.postMessage({ channel: 'C1', text: 'b' })).ok).toBe(true);
    expect(fx.bridge.commands).toBe(commandsBefore);
    const bPost = api.posts().find((c) => c.params.text === 'b')!;
    expect(bPost.at).toBeGreaterThanOrEqual(refusedAt + 1000 - 5);
  });

  it('a hung store costs the rate-limit layer nothing: posts go on with the local window', async () => {
    const { web } = copy();
    fx.bridge.mode = 'hang';
    try {
      const before = fx.bridge.requests;
      expect((await web.chat.postMessage({ channel: 'C1', text: 'c' })).ok).toBe(true);
      expect(fx.bridge.requests).toBe(before);
    } finally {
      fx.bridge.mode = 'normal';
    }
  });
});
