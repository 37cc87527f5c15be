/**
 * Telling the owner, the one place every owner notice goes through: a DM to
 * each AUTOHUB_OWNER and, with AUTOHUB_ALERT_URL, a JSON POST there too
 * (lib/alert: queued, never awaited here, so a hanging webhook delays
 * nothing; it needs neither the bot token nor Slack). Of a dead letter at
 * most once (only the copy whose store call made the turn dead gets here),
 * and of the faults only the owner can fix (lib/notice decides when). A DM
 * refused cleanly (Slack down, a spent rate-limit budget) is tried again a
 * few times; one that may have landed (a reset, a timeout) is not, so no
 * owner gets two.
 */
import type { WebClient } from '@slack/web-api';
import pRetry from 'p-retry';
import type { AlertSender } from '../../lib/alert/index.js';
import type { Logger } from '../../lib/log/index.js';
import { classifyTurnFailure } from '../../lib/errors/index.js';
import type { DeadTurn } from '../../lib/lease/index.js';

export function deadLetterText(dead: DeadTurn): string {
  const where = dead.channel ? `<#${dead.channel}>` : 'a conversation';
  return [
    `:warning: autohub could not answer a message in ${where} after ${dead.attempts} run(s): ${dead.reason}.`,
    `Replay it with \`npm run deadletter -- replay ${dead.eventId}\`, or drop it with \`npm run deadletter -- drop ${dead.eventId}\`.`,
  ].join('\n');
}

/** 2 s, 6 s, 18 s: within half a minute of the dead letter, or not at all. */
const ANNOUNCE_RETRY = { retries: 3, minTimeout: 2_000, factor: 3, randomize: false } as const;

/** How the owners are told: built once per copy (app/create-app.ts), handed to whatever tells them. */
export interface OwnerLine {
  /**
   * One DM to each owner (logs `events.sent` or `events.failed` per owner) and the alert URL's POST
   * (queued: not awaited); resolves when the DMs are done, never throws. `cause` names what for the alert.
   */
  tell(text: string, cause: string, events: { sent: string; failed: string }, fields: Record<string, unknown>): Promise<void>;
}

export function ownerLine(client: WebClient, owners: readonly string[], log: Logger, alert?: AlertSender | undefined): OwnerLine {
  return {
    tell: (text, cause, events, fields) => {
      alert?.send(text, cause);
      return dmOwners(client, owners, text, log, events, fields);
    },
  };
}

async function dmOwners(
  client: WebClient,
  owners: readonly string[],
  text: string,
  log: Logger,
  events: { sent: string; failed: string },
  fields: Record<string, unknown>,
): Promise<void> {
  await Promise.all(
    owners.map((owner) =>
      pRetry(() => client.chat.postMessage({ channel: owner, text }), {
        ...ANNOUNCE_RETRY,
        shouldRetry: ({ error }) => {
          const failure = classifyTurnFailure(error);
          return failure.kind === 'transient' && !failure.ambiguous;
        },
      }).then(
        () => log.info(events.sent, { owner, ...fields }),
        (error: unknown) => log.warn(events.failed, { owner, ...fields, error }),
      ),
    ),
  );
}

export function announceDeadLetter(line: OwnerLine, dead: DeadTurn): Promise<void> {
  return line.tell(deadLetterText(dead), 'dead_letter', { sent: 'dead_letter.announced', failed: 'dead_letter.announce_failed' }, { eventId: dead.eventId });
}

/** An owner notice (lib/notice): `owner.notice_sent` per owner, or `owner.notice_dm_failed`. */
export function announceNotice(line: OwnerLine, text: string, cause: string): Promise<void> {
  return line.tell(text, cause, { sent: 'owner.notice_sent', failed: 'owner.notice_dm_failed' }, { cause });
}
