/**
 * What a claim's lease request carries: the delivery's conversation only
 * when the bot's turns wait their turn (any concurrency but `parallel`), and
 * only for a message to the bot. Pure.
 */
import { describe, expect, it } from 'vitest';
import { conversationOf } from '../../lib/conversation/index.js';
import { leaseRequest } from '../../lib/delivery/lease-request.js';

const mention = { team_id: 'T1', event_id: 'Ev1', event: { type: 'app_mention', channel: 'C1', ts: '1700000000.000200', thread_ts: '1700000000.000100' } };
const reaction = { team_id: 'T1', event_id: 'Ev2', event: { type: 'reaction_added', item: { channel: 'C1', ts: '1700000000.000100' } } };

describe('a claim’s lease request', () => {
  // The bug this catches: a claim that takes no place lets a follow-up claimed after it on the other copy be answered first.
  it('carries the thread of a message to the bot when turns wait their turn, so the claim takes its place there', () => {
    expect(leaseRequest(2000, mention, 'Ev1', { ordered: true })?.conversation).toBe(conversationOf(mention));
    expect(conversationOf(mention)).toBe('T1:C1:1700000000.000100');
  });

  it('carries none with concurrency parallel (no order is kept), nor for an event that is no message to the bot', () => {
    expect(leaseRequest(2000, mention, 'Ev1')).not.toHaveProperty('conversation');
    expect(leaseRequest(2000, reaction, 'Ev2', { ordered: true })).not.toHaveProperty('conversation');
  });
});
