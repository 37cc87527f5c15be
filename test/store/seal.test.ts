import { describe, expect, it } from 'vitest';
import { createSealer, deriveStoreKey } from '../../lib/store/index.js';

const key = Buffer.alloc(32, 7);
const other = Buffer.alloc(32, 9);

describe('sealing stored bodies', () => {
  it('opens what it sealed, and the sealed text shows nothing of the message', () => {
    const s = createSealer(key);
    const sealed = s.seal('{"text":"the marker word"}');
    expect(sealed).not.toContain('marker');
    expect(sealed).toMatch(/^s1\./);
    expect(s.open(sealed)).toBe('{"text":"the marker word"}');
  });

  it('seals the same text differently every time (a fresh IV)', () => {
    const s = createSealer(key);
    expect(s.seal('x')).not.toBe(s.seal('x'));
  });

  it('a tampered value or a value under an unknown key does not open', () => {
    const sealed = createSealer(key).seal('hello');
    const parts = sealed.split('.');
    const flipped = Buffer.from(parts[3]!, 'base64url');
    flipped[0]! ^= 1;
    expect(createSealer(key).open([...parts.slice(0, 3), flipped.toString('base64url')].join('.'))).toBeUndefined();
    expect(createSealer(other).open(sealed)).toBeUndefined();
    expect(createSealer(key).open('{"clear":"json"}')).toBeUndefined();
  });

  it('after a rotation the previous key still opens what it sealed', () => {
    const before = createSealer(key).seal('in flight');
    expect(createSealer(other, [key]).open(before)).toBe('in flight');
  });

  it('the derived key is 32 bytes, the same for the same secret, and differs with it', () => {
    expect(deriveStoreKey('a')).toHaveLength(32);
    expect(deriveStoreKey('a').equals(deriveStoreKey('a'))).toBe(true);
    expect(deriveStoreKey('a').equals(deriveStoreKey('b'))).toBe(false);
  });
});
