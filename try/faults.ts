/**
 * The faults `npm run try -- --fail NAME` stages while one message is
 * answered: each happens while the turn is in flight (or, for hub-down,
 * before it reaches the edge), and the person still gets one answer.
 */
import type { Conversation, Said } from './conversation.js';

export const TRY_FAULTS = ['hub-dies', 'hub-down', 'ratelimited', 'store-hangs'] as const;
export type TryFault = (typeof TRY_FAULTS)[number];

/** How long the bot's first write is held in Slack, so a fault can land mid-turn whatever the bot's speed. */
const HOLD_MS = 1500;

/** Until `check` holds, polling; throws `what` after `timeoutMs`. */
async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export interface StagedFault {
  /** Before the message is sent. */
  before(c: Conversation): void;
  /** While it is answered; resolves with what happened, in a few words. */
  during(c: Conversation, said: Said): Promise<string>;
}

const REFUSED = { status: 429, body: { ok: false, error: 'ratelimited' }, headers: { 'retry-after': '1' } };
const FIRST_WRITES = ['chat.postMessage', 'chat.startStream'];

export const STAGED: Record<TryFault, StagedFault> = {
  'hub-dies': {
    before: (c) => c.h.api.holdPosts(HOLD_MS),
    during: async (c) => {
      // The hub has the turn and its first write is on the way: killed now, that write never lands.
      await until(() => c.h.api.held > 0, 'the hub did not start writing');
      await c.h.hub.kill();
      c.h.api.holdPosts(0);
      return 'the hub was killed (SIGKILL) mid-turn, its first write in flight';
    },
  },
  'hub-down': {
    before: (c) => void (c.h.hubTunnel.mode = 'cut'),
    during: async () => "the hub's tunnel answers 530 (the Mac is off)",
  },
  ratelimited: {
    before: (c) => {
      for (const method of FIRST_WRITES) c.h.api.fail(method, REFUSED);
    },
    during: async (c, said) => {
      // Slack refuses the turn's first write with 429 and Retry-After: 1; then lets writes through again.
      try {
        await until(() => c.h.api.calls.some((call) => call.refused && call.at >= said.sentAt), 'the bot wrote nothing');
      } finally {
        for (const method of FIRST_WRITES) c.h.api.fail(method, null);
      }
      return "Slack refused the bot's first write (429, Retry-After: 1 s)";
    },
  },
  'store-hangs': {
    before: (c) => c.h.api.holdPosts(HOLD_MS),
    during: async (c) => {
      await until(() => c.h.api.held > 0, 'the bot did not start writing');
      c.h.api.holdPosts(0);
      c.h.hangStore(true);
      await new Promise((r) => setTimeout(r, HOLD_MS));
      c.h.hangStore(false);
      return `the claim store stopped answering for ${HOLD_MS / 1000} s mid-turn`;
    },
  },
};
