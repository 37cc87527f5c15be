export { answerThenLinger, LINGER_MAX_BYTES, LINGER_MS } from './linger.js';
export { HEADERS_TIMEOUT_MS, MIN_BODY_BYTES_PER_S, serverOptions, serverTimeouts } from './server-timeouts.js';
export type { ServerTimeouts } from './server-timeouts.js';
export { failRequest, guardedListener, guardRequests } from './guard.js';
export type { RequestListener } from './guard.js';
