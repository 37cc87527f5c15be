export { checkSignature, computeSignature, signedHeaders, webCryptoHmac, MAX_SKEW_SECONDS } from './signature.js';
export type { HmacHex, SignatureCheck, SignatureInput } from './signature.js';
export { parseDelivery, PROBE_EVENT_TYPE } from './delivery.js';
export type { Delivery } from './delivery.js';
export { parseRetryHeaders } from './retry-headers.js';
export type { RetryInfo } from './retry-headers.js';
