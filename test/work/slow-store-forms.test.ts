/**
 * A store a little slower than the claim's fuse (every round trip 500 ms
 * against 450 ms), and one slash command delivered to both copies (issue 43,
 * break 3). Each claim fails open, and lands. Before, a command had a claim
 * and nothing after it: both copies ran its listener, posting twice and
 * answering twice. Now a command whose claim failed open is acked at once and
 * asks its claim once before its listener runs: the copy whose claim it was
 * runs it, the other stands down, and the answer goes to its response_url.
 */
import { describe, expect, it } from 'vitest';
import { eventually, quiescent } from '../support/copies.js';
import { deployBot, sendDeploy } from '../support/deploy-bot.js';
import { useCopy, useFakeWebApi, useResponseUrl } from '../support/fixtures.js';
import { useRedisBridge } from '../support/redis-fixture.js';

describe('every store round trip takes 500 ms, just past the claim fuse: a command sent to both copies', () => {
  const fx = useRedisBridge();
  const api = useFakeWebApi();
  const bot = deployBot({ post: true });
  const hub = useCopy({ role: 'hub', api, redis: fx, turn: bot.turn });
  const cloud = useCopy({ role: 'cloud', api, redis: fx, turn: bot.turn });
  const hook = useResponseUrl();
  const answers = () => hook.posts;

  const send = (url: string, triggerId: string, text: string) => sendDeploy(url, { triggerId, text, responseUrl: hook.url });
  const said = (text: string) => api.posts().filter((c) => c.params.text === text);

  it('runs on one copy only: posted once, answered once (before: posted 2, answered 2)', async () => {
    // Warm: each copy runs one command at full speed, so Redis knows the scripts by their SHA first.
    for (const [copy, i] of [
      [hub, 0],
      [cloud, 1],
    ] as const) {
      expect((await send(copy.eventsUrl, `trig-warm-${i}`, `warm${i}`)).status).toBe(200);
    }
    await eventually(() => bot.runs.length === 2, 'the warm-up runs');
    fx.bridge.delayMs = 500;
    try {
      const acks = await Promise.all([send(hub.eventsUrl, 'trig-slow-deploy', 'prod'), send(cloud.eventsUrl, 'trig-slow-deploy', 'prod')]);
      for (const ack of acks) {
        expect(ack.status).toBe(200);
        expect(ack.headers.get('x-autohub-claim')).toBe('fail-open');
      }
      await eventually(() => answers().some((a) => a.text === 'deployed prod'), 'the answer at its response_url', 20_000);
      await quiescent([hub, cloud], 15_000);
    } finally {
      fx.bridge.delayMs = 0;
    }
    expect(said('deploying prod')).toHaveLength(1);
    expect(answers().filter((a) => a.text === 'deployed prod')).toHaveLength(1);
    const lines = [...hub.lines, ...cloud.lines];
    expect(lines.filter((l) => l.event === 'claim.not_ours' && l.kind === 'command')).toHaveLength(1);
  });
});
