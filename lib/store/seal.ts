/**
 * Sealing what the store keeps of a message (a live turn's body, a dead
 * letter's): AES-256-GCM under a key both copies share, so the database, a
 * backup of it or anyone reading it over Upstash's console never sees a
 * message in clear.
 *
 * The key is AUTOHUB_STORE_KEY (32 bytes, hex or base64), or one derived
 * from the signing secret with HKDF-SHA256 when that is unset. A sealed value
 * names its key by a short id, so a previous key
 * (AUTOHUB_STORE_KEY_PREVIOUS) still opens what was sealed before a rotation.
 *
 * Format: `s1.<key id>.<iv>.<ciphertext + tag>`, base64url parts.
 */
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

export interface Sealer {
  seal(plain: string): string;
  /** The plain text, or undefined when no key here opens it or it was tampered with. */
  open(sealed: string): string | undefined;
}

const PREFIX = 's1';

/**
 * A store key's id: 8 characters of its SHA-256, written in every sealed value (so it reveals nothing a
 * sealed value does not). The health bodies show it, so `npm run verify` can tell the edge and the copies
 * seal with one key without either showing the key.
 */
export function storeKeyId(key: Buffer): string {
  return keyId(key);
}

function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('base64url').slice(0, 8);
}

/** The store key derived from the signing secret, when AUTOHUB_STORE_KEY is unset. */
export function deriveStoreKey(signingSecret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', signingSecret, 'autohub', 'autohub store key v1', 32));
}

/** Whether a stored value is sealed (else it is JSON written in clear by an older copy). */
export function isSealed(value: string): boolean {
  return value.startsWith(`${PREFIX}.`);
}

export function createSealer(current: Buffer, previous: readonly Buffer[] = []): Sealer {
  if (current.length !== 32) throw new RangeError('a store key is 32 bytes');
  const keys = new Map([current, ...previous].map((k) => [keyId(k), k]));
  const currentId = keyId(current);
  return {
    seal(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', current, iv);
      // The key id is authenticated too: a value cannot be moved under another key's name.
      cipher.setAAD(Buffer.from(currentId));
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return `${PREFIX}.${currentId}.${iv.toString('base64url')}.${body.toString('base64url')}`;
    },
    open(sealed) {
      const [prefix, id, iv, body] = sealed.split('.');
      const key = id === undefined ? undefined : keys.get(id);
      if (prefix !== PREFIX || !key || !iv || !body) return undefined;
      try {
        const data = Buffer.from(body, 'base64url');
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
        decipher.setAAD(Buffer.from(id!));
        decipher.setAuthTag(data.subarray(data.length - 16));
        return Buffer.concat([decipher.update(data.subarray(0, data.length - 16)), decipher.final()]).toString('utf8');
      } catch {
        return undefined;
      }
    },
  };
}
