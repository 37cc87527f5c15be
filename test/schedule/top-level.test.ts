/**
 * A schedule's answer is posted at the top level, so a taker-over (its owner
 * died after posting, before finishing the turn) reads the channel since the
 * slot, not a thread: it finds the answer by its metadata and does not post it again.
 */
import { describe, expect, it } from 'vitest';
import { checkTopLevel } from '../../lib/turn/thread.js';
import { partMetadata } from '../../lib/turn/parts.js';

const EVENT = 'Ev-schedule-brief-2026-12-06T08:00:00.000Z';

function slack(o: { history: Record<string, unknown[]>; ims?: Array<{ id: string; user: string }> }) {
  const asked: Array<{ method: string; params: Record<string, unknown> }> = [];
  const client = {
    conversations: {
      history: async (params: Record<string, unknown>) => {
        asked.push({ method: 'conversations.history', params });
        const messages = o.history[String(params.channel)];
        if (!messages) throw new Error('channel_not_found');
        return { ok: true, messages, has_more: false };
      },
    },
    users: {
      conversations: async (params: Record<string, unknown>) => {
        asked.push({ method: 'users.conversations', params });
        return { ok: true, channels: o.ims ?? [], response_metadata: { next_cursor: '' } };
      },
    },
  };
  return { client: client as never, asked };
}

describe('a top-level answer found by a taker-over', () => {
  it('is found in the channel since the slot by its metadata, not taken from another turn', async () => {
    const { client, asked } = slack({
      history: {
        C1: [
          { ts: '1765008000.000300', text: 'someone else' },
          { ts: '1765008000.000200', text: 'another slot', metadata: partMetadata('Ev-schedule-brief-2026-12-05T08:00:00.000Z', 0, true) },
          { ts: '1765008000.000100', text: 'the brief', metadata: partMetadata(EVENT, 0, true) },
        ],
      },
    });
    expect(await checkTopLevel(client, { channel: 'C1', threadTs: '', eventId: EVENT }, '1765008000.000000')).toEqual({ reply: '1765008000.000100' });
    expect(asked[0]).toMatchObject({ method: 'conversations.history', params: { channel: 'C1', oldest: '1765008000.000000', include_all_metadata: true } });
  });

  it('gives back the parts of an unfinished answer, in order, to complete', async () => {
    const { client } = slack({
      history: {
        C1: [
          { ts: '2.0', metadata: partMetadata(EVENT, 1, false) },
          { ts: '1.0', metadata: partMetadata(EVENT, 0, false) },
        ],
      },
    });
    expect(await checkTopLevel(client, { channel: 'C1', threadTs: '', eventId: EVENT }, '0.0')).toEqual({ parts: ['1.0', '2.0'] });
  });

  it("reads a DM schedule's answer in the bot's DM with the person, and finds nothing when there is no DM yet", async () => {
    const { client } = slack({ history: { D9: [{ ts: '1.0', metadata: partMetadata(EVENT, 0, true) }] }, ims: [{ id: 'D9', user: 'U7' }] });
    expect(await checkTopLevel(client, { channel: 'U7', threadTs: '', eventId: EVENT }, '0.0')).toEqual({ reply: '1.0' });
    expect(await checkTopLevel(client, { channel: 'U8', threadTs: '', eventId: EVENT }, '0.0')).toEqual({});
  });
});
