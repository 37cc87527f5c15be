/**
 * With the in-process store (no Upstash), a retry waiting for its time lived
 * only in the process: SIGTERM dropped it without a word (no journal line,
 * `inFlight: 0`), an acked mention lost. Now the stopping copy journals every
 * unfinished turn, and the next start (a new process: a new, empty store)
 * answers it once.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { eventually, repliesTo, SECRET, startCopy } from '../support/copies.js';
import { useFakeWebApi } from '../support/fixtures.js';

describe('SIGTERM with the in-process store and a retry pending', () => {
  const api = useFakeWebApi();

  it('the pending retry is journaled at the stop, and the next start answers it once', async () => {
    const journal = join(mkdtempSync(join(tmpdir(), 'autohub-memory-journal-')), 'journal.jsonl');
    // A retry 60 s away: the stop comes long before it.
    const env = { AUTOHUB_JOURNAL: journal, AUTOHUB_TURN_RETRY_DELAY_MS: '60000' };
    const first = await startCopy({ role: 'hub', webApiUrl: api.url, env });
    expect(first.store.kind).toBe('memory');
    api.script('chat.startStream', { status: 500, body: { ok: false, error: 'internal_error' } });
    await deliver(first.eventsUrl, mentionEnvelope({ eventId: 'Ev-mem-retry', ts: '1700016000.000001' }), { signingSecret: SECRET });
    await eventually(() => first.lines.some((l) => l.event === 'turn.failed' && l.outcome === 'retry'), 'the turn failing for a passing reason');
    await first.stop();

    expect(first.lines.filter((l) => l.event === 'turn.journaled')).toEqual([expect.objectContaining({ eventId: 'Ev-mem-retry', state: 'retry' })]);
    expect(first.lines.some((l) => l.event === 'turn.dropped_at_shutdown')).toBe(false);
    expect(readFileSync(journal, 'utf8').trim().split('\n')).toHaveLength(1);
    expect(repliesTo(api, 'Ev-mem-retry')).toHaveLength(0);

    const next = await startCopy({ role: 'hub', webApiUrl: api.url, env });
    try {
      await eventually(() => repliesTo(api, 'Ev-mem-retry').length === 1, 'the journaled turn answered', 10_000);
      await eventually(() => next.lines.some((l) => l.event === 'journal.drained'), 'the journal drained');
      expect(existsSync(journal)).toBe(false);
    } finally {
      await next.stop();
    }
    expect(repliesTo(api, 'Ev-mem-retry')).toHaveLength(1);
    // Answered: nothing is left for a third start.
    expect(next.lines.some((l) => l.event === 'turn.journaled')).toBe(false);
  });
});
