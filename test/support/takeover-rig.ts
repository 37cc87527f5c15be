/**
 * The rig for tests where the hub dies mid-turn: a fake Web API, the cloud
 * copy in this process on a real Redis (short leases), and the hub as a child
 * process the test can kill, freeze or restart; killed after each test.
 */
import { afterEach, expect } from 'vitest';
import type { FakeWebApi, ScriptedAnswer } from '../../drill/sim/fake-web-api.js';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import type { TurnModule } from '../../lib/bot/index.js';
import { SHORT_LEASE, spawnHub, type ChildApp } from './child-app.js';
import { eventually, SECRET, type RunningCopy } from './copies.js';
import { useCopy, useFakeWebApi } from './fixtures.js';
import { useRedisBridge, type RedisFixture } from './redis-fixture.js';

export interface TakeoverRig {
  readonly fx: RedisFixture;
  readonly api: FakeWebApi;
  readonly cloud: RunningCopy;
  /** The hub as a child process, on the same store and Web API; killed after the test. */
  startHub(env?: Record<string, string>): Promise<ChildApp>;
  /**
   * A fresh hub claims and acks a mention, and is mid-turn: the fake Web API answers the turn's `method`
   * as `answer` says (a slow auth.test: still thinking; a 429 on chat.startStream: waiting out a window),
   * and has been asked.
   */
  hubMidTurn(o: { eventId: string; ts?: string; method: string; answer: ScriptedAnswer }): Promise<ChildApp>;
}

/** The hub sits in its turn's first Slack call (auth.test) for `ms` before it can reply. */
export const slowAuth = (ms: number): ScriptedAnswer => ({ status: 200, delayMs: ms, body: { ok: true, user_id: 'UAUTOHUB', bot_id: 'BAUTOHUB' } });

export function useTakeoverRig(options: { afterEach?: (api: FakeWebApi) => void; turn?: () => Promise<TurnModule> } = {}): TakeoverRig {
  const fx = useRedisBridge();
  const api = useFakeWebApi();
  const cloud = useCopy({ role: 'cloud', api, redis: fx, env: SHORT_LEASE, ...(options.turn ? { loadTurn: options.turn } : {}) });
  let hub: ChildApp | undefined;
  let n = 0;
  const startHub = async (env: Record<string, string> = {}) => {
    hub = await spawnHub({ webApiUrl: api.url, upstash: fx.bridge, secret: SECRET }, env);
    return hub;
  };
  afterEach(() => {
    hub?.child.kill('SIGKILL');
    hub = undefined;
    options.afterEach?.(api);
  });
  return {
    fx,
    api,
    cloud,
    startHub,
    hubMidTurn: async ({ eventId, ts = `1700000100.${String(++n).padStart(6, '0')}`, method, answer }) => {
      const started = await startHub();
      api.script(method, answer);
      const asked = () => api.calls.filter((c) => c.method === method).length;
      const before = asked();
      const ack = await deliver(`${started.url}/slack/events`, mentionEnvelope({ eventId, ts }), { signingSecret: SECRET });
      expect(ack.status).toBe(200);
      expect(ack.headers.get('x-autohub-claim')).toBe('claimed');
      await eventually(() => asked() > before, `the hub to be mid-turn (${method} asked)`);
      return started;
    },
  };
}
