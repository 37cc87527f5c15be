/**
 * Other apps' messages (issue 45, item 3): before, every @mention was a turn whoever wrote it,
 * so two agents that mention each other looped until a rate limit.
 */
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../lib/store/index.js';
import { authorOf, BOT_LOOP, BotLoops, isTurnOf, loopVerdict, parseAllowBots } from '../../lib/turn/bots.js';

const me = { appId: 'A0AUTOHUB', botId: 'BAUTOHUB', botUserId: 'UAUTOHUB' };
const other = { user: 'U0OTHERBOT', bot_id: 'B0OTHER', app_id: 'A0OTHER' };

describe('who wrote a message', () => {
  it.each([
    ['a person', { user: 'U0PERSON' }, { kind: 'person' }],
    ['another app (bot_id and app_id)', other, { kind: 'bot', botId: 'B0OTHER' }],
    ['another app known only by its bot_profile', { user: 'U0OTHERBOT', bot_profile: { id: 'B0OTHER', app_id: 'A0OTHER' } }, { kind: 'bot', botId: 'B0OTHER' }],
    ['a bot_message with no bot_id (an incoming webhook)', { subtype: 'bot_message' }, { kind: 'bot', botId: undefined }],
    ['this app, by its app_id', { bot_id: 'B0SOMEOTHERID', app_id: 'A0AUTOHUB' }, { kind: 'self' }],
    ['this app, by its bot_id', { bot_id: 'BAUTOHUB' }, { kind: 'self' }],
    ['this app, by its bot user', { user: 'UAUTOHUB' }, { kind: 'self' }],
  ])('%s', (_name, event, author) => {
    expect(authorOf(event, me)).toEqual(author);
  });

  it("a person's message is a turn, this app's never, another app's only when listed (or with *)", () => {
    expect(isTurnOf({ kind: 'person' }, new Set())).toBe(true);
    expect(isTurnOf({ kind: 'self' }, '*')).toBe(false);
    expect(isTurnOf({ kind: 'bot', botId: 'B0OTHER' }, new Set())).toBe(false);
    expect(isTurnOf({ kind: 'bot', botId: 'B0OTHER' }, new Set(['B0OTHER']))).toBe(true);
    expect(isTurnOf({ kind: 'bot', botId: 'B0THIRD' }, new Set(['B0OTHER']))).toBe(false);
    expect(isTurnOf({ kind: 'bot', botId: undefined }, new Set(['B0OTHER']))).toBe(false);
    expect(isTurnOf({ kind: 'bot', botId: undefined }, '*')).toBe(true);
  });

  it('AUTOHUB_ALLOW_BOTS: unset or blank is none, * is all, bot ids are a set, anything else names the bad part', () => {
    expect(parseAllowBots(undefined)).toEqual(new Set());
    expect(parseAllowBots(' ')).toEqual(new Set());
    expect(parseAllowBots('*')).toBe('*');
    expect(parseAllowBots('B0OTHER, B0TWO')).toEqual(new Set(['B0OTHER', 'B0TWO']));
    expect(parseAllowBots('B0OTHER,U0PERSON')).toEqual({ bad: 'U0PERSON' });
    expect(parseAllowBots('B0OTHER,')).toEqual({ bad: 'B0OTHER,' });
  });
});

describe('a loop of bots in one thread', () => {
  it('answered up to the bound, one note past it, then nothing; a store that does not answer lets the message be answered', () => {
    expect(loopVerdict(1, 3)).toBe('answer');
    expect(loopVerdict(3, 3)).toBe('answer');
    expect(loopVerdict(4, 3)).toBe('note');
    expect(loopVerdict(5, 3)).toBe('quiet');
    expect(loopVerdict(undefined, 3)).toBe('answer');
  });

  it('is counted per thread, a redelivered message once, and starts afresh when its window lapses', async () => {
    let now = 1_700_000_000_000;
    const loops = new BotLoops({ store: new MemoryStore({ now: () => now }) });
    const at = (threadTs: string, ts: string) => loops.verdict({ team: 'T1', channel: 'C1', threadTs, ts });
    const verdicts: string[] = [];
    for (let i = 1; i <= BOT_LOOP.turns + 2; i++) verdicts.push(await at('1.0', `1.${i}`));
    expect(verdicts).toEqual([...Array(BOT_LOOP.turns).fill('answer'), 'note', 'quiet']);
    // The same message again (its other event id, a retry): not one more.
    expect(await at('1.0', '1.1')).toBe('quiet');
    // Another thread is its own count.
    expect(await at('2.0', '2.1')).toBe('answer');
    now += BOT_LOOP.windowSeconds * 1000;
    expect(await at('1.0', '1.99')).toBe('answer');
  });
});
