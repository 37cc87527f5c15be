/** The drill's scorer: each mention's end, from its replies and the dead letters (drill/score.ts). */
import { describe, expect, it } from 'vitest';
import { scoreScenario, type Reply } from '../../drill/score.js';

const reply = (mention: string): Reply => ({ mention, at: 1, by: 'hub' });

describe("the drill's scorer", () => {
  it('a mention answered and dead-lettered too is counted: two ends for one mention (before: unseen, the scenario passed)', () => {
    const score = scoreScenario(['1.1', '1.2'], [], [reply('1.1'), reply('1.2')], { dead: new Set(['1.2']) });
    expect(score.answeredThenDead).toBe(1);
    expect(score.answeredThenDeadMentions).toEqual(['1.2']);
    expect(score.lost).toBe(0);
  });

  it('a mention meant to end dead (a bot that hangs on it) is ended by its dead letter, lost without one, and not answered either way', () => {
    const expectedDead = new Set(['1.2', '1.3']);
    const score = scoreScenario(['1.1', '1.2', '1.3'], [], [reply('1.1')], { dead: new Set(['1.2']), expectedDead });
    expect(score.lostMentions).toEqual(['1.3']);
    expect(score.answered).toBe(1);
    expect(score.answeredThenDead).toBe(0);
  });

  it('a dead letter of a mention not meant to end dead is still lost', () => {
    expect(scoreScenario(['1.1'], [], [], { dead: new Set(['1.1']) }).lost).toBe(1);
  });
});
