/**
 * A local journal of turns that were acked but could be handed to no one: a
 * copy stopping while the shared store refuses (a spent quota, a rotated
 * token, an outage) cannot hand back turns whose claims failed open. Each is
 * written here, sealed like a stored body, and the next start drains it
 * through the normal claim (a turn answered meanwhile is a duplicate then).
 *
 * On the Mac the file outlives a restart; on Railway the filesystem lasts
 * until the next deploy (docs/deadlines-and-outages.md, "A store broken for hours"; AUTOHUB_JOURNAL in docs/settings.md).
 */
import { appendFileSync, existsSync, readFileSync, renameSync, unlinkSync } from 'node:fs';
import type { Sealer } from '../store/index.js';

export interface JournalOptions {
  path: string;
  /** Seals each entry (the store's key): a message's text never lies in the file in clear. */
  sealer?: Sealer | undefined;
}

export class TurnJournal {
  constructor(private readonly o: JournalOptions) {}

  get path(): string {
    return this.o.path;
  }

  /** Keep one delivery's envelope; false when the file could not be written. */
  keep(envelope: Record<string, unknown>): boolean {
    const json = JSON.stringify(envelope);
    const line = this.o.sealer ? this.o.sealer.seal(json) : json;
    try {
      appendFileSync(this.o.path, `${JSON.stringify({ v: 1, turn: line })}\n`, { mode: 0o600 });
      return true;
    } catch {
      return false;
    }
  }

  /** Every kept envelope, and the file emptied (moved aside first, so a crash mid-drain loses nothing). */
  take(): { envelopes: Record<string, unknown>[]; unreadable: number } {
    if (!existsSync(this.o.path)) return { envelopes: [], unreadable: 0 };
    const draining = `${this.o.path}.draining`;
    renameSync(this.o.path, draining);
    const envelopes: Record<string, unknown>[] = [];
    let unreadable = 0;
    for (const line of readFileSync(draining, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      try {
        const { turn } = JSON.parse(line) as { turn?: unknown };
        const json = typeof turn === 'string' ? (this.o.sealer ? this.o.sealer.open(turn) : turn) : undefined;
        if (json === undefined || json === null) throw new Error('unreadable');
        envelopes.push(JSON.parse(json) as Record<string, unknown>);
      } catch {
        unreadable += 1;
      }
    }
    unlinkSync(draining);
    return { envelopes, unreadable };
  }
}
