/** examples/approval.ts: loaded as `npm start` loads it, it proposes, asks, and acts once, only on a yes. */
import { describe, expect, it } from 'vitest';
import { loadTurnModule } from '../../app/turn-module.js';
import type { AskAnswer } from '../../lib/ask/index.js';
import type { TurnRequest } from '../../lib/bot/index.js';

const request = (text: string): TurnRequest => ({
  text,
  user: 'U0OWNER',
  channel: 'C1',
  threadTs: '1.1',
  ts: '1.1',
  eventId: 'Ev-approval',
  via: 'mention',
  late: false,
  files: [],
  copy: { role: 'hub', instance: 'hub-test' },
});

/** A ctx whose ask answers `answer` and records the question; each step runs and is counted by name. */
function ctxAnswering(answer: AskAnswer) {
  const steps: string[] = [];
  const asked: unknown[] = [];
  const ctx = {
    step: async (name: string, fn: (run: { idempotencyKey: string }) => unknown) => {
      steps.push(name);
      return fn({ idempotencyKey: `key-${name}-0123456789` });
    },
    ask: async (question: unknown) => {
      asked.push(question);
      return answer;
    },
  } as never;
  return { ctx, steps, asked };
}

describe('examples/approval.ts', () => {
  it('asks before it acts, and acts once on "Go ahead"', async () => {
    const { takeTurn } = await loadTurnModule('examples/approval.ts');
    const yes = ctxAnswering({ choice: 'Go ahead', user: 'U0OWNER' });
    expect(await takeTurn(request('restart billing'), yes.ctx)).toBe('Done: restart of billing started (key-act-), approved by <@U0OWNER>.');
    expect(yes.asked).toEqual([{ text: 'I would *restart* `billing`. Go ahead?', choices: ['Go ahead', 'Cancel'], timeoutMs: 1_800_000 }]);
    expect(yes.steps).toEqual(['propose', 'act']);
  });

  it('does nothing on Cancel or no answer, and asks nothing of a request it cannot read', async () => {
    const { takeTurn } = await loadTurnModule('examples/approval.ts');
    const no = ctxAnswering({ choice: 'Cancel', user: 'U0OWNER' });
    expect(await takeTurn(request('restart billing'), no.ctx)).toBe('Cancelled by <@U0OWNER>: I did nothing.');
    expect(no.steps).toEqual(['propose']);
    const late = ctxAnswering({ timedOut: true });
    expect(await takeTurn(request('restart billing'), late.ctx)).toBe('No answer within 30 minutes: I did nothing.');
    expect(late.steps).toEqual(['propose']);
    const vague = ctxAnswering({ timedOut: true });
    expect(await takeTurn(request('hello'), vague.ctx)).toMatch(/^Tell me what to do/);
    expect(vague.asked).toEqual([]);
  });
});
