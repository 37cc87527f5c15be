/**
 * A script's KEYS and ARGV are named once (lib/store/script.ts): the Lua's
 * header of locals and the caller's layout come from the same lists, so a
 * value lands where the Lua reads it by that name.
 */
import { describe, expect, it } from 'vitest';
import { defineScript } from '../../lib/store/script.js';
import * as S from '../../lib/store/scripts.js';
import { KEEP_SCRIPT, STATS_SCRIPT, TAKE_SCRIPT } from '../../lib/inbox/index.js';

const lock = defineScript({
  keys: ['lock', 'order'],
  restKeys: 'aliases',
  args: { holder: 'string', ttl: 'number' },
  restArgs: 'extra',
  body: 'return 1',
});

describe('a script declared once', () => {
  it('opens its Lua with a local per key and argument, numbers through tonumber, rests from their index', () => {
    expect(lock.source).toBe(
      [
        'local lock = KEYS[1]',
        'local order = KEYS[2]',
        'local aliasesFrom = 3',
        'local holder = ARGV[1]',
        'local ttl = tonumber(ARGV[2])',
        'local extraFrom = 3',
        'return 1',
      ].join('\n'),
    );
  });

  it('lays out values given by name in the order the header reads them, however the caller wrote them', () => {
    const call = lock.layout({ args: { ttl: 30, holder: 'h' }, keys: { order: 'k:order', lock: 'k:lock' }, restKeys: ['a1', 'a2'], restArgs: ['x'] });
    expect(call).toEqual({ keys: ['k:lock', 'k:order', 'a1', 'a2'], args: ['h', 30, 'x'] });
  });

  it('refuses a name the Lua cannot read, or one used twice', () => {
    expect(() => defineScript({ keys: ['claim-key'], args: {}, body: '' })).toThrow(/not a Lua identifier/);
    expect(() => defineScript({ keys: ['ttl'], args: { ttl: 'number' }, body: '' })).toThrow(/"ttl" is declared twice/);
  });

  const all = Object.entries({ ...S, KEEP_SCRIPT, TAKE_SCRIPT, STATS_SCRIPT });
  it.each(all)('%s reads no KEYS[n] or ARGV[n] past its header', (_name, script) => {
    const body = script.source.split('\n').filter((line) => !/^local \w+ = (tonumber\()?(KEYS|ARGV)\[\d+\]\)?$/.test(line));
    expect(body.join('\n')).not.toMatch(/(KEYS|ARGV)\[\d+\]/);
  });
});
