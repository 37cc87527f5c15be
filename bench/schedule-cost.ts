/**
 * Part of section `cost`: what a schedule costs the store (counted at the REST
 * bridge, as Upstash bills it). Three pairs of copies on stores of their own,
 * looks pushed out of the window (AUTOHUB_REAPER_MS) so only the firings count:
 *   - neither copy has the schedule (the baseline);
 *   - only the hub has it: each firing is its turn, the turn's own commands;
 *   - both have it (the deployment): the hub's turn, and the cloud copy's try of
 *     the same slot after its grace, found taken.
 * Per firing: (hub only - baseline) / firings is the turn's own; (both - hub only) / firings
 * is what the schedule costs beyond it; between firings a schedule sends nothing.
 */
import { fileURLToPath } from 'node:url';
import { startFakeWebApi, type FakeWebApi } from '../drill/sim/fake-web-api.js';
import { startRedis } from '../drill/sim/redis-server.js';
import { startUpstashBridge } from '../drill/sim/upstash-bridge.js';
import { copyEnv, startBenchCopy } from './children.js';
import { fmt } from './stats.js';

const BOT = fileURLToPath(new URL('./scheduled-bot.mjs', import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function pairCost(api: FakeWebApi, schedules: { hub: boolean; cloud: boolean }, tickMs: number, windowMs: number) {
  const redis = await startRedis();
  const bridge = await startUpstashBridge({ redisPort: redis.port });
  const extra = (on: boolean) => ({
    AUTOHUB_REAPER_MS: '600000',
    AUTOHUB_SCHEDULE_GRACE_MS: String(Math.floor(tickMs / 4)),
    AUTOHUB_BENCH_TICK_MS: String(tickMs),
    ...(on ? { AUTOHUB_TURN: BOT } : {}),
  });
  const hub = await startBenchCopy(copyEnv('hub', api, bridge, extra(schedules.hub)));
  const cloud = await startBenchCopy(copyEnv('cloud', api, bridge, extra(schedules.cloud)));
  // Start-up (a ping, a first look, the missed slot's try) is not a firing's cost.
  await sleep(2 * tickMs);
  const posts = () => api.posts().filter((c) => c.params.channel === 'CBENCH').length;
  const [commands, posted] = [bridge.commands, posts()];
  await sleep(windowMs);
  const spent = bridge.commands - commands;
  const fired = posts() - posted;
  await Promise.all([hub.stop(), cloud.stop()]);
  await bridge.close();
  await redis.stop();
  return { spent, fired };
}

/** Rows for the cost section: commands a firing, the turn's own and beyond it. */
export async function scheduleCost(o: { tickMs?: number; windowMs?: number } = {}): Promise<string[][]> {
  const tickMs = o.tickMs ?? 2000;
  const windowMs = o.windowMs ?? 20 * tickMs;
  const api = await startFakeWebApi();
  const none = await pairCost(api, { hub: false, cloud: false }, tickMs, windowMs);
  const hubOnly = await pairCost(api, { hub: true, cloud: false }, tickMs, windowMs);
  const both = await pairCost(api, { hub: true, cloud: true }, tickMs, windowMs);
  await api.close();
  const own = (hubOnly.spent - none.spent) / Math.max(1, hubOnly.fired);
  const beyond = (both.spent - none.spent) / Math.max(1, both.fired) - own;
  return [
    ['no schedule (baseline, looks pushed out)', String(none.spent), '-', '-'],
    ['the hub alone has it: each firing its turn', String(hubOnly.spent), String(hubOnly.fired), fmt(own, 2)],
    ['both copies have it (deployed): the cloud copy tries each slot after its grace', String(both.spent), String(both.fired), fmt(own + beyond, 2)],
    ["beyond the turn's own, a firing (aim: at most 1)", '-', '-', fmt(beyond, 2)],
  ];
}
