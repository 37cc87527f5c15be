/**
 * The in-process store (no Upstash configured) ends with its process: a
 * retry due in 32 s, or a turn handed back at shutdown, would go with it,
 * though Slack was told 200 and will not send it again. So a stopping copy
 * keeps each unfinished turn in its journal (AUTOHUB_JOURNAL), and the next
 * start runs it through the normal claim, reading the thread first when an
 * earlier run may have posted.
 */
import type { Logger } from '../lib/log/index.js';
import type { TurnJournal } from '../lib/runner/index.js';
import type { MemoryStore } from '../lib/store/index.js';

export function journalUnfinished(store: Pick<MemoryStore, 'unfinished'>, journal: Pick<TurnJournal, 'keep'> | undefined, log: Logger): number {
  let kept = 0;
  for (const turn of store.unfinished()) {
    let envelope: Record<string, unknown>;
    try {
      envelope = JSON.parse(turn.body) as Record<string, unknown>;
    } catch {
      log.error('turn.dropped_at_shutdown', { key: turn.key, detail: 'its stored delivery is not JSON' });
      continue;
    }
    // A clean refusal posted nothing; anything else (a run cut short, an ambiguous failure) may have.
    const body = turn.state === 'retry' && !turn.ambiguous ? envelope : { ...envelope, autohub_recovered: true };
    const fields = { key: turn.key, eventId: envelope.event_id, state: turn.state };
    if (journal?.keep(body)) {
      kept += 1;
      log.warn('turn.journaled', { ...fields, detail: 'the in-process store ends with this process: the next start runs it' });
    } else log.error('turn.dropped_at_shutdown', { ...fields, detail: journal ? 'the journal could not be written' : 'AUTOHUB_JOURNAL is off' });
  }
  return kept;
}
