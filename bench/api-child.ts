/**
 * The fake Web API in its own process, so neither server under a bench shares a core's time with it.
 * IPC: `{hold: ms}`, `held`; `mark` -> `{mark}` (calls so far); `{seen: [thread ts], from: mark}` ->
 * `{seen: [[ts, Seen]]}` (bench/visible.ts), over the calls since the mark.
 * With `{slowMs}` as its argument, a delay proxy in front of it too (bench/delay-proxy.ts): `slowUrl`,
 * the same API that far away. Calls are timed on a clock of fractions of a ms since the epoch
 * (`performance.timeOrigin + performance.now()`), which the bench's process reads alike.
 */
import { startFakeWebApi } from '../drill/sim/fake-web-api.js';
import { startDelayProxy } from './delay-proxy.js';
import { seenByThread } from './visible.js';

const { slowMs } = JSON.parse(process.argv[2] ?? '{}') as { slowMs?: number };
const api = await startFakeWebApi({ now: () => performance.timeOrigin + performance.now() });
const port = Number(new URL(api.url).port);
const slow = slowMs ? await startDelayProxy({ targetPort: port, roundTripMs: slowMs }) : undefined;
type Message = { hold?: number; seen?: string[]; from?: number } | string;
process.on('message', (message: Message) => {
  if (typeof message === 'object' && message.hold !== undefined) api.holdPosts(message.hold);
  if (typeof message === 'object' && message.seen !== undefined) {
    process.send?.({ seen: [...seenByThread(api.calls.slice(message.from ?? 0), message.seen)] });
  }
  if (message === 'held') process.send?.({ held: api.held });
  if (message === 'mark') process.send?.({ mark: api.calls.length });
});
process.send?.({ url: api.url, ...(slow ? { slowUrl: api.url.replace(`:${port}/`, `:${slow.port}/`) } : {}) });
process.on('SIGTERM', () => void Promise.all([api.close(), slow?.close()]).then(() => process.exit(0)));
