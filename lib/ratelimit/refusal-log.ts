/**
 * The refusal log: one JSON line per rate-limit refusal, in the shape the
 * audit reads back. `waited` is the seconds that passed before the next
 * attempt went out, or null when there was none.
 */
import { appendFile, rename, stat } from 'node:fs/promises';
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

/** The refusal log is rotated past this size: the full file becomes `<path>.1` (the one before is dropped). */
export const REFUSAL_LOG_MAX_BYTES = 1_048_576;

/** Move `path` to `path.1` when it has grown past `maxBytes`. */
async function rotate(path: string, maxBytes: number): Promise<void> {
  const size = await stat(path).then(
    (s) => s.size,
    () => 0,
  );
  if (size >= maxBytes) await rename(path, `${path}.1`);
}

/** Writes each record to `path` (when set, rotated at `maxBytes`) and as a `ratelimit.refusal` log line; never throws. */
export function refusalSink(options: { path: string | null; log: Logger; maxBytes?: number }): RefusalSink & { settled(): Promise<void> } {
  let chain: Promise<void> = Promise.resolve();
  const maxBytes = options.maxBytes ?? REFUSAL_LOG_MAX_BYTES;
  const sink = (record: RefusalRecord) => {
    const { body, headers, ...rest } = record;
    options.log.warn('ratelimit.refusal', { ...rest, slackError: body.error, retryAfter: headers['retry-after'] });
    if (!options.path) return;
    const path = options.path;
    // One write at a time, so lines never interleave and a rotation never splits one.
    chain = chain
      .then(() => rotate(path, maxBytes))
      .then(() => appendFile(path, `${JSON.stringify(record)}\n`))
      .catch((error: unknown) => options.log.error('ratelimit.refusal_log_failed', { path, error }));
  };
  /** Resolves once every record given so far is written. */
  return Object.assign(sink, { settled: () => chain });
}
