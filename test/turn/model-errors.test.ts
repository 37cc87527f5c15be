/**
 * A turn that throws what a model SDK throws is retried, not
 * dead-lettered, and the error's own `retry-after` is the least wait before
 * the next run. Before, a 529 became a dead letter after one run.
 */
import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { RetryableError } from '../../lib/errors/index.js';
import { MemoryStore } from '../../lib/store/index.js';
import { RETRYING_NOTE } from '../../lib/turn/handle.js';
import type { TakeTurn } from '../../lib/bot/index.js';
import { eventually, repliesTo, SECRET } from '../support/copies.js';
import { useCopy, useFakeWebApi } from '../support/fixtures.js';

describe('model SDK errors in a turn', () => {
  const store = new MemoryStore();
  const throwing = new Map<string, () => unknown>();
  const turn: TakeTurn = (request) => {
    const thrower = throwing.get(request.eventId);
    if (thrower) throw thrower();
    return 'fine';
  };
  const api = useFakeWebApi();
  const copy = useCopy({ role: 'hub', api, store, turn, env: { AUTOHUB_OWNER: 'U0OWNER' } });

  const failed = (eventId: string) => copy.lines.find((l) => l.event === 'turn.failed' && l.eventId === eventId);
  let n = 0;
  const ask = async (eventId: string) =>
    deliver(copy.eventsUrl, mentionEnvelope({ eventId, ts: `1700019000.${String(++n).padStart(6, '0')}` }), { signingSecret: SECRET });

  it.each([
    [
      "Anthropic's OverloadedError (529) with retry-after: 7",
      () =>
        Anthropic.APIError.generate(
          529,
          { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
          'Overloaded',
          new Headers({ 'retry-after': '7' }),
        ),
      7_000,
    ],
    ['a RetryableError with retryAfterMs 30 s', () => new RetryableError('the index is rebuilding', { retryAfterMs: 30_000 }), 30_000],
  ])('%s: handed back for a retry no sooner than it asks', async (_name, thrower, least) => {
    const eventId = `Ev-model-${n + 1}`;
    throwing.set(eventId, thrower);
    await ask(eventId);
    await eventually(() => failed(eventId) !== undefined, 'the failure');
    expect(failed(eventId)).toMatchObject({ failure: 'transient', outcome: 'retry' });
    expect(Number(failed(eventId)!.retryInMs)).toBeGreaterThanOrEqual(least);
    expect(await store.listDead(10)).toEqual([]);
    // Retried for long (30 s or more away): the person hears so, once, in a note that is not the reply.
    if (least >= 30_000) {
      await eventually(
        () => api.posts().some((p) => p.params.text === RETRYING_NOTE && JSON.parse(p.params.metadata ?? '{}').event_payload?.event_id === eventId),
        'the note',
      );
      expect(repliesTo(api, eventId)).toHaveLength(0);
    }
  });

  it('a bug (a TypeError) is still a dead letter at once', async () => {
    const eventId = `Ev-model-${n + 1}`;
    throwing.set(eventId, () => new TypeError('cannot read properties of undefined'));
    await ask(eventId);
    await eventually(() => failed(eventId) !== undefined, 'the failure');
    expect(failed(eventId)).toMatchObject({ failure: 'permanent', outcome: 'dead' });
  });
});
