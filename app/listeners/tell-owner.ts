/**
 * Telling the owner of a leg that keeps failing, or has recovered: a DM to
 * each AUTOHUB_OWNER, retried as a dead letter's announcement is (a refusal
 * that cannot have landed only), so nobody gets two.
 */
import type { WebClient } from '@slack/web-api';
import pRetry from 'p-retry';
import type { Logger } from '../../lib/log/index.js';
import { classifyTurnFailure } from '../../lib/receiver/index.js';

/** 2 s, 6 s, 18 s, as announce.ts. */
const TELL_RETRY = { retries: 3, minTimeout: 2_000, factor: 3, randomize: false } as const;

export async function tellOwners(client: WebClient, owners: readonly string[], text: string, log: Logger, what: Record<string, unknown>): Promise<void> {
  await Promise.all(
    owners.map((owner) =>
      pRetry(() => client.chat.postMessage({ channel: owner, text }), {
        ...TELL_RETRY,
        shouldRetry: ({ error }) => {
          const failure = classifyTurnFailure(error);
          return failure.kind === 'transient' && !failure.ambiguous;
        },
      }).then(
        () => log.info('owner.told', { owner, ...what }),
        (error: unknown) => log.warn('owner.tell_failed', { owner, ...what, error }),
      ),
    ),
  );
}
