/** A scenario's copies that fail to start are started once more: CI's loaded cores stopped a whole scenario (sent 0 of 12). */
import { describe, expect, it } from 'vitest';
import { startOnce } from '../../drill/drill.js';

describe('startOnce', () => {
  it('starts again after a first failure, and says why', async () => {
    const said: unknown[] = [];
    let tries = 0;
    const started = await startOnce(
      async () => {
        tries += 1;
        if (tries === 1) throw new Error('a copy did not become healthy within 60 s');
        return 'harness';
      },
      (error) => said.push(error),
    );
    expect(started).toBe('harness');
    expect(tries).toBe(2);
    expect(said).toEqual([new Error('a copy did not become healthy within 60 s')]);
  });

  it('gives the second failure to its caller (the scenario stops with why): it does not try forever', async () => {
    let tries = 0;
    const start = startOnce(
      async () => {
        tries += 1;
        throw new Error(`start ${tries} failed`);
      },
      () => {},
    );
    await expect(start).rejects.toThrow('start 2 failed');
    expect(tries).toBe(2);
  });
});
