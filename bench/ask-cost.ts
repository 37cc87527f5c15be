/**
 * Part of section `cost`: what ctx.ask costs the store (counted at the REST bridge, as Upstash bills it). One
 * pair of copies on a store of its own, looks pushed out of the window (AUTOHUB_REAPER_MS), the deadline watch's
 * gap short (AUTOHUB_ASK_WATCH_MS, `gapMs`) so a window holds many of its reads:
 *   - idle, no question parked: what the deadline watch costs a bot that never asks (lazy: nothing);
 *   - a mention whose turn parks on a question: its claim, step and park;
 *   - the parked turn waiting: the asking copy's watch reads every gap (the other copy knows of none);
 *   - the click, to the copy that did not ask: the resumed run, to its answer;
 *   - after the answer, until the question's deadline: the asking copy does not know it was answered elsewhere.
 */
import { fileURLToPath } from 'node:url';
import { startFakeWebApi } from '../drill/sim/fake-web-api.js';
import { startRedis } from '../drill/sim/redis-server.js';
import { startUpstashBridge } from '../drill/sim/upstash-bridge.js';
import { deliver, mentionEnvelope } from '../drill/sim/slack-events.js';
import { clickForm } from '../drill/sim/ask-click.js';
import { BENCH_SECRET, copyEnv, startBenchCopy } from './children.js';
import { fmt } from './stats.js';

const BOT = fileURLToPath(new URL('./asking-bot.mjs', import.meta.url));
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const DAY_MS = 24 * 3_600_000;
/** The deadline watch's default gap (AUTOHUB_ASK_WATCH_MS). */
const DEFAULT_GAP_MS = 600_000;

async function until(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`bench ask: ${what} not seen within ${ms} ms`);
    await sleep(50);
  }
}

/** Rows for the cost section: commands in each phase of a parked turn's life, and per day at the defaults. */
export async function askCost(o: { gapMs?: number; windowMs?: number } = {}): Promise<string[][]> {
  const gapMs = o.gapMs ?? 500;
  const windowMs = o.windowMs ?? 10_000;
  const api = await startFakeWebApi();
  const redis = await startRedis();
  const bridge = await startUpstashBridge({ redisPort: redis.port });
  // The question times out well after the windows below (the wait, and the tail after the answer).
  const extra = { AUTOHUB_REAPER_MS: '600000', AUTOHUB_ASK_WATCH_MS: String(gapMs), AUTOHUB_TURN: BOT, AUTOHUB_BENCH_ASK_MS: String(3 * windowMs) };
  const hub = await startBenchCopy(copyEnv('hub', api, bridge, extra));
  const cloud = await startBenchCopy(copyEnv('cloud', api, bridge, extra));
  await sleep(1000);
  const phase = async (run: () => Promise<void>) => {
    const before = bridge.commands;
    await run();
    return bridge.commands - before;
  };
  const idle = await phase(() => sleep(windowMs));
  const ts = `${Math.floor(Date.now() / 1000)}.000100`;
  const question = () => api.posts().find((c) => c.params.thread_ts === ts && (c.params.blocks ?? '').includes('autohub_ask:'));
  const park = await phase(async () => {
    await deliver(`${hub.url}/slack/events`, mentionEnvelope({ eventId: 'Ev-bench-ask', ts }), { signingSecret: BENCH_SECRET });
    await until(() => question() !== undefined, 'the question');
    await sleep(500);
  });
  const waiting = await phase(() => sleep(windowMs));
  const q = question()!;
  const button = (JSON.parse(q.params.blocks ?? '[]') as Array<{ elements?: Array<{ action_id: string; value: string }> }>)[1]!.elements![0]!;
  const answered = () => api.posts().some((c) => c.params.thread_ts === ts && c.params.text === 'Deploy v2.');
  const resume = await phase(async () => {
    const form = clickForm({
      triggerId: 'trig-bench-ask',
      user: 'U0PERSON',
      channel: q.params.channel ?? 'C0GENERAL',
      messageTs: (q.answer as { ts: string }).ts,
      threadTs: ts,
      actionId: button.action_id,
      value: button.value,
    });
    await deliver(`${cloud.url}/slack/events`, form, { signingSecret: BENCH_SECRET });
    await until(answered, 'the resumed answer');
    await sleep(500);
  });
  const tail = await phase(() => sleep(windowMs));
  await Promise.all([hub.stop(), cloud.stop()]);
  await bridge.close();
  await redis.stop();
  await api.close();
  const perDay = (commands: number) => fmt((commands / windowMs) * gapMs * (DAY_MS / DEFAULT_GAP_MS), 0);
  return [
    ['idle pair, no question parked (the watch, lazy)', fmt(idle, 0), `${windowMs / 1000} s`, perDay(idle)],
    ['a mention whose turn parks on its question (claim, step, park)', fmt(park, 0), 'once', '-'],
    ['the turn parked: the asking copy reads the deadlines every gap', fmt(waiting, 0), `${windowMs / 1000} s`, perDay(waiting)],
    ['the click, to the other copy: the resumed run to its answer', fmt(resume, 0), 'once', '-'],
    ['after the answer, until its deadline: the asker still watches it', fmt(tail, 0), `${windowMs / 1000} s`, perDay(tail)],
  ];
}
