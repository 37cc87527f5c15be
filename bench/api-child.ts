/** The fake Web API in its own process, so neither server under a bench shares a core's time with it. IPC: `{hold: ms}`, `held`. */
import { startFakeWebApi } from '../drill/sim/fake-web-api.js';

const api = await startFakeWebApi();
process.on('message', (message: { hold?: number } | string) => {
  if (typeof message === 'object' && message.hold !== undefined) api.holdPosts(message.hold);
  if (message === 'held') process.send?.({ held: api.held });
});
process.send?.({ url: api.url });
process.on('SIGTERM', () => void api.close().then(() => process.exit(0)));
