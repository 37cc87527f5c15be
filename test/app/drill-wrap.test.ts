/** The drill's text within a terminal's 100 columns: cut with …, or broken at spaces. */
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { clip, wrap } from '../../drill/wrap.js';

describe('clip', () => {
  it('keeps what fits, and ends what does not with …', () => {
    expect(clip('steady', 6)).toBe('steady');
    expect(clip('steady', 5)).toBe('stea…');
  });
});

describe('wrap', () => {
  it('breaks at spaces and indents what follows', () => {
    expect(wrap('one two three four', 9)).toEqual(['one two', '  three', '  four']);
  });

  test.prop([fc.array(fc.stringMatching(/^[a-z]{0,40}$/), { maxLength: 40 }), fc.integer({ min: 10, max: 120 })])(
    'no line is wider than asked, and no word is lost that fits a line',
    (words, width) => {
      const lines = wrap(words.join(' '), width);
      for (const line of lines) expect(line.length).toBeLessThanOrEqual(width);
      expect(lines.join(' ').split(/ +/).filter(Boolean)).toEqual(words.filter(Boolean).map((w) => (w.length > width - 2 ? expect.any(String) : w)));
    },
  );
});
