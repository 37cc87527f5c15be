/**
 * The drill's `conversation` figures (drill/score.ts): a follow-up answered
 * before the answer before it was whole is out of order, a task left
 * pending or in progress is spinning, and either fails the scenario.
 */
import { describe, expect, it } from 'vitest';
import { failed, notes } from '../../drill/report-table.js';
import { countOutOfOrder, countSpinning } from '../../drill/score.js';
import { scenarioResult } from '../support/drill-result.js';

describe("the drill's conversation figures", () => {
  const pairs = [
    { earlier: 'Ev-a', later: 'Ev-a-follow' },
    { earlier: 'Ev-b', later: 'Ev-b-follow' },
    { earlier: 'Ev-c', later: 'Ev-c-follow' },
  ];
  const spans = new Map([
    ['Ev-a', { first: 100, last: 900 }],
    // Began after the answer before it was whole: in order.
    ['Ev-a-follow', { first: 950, last: 1200 }],
    ['Ev-b', { first: 100, last: 900 }],
    // Began while the answer before it was still being written (a takeover's rewrite at 900 included): out of order.
    ['Ev-b-follow', { first: 500, last: 600 }],
    // Ev-c-follow never answered: counted as lost elsewhere, not here.
    ['Ev-c', { first: 100, last: 200 }],
  ]);

  it('counts a follow-up whose first write came before the last write of the answer before it', () => {
    expect(countOutOfOrder(pairs, spans)).toBe(1);
  });

  it('counts every task still pending or in progress, in every message', () => {
    const task = (status: string) => ({ status });
    const streams = [
      {
        tasks: new Map([
          ['a', task('complete')],
          ['b', task('in_progress')],
        ]),
      },
      {
        tasks: new Map([
          ['c', task('pending')],
          ['d', task('error')],
        ]),
      },
      { tasks: new Map() },
    ];
    expect(countSpinning(streams)).toBe(2);
  });

  it('a follow-up out of order or a task spinning fails the scenario, and says so under the table', () => {
    expect(failed(scenarioResult('clean', { outOfOrder: 0, spinningTasks: 0 }))).toBe(false);
    const ooo = scenarioResult('ooo', { outOfOrder: 1, spinningTasks: 0 });
    const spin = scenarioResult('spin', { outOfOrder: 0, spinningTasks: 2 });
    expect(failed(ooo)).toBe(true);
    expect(failed(spin)).toBe(true);
    expect(notes([ooo, spin])).toEqual([expect.stringMatching(/^out of order: ooo: 1 follow-ups/), expect.stringMatching(/^spinning: spin: 2 tasks/)]);
  });
});
