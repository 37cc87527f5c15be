/**
 * The refusal log: one JSON line per rate-limit refusal, in the shape the
 * audit reads back. `waited` is the seconds that passed before the next
 * attempt went out, or null when there was none.
 */
import { appendFile } from 'node:fs/promises';
import type { Logger } from '../log/index.js';

export interface RefusalRecord {
  method: string;
  status: number;
  body: { ok: boolean | null; error: string | null };
  headers: { 'retry-after': string | null };
  waited: number | null;
  /** ISO time of the refusal. */
  at: string;
  instance: string;
}

export type RefusalSink = (record: RefusalRecord) => void;

/** Writes each record to `path` (when set) and as a `ratelimit.refusal` log line; never throws. */
export function refusalSink(options: { path: string | null; log: Logger }): RefusalSink {
  let chain: Promise<void> = Promise.resolve();
  return (record) => {
    options.log.warn('ratelimit.refusal', { ...record });
    if (!options.path) return;
    const path = options.path;
    // One append at a time, so lines never interleave.
    chain = chain
      .then(() => appendFile(path, `${JSON.stringify(record)}\n`))
      .catch((error: unknown) => options.log.error('ratelimit.refusal_log_failed', { path, error }));
  };
}
