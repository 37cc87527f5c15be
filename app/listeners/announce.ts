/**
 * Telling the owner of a dead letter, once: only the copy whose store call
 * made the turn dead gets here, and a failed DM is not tried again.
 */
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../../lib/log/index.js';
import type { DeadTurn } from '../../lib/receiver/index.js';

export function deadLetterText(dead: DeadTurn): string {
  const where = dead.channel ? `<#${dead.channel}>` : 'a conversation';
  return [
    `:warning: autohub could not answer a message in ${where} after ${dead.attempts} run(s): ${dead.reason}.`,
    `Replay it with \`npm run deadletter -- replay ${dead.eventId}\`, or drop it with \`npm run deadletter -- drop ${dead.eventId}\`.`,
  ].join('\n');
}

export async function announceDeadLetter(client: WebClient, owners: readonly string[], dead: DeadTurn, log: Logger): Promise<void> {
  await Promise.all(
    owners.map((owner) =>
      client.chat.postMessage({ channel: owner, text: deadLetterText(dead) }).then(
        () => log.info('dead_letter.announced', { owner, eventId: dead.eventId }),
        (error: unknown) => log.warn('dead_letter.announce_failed', { owner, eventId: dead.eventId, error }),
      ),
    ),
  );
}
