import { describe, expect, it } from 'vitest';
import { stripMention } from '../../lib/turn/mention.js';

describe("stripMention: the bot's own mention leaves the text, nothing else does", () => {
  it.each([
    ['a leading mention is removed', '<@U0BOT> what is the weather', 'what is the weather'],
    ['the named form <@ID|name> is removed', '<@U0BOT|autohub> hello', 'hello'],
    ['a mention mid-sentence leaves one space', 'hey <@U0BOT> can you help', 'hey can you help'],
    ['a trailing mention is removed', 'thanks <@U0BOT>', 'thanks'],
    ['every mention of the bot goes', '<@U0BOT> ping <@U0BOT|bot>', 'ping'],
    ["another person's mention is kept", '<@U0BOT> ask <@U0ALICE> about it', 'ask <@U0ALICE> about it'],
    ["a mention of a user whose id starts with the bot's is kept", '<@U0BOTX> hi', '<@U0BOTX> hi'],
    ['a bare mention leaves nothing', '  <@U0BOT>  ', ''],
    ['text without a mention is only trimmed', '  plain words ', 'plain words'],
    ['a multi-line message keeps its lines', '<@U0BOT>\nline one\nline two', 'line one\nline two'],
  ])('%s', (_title, text, expected) => {
    expect(stripMention(text, 'U0BOT')).toBe(expected);
  });

  it('without a bot id the text is only trimmed (no mention can be told apart)', () => {
    expect(stripMention(' <@U0BOT> hi ', undefined)).toBe('<@U0BOT> hi');
  });
});
