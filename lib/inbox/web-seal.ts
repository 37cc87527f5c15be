/**
 * The store's seal (lib/store/seal.ts) in WebCrypto, for the Worker, which
 * has no `node:crypto`: the same key derivation (HKDF-SHA256 of the signing
 * secret, salt "autohub", info "autohub store key v1"), the same key id and
 * the same format (`s1.<key id>.<iv>.<ciphertext + tag>`, AAD the key id), so
 * what the edge seals a copy opens with its own sealer, and the reverse.
 */

const PREFIX = 's1';
const enc = new TextEncoder();

function base64url(bytes: Uint8Array): string {
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64url(text: string): Uint8Array<ArrayBuffer> {
  const bin = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** AUTOHUB_STORE_KEY's forms (64 hex digits or base64 of 32 bytes), as lib/config reads them; undefined for anything else. */
export function parseStoreKey(text: string): Uint8Array<ArrayBuffer> | undefined {
  const t = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(t)) return Uint8Array.from(t.match(/../g)!.map((h) => Number.parseInt(h, 16)));
  try {
    const bytes = fromBase64url(t.replace(/=+$/, ''));
    return bytes.length === 32 ? bytes : undefined;
  } catch {
    return undefined;
  }
}

/** The key the copies derive from the signing secret when AUTOHUB_STORE_KEY is unset. */
export async function deriveStoreKeyWeb(signingSecret: string): Promise<Uint8Array<ArrayBuffer>> {
  const base = await crypto.subtle.importKey('raw', enc.encode(signingSecret), 'HKDF', false, ['deriveBits']);
  const bits = await crypto.subtle.deriveBits(
    { name: 'HKDF', hash: 'SHA-256', salt: enc.encode('autohub'), info: enc.encode('autohub store key v1') },
    base,
    256,
  );
  return new Uint8Array(bits);
}

export interface WebSealer {
  /** The key's id, as seal.ts's storeKeyId names it (written in every sealed value). */
  readonly id: string;
  seal(plain: string): Promise<string>;
  /** The plain text, or undefined when this key does not open it or it was tampered with. */
  open(sealed: string): Promise<string | undefined>;
}

export async function createWebSealer(key: Uint8Array<ArrayBuffer>): Promise<WebSealer> {
  if (key.length !== 32) throw new RangeError('a store key is 32 bytes');
  const id = base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', key))).slice(0, 8);
  const aes = await crypto.subtle.importKey('raw', key, 'AES-GCM', false, ['encrypt', 'decrypt']);
  const aad = enc.encode(id);
  return {
    id,
    async seal(plain) {
      const iv = crypto.getRandomValues(new Uint8Array(12));
      // WebCrypto appends the 16-byte tag to the ciphertext, as seal.ts writes it.
      const body = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: aad }, aes, enc.encode(plain)));
      return `${PREFIX}.${id}.${base64url(iv)}.${base64url(body)}`;
    },
    async open(sealed) {
      const [prefix, keyId, iv, body] = sealed.split('.');
      if (prefix !== PREFIX || keyId !== id || !iv || !body) return undefined;
      try {
        const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: fromBase64url(iv), additionalData: aad }, aes, fromBase64url(body));
        return new TextDecoder().decode(plain);
      } catch {
        return undefined;
      }
    },
  };
}
