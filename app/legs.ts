/** The leg checks of this copy (lib/legs), told to the owner (a DM, and the alert URL); undefined without AUTOHUB_EDGE_URL or with AUTOHUB_VERIFY_EVERY_MS=0. */
import type { AppConfig } from '../lib/config/index.js';
import { LegChecker } from '../lib/legs/index.js';
import type { Logger } from '../lib/log/index.js';
import type { Records } from '../lib/store/index.js';
import type { OwnerLine } from './listeners/announce.js';
import { tellOwners } from './listeners/tell-owner.js';

export function createLegChecker(
  config: Pick<AppConfig, 'legs' | 'signingSecret' | 'instance'>,
  o: { store: Pick<Records, 'lock' | 'unlock' | 'read' | 'note'>; line: OwnerLine; log: Logger; now?: (() => number) | undefined },
): LegChecker | undefined {
  if (!config.legs) return undefined;
  return new LegChecker({
    ...config.legs,
    signingSecret: config.signingSecret,
    store: o.store,
    // Unique to the process: a restarted copy is a new holder, and takes the lock once the old one lapses.
    holder: `${config.instance}-${crypto.randomUUID().slice(0, 8)}`,
    tell: (text, notice) => tellOwners(o.line, text, { leg: notice.leg, kind: notice.kind }),
    log: o.log,
    now: o.now,
  });
}
