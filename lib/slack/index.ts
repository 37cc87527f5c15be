export { checkSignature, computeSignature, signedHeaders, webCryptoHmac, MAX_SKEW_SECONDS } from './signature.js';
export type { HmacHex, SignatureCheck, SignatureInput } from './signature.js';
export { parseRetryHeaders } from './retry-headers.js';
export type { RetryInfo } from './retry-headers.js';
export { COMMAND_SCOPE, EVENT_SCOPES, METHOD_SCOPES } from './scopes.js';
