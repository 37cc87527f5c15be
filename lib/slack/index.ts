export { checkSignature, computeSignature, signedHeaders, webCryptoHmac, MAX_SKEW_SECONDS } from './signature.js';
export type { HmacHex, SignatureCheck, SignatureInput } from './signature.js';
export { parseRetryHeaders } from './retry-headers.js';
export { isSslCheck } from './ssl-check.js';
export type { RetryInfo } from './retry-headers.js';
export { COMMAND_SCOPE, EVENT_SCOPES, METHOD_SCOPES } from './scopes.js';
export { EVENTS_PATH, HEALTH_PATH } from './routes.js';
