/**
 * Slack's v0 request signature, on Web Crypto so that the receiver (Node) and
 * the edge (Workers) share one implementation.
 *
 *   X-Slack-Signature: v0=hex(HMAC-SHA256(secret, "v0:" + timestamp + ":" + body))
 *
 * Requests more than five minutes away from `now`, in either direction, are
 * refused: Bolt's own helper lets future timestamps through.
 */
export const MAX_SKEW_SECONDS = 5 * 60;

export type SignatureCheck = { ok: true } | { ok: false; reason: 'missing' | 'malformed' | 'stale' | 'future' | 'mismatch' };

const encoder = new TextEncoder();
const keys = new Map<string, Promise<CryptoKey>>();

function hmacKey(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    if (keys.size > 8) keys.clear();
    keys.set(secret, key);
  }
  return key;
}

function toHex(bytes: ArrayBuffer): string {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, '0')).join('');
}

function basestring(timestamp: string, body: Uint8Array): Uint8Array<ArrayBuffer> {
  const prefix = encoder.encode(`v0:${timestamp}:`);
  const out = new Uint8Array(prefix.length + body.length);
  out.set(prefix, 0);
  out.set(body, prefix.length);
  return out;
}

/** HMAC-SHA256 of `data` under `secret`, as lowercase hex. */
export type HmacHex = (secret: string, data: Uint8Array) => string | Promise<string>;

/** Web Crypto (Workers and Node alike). In Node it runs on the thread pool, so the receiver passes node:crypto's instead. */
export const webCryptoHmac: HmacHex = async (secret, data) => toHex(await crypto.subtle.sign('HMAC', await hmacKey(secret), data as Uint8Array<ArrayBuffer>));

export async function computeSignature(secret: string, timestamp: string, body: Uint8Array, hmac: HmacHex = webCryptoHmac): Promise<string> {
  return `v0=${await hmac(secret, basestring(timestamp, body))}`;
}

/** Constant-time comparison of two strings of hex. */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

export interface SignatureInput {
  signingSecret: string;
  /** `X-Slack-Request-Timestamp`, as received. */
  timestamp: string | null | undefined;
  /** `X-Slack-Signature`, as received. */
  signature: string | null | undefined;
  body: Uint8Array;
  /** Milliseconds since the epoch. */
  now: number;
  /** @default webCryptoHmac */
  hmac?: HmacHex;
}

export async function checkSignature(input: SignatureInput): Promise<SignatureCheck> {
  const { timestamp, signature } = input;
  if (!timestamp || !signature) return { ok: false, reason: 'missing' };
  if (!/^\d{1,12}$/.test(timestamp) || !/^v0=[0-9a-f]{64}$/.test(signature)) return { ok: false, reason: 'malformed' };
  const skew = Math.floor(input.now / 1000) - Number(timestamp);
  if (skew > MAX_SKEW_SECONDS) return { ok: false, reason: 'stale' };
  if (skew < -MAX_SKEW_SECONDS) return { ok: false, reason: 'future' };
  const expected = await computeSignature(input.signingSecret, timestamp, input.body, input.hmac);
  return sameText(expected, signature) ? { ok: true } : { ok: false, reason: 'mismatch' };
}

/** Headers that sign `body` as Slack would at `now` (for the drill, verify and tests). */
export async function signedHeaders(signingSecret: string, body: string | Uint8Array, now: number): Promise<Record<string, string>> {
  const bytes = typeof body === 'string' ? encoder.encode(body) : body;
  const timestamp = String(Math.floor(now / 1000));
  return {
    'x-slack-request-timestamp': timestamp,
    'x-slack-signature': await computeSignature(signingSecret, timestamp, bytes),
  };
}
