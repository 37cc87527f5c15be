/**
 * A private redis-server and the Upstash REST bridge in their own process, so a bench's client CPU is its own.
 * With `{slowMs}` as its argument, a delay proxy in front of the bridge too (bench/delay-proxy.ts): `slowUrl`,
 * the same store that far away. IPC `trace` starts a record of what reaches the store (`ping` -> `{pong}` once it has), `untrace` sends it back
 * and stops: `{trace: {requests: [at], commands: [[at, name and first key]]}}`, each at in ms since the epoch with fractions.
 */
import { startRedis } from '../drill/sim/redis-server.js';
import { startUpstashBridge } from '../drill/sim/upstash-bridge.js';
import { startDelayProxy } from './delay-proxy.js';

const { slowMs } = JSON.parse(process.argv[2] ?? '{}') as { slowMs?: number };
const redis = await startRedis();
const bridge = await startUpstashBridge({ redisPort: redis.port });
const clock = () => performance.timeOrigin + performance.now();
let trace: { requests: number[]; commands: Array<[number, string]> } | undefined;
const slow = slowMs
  ? await startDelayProxy({ targetPort: Number(new URL(bridge.url).port), roundTripMs: slowMs, onRequest: () => trace?.requests.push(clock()) })
  : undefined;
/** A command as the trace names it: its name and first key, a turn's own ids left out (`evalsha autohub:claim:T0AUTOHUB:event:<id>`). */
const label = (command: readonly (string | number)[]) => {
  const name = String(command[0]).toLowerCase();
  const key = name === 'eval' || name === 'evalsha' ? (Number(command[2]) > 0 ? command[3] : undefined) : command[1];
  return key === undefined
    ? name
    : `${name} ${String(key)
        .replace(/Ev-[\w-]+/g, '<id>')
        .replace(/\d+\.\d+/g, '<ts>')}`;
};
bridge.onCommand = (command) => trace?.commands.push([clock(), label(command)]);
process.on('message', (message) => {
  if (message === 'trace') trace = { requests: [], commands: [] };
  if (message === 'ping') process.send?.({ pong: true });
  if (message === 'untrace') {
    process.send?.({ trace });
    trace = undefined;
  }
});
process.send?.({ url: bridge.url, token: bridge.token, ...(slow ? { slowUrl: `http://127.0.0.1:${slow.port}` } : {}) });
process.on('SIGTERM', () => void Promise.all([bridge.close(), redis.stop(), slow?.close()]).then(() => process.exit(0)));
