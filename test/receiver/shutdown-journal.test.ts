/**
 * A shutdown hands back every acked turn. With the store
 * refusing (every claim fails open) and turns waiting for a slot, SIGTERM
 * used to hand back only leased turns: 3 of 4 acked mentions vanished with no
 * log line. Now each is claimed late with a lease or, the store still
 * refusing, kept in the local journal that the next start drains.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { useTakeoverRig } from '../support/takeover-rig.js';
import { eventually, repliesTo, SECRET, turnOver } from '../support/copies.js';

describe('SIGTERM while the store refuses', () => {
  const rig = useTakeoverRig();
  const journal = join(mkdtempSync(join(tmpdir(), 'autohub-journal-')), 'journal.jsonl');
  const env = { AUTOHUB_JOURNAL: journal, AUTOHUB_MAX_TURNS: '1', AUTOHUB_DEMO_THINK_MS: '4000', AUTOHUB_DRAIN_MS: '300' };
  const ids = ['Ev-j-1', 'Ev-j-2', 'Ev-j-3', 'Ev-j-4'];

  it('every acked turn, waiting or running, is journaled and answered once by the next start', async () => {
    const hub = await rig.startHub(env);
    rig.fx.bridge.mode = 'error-500';
    try {
      for (const [i, eventId] of ids.entries()) {
        const ack = await deliver(`${hub.url}/slack/events`, mentionEnvelope({ eventId, ts: `1700015000.00000${i + 1}` }), { signingSecret: SECRET });
        expect(ack.headers.get('x-autohub-claim')).toBe('fail-open');
      }
      hub.child.kill('SIGTERM');
      await hub.exited;
    } finally {
      rig.fx.bridge.mode = 'normal';
    }
    const journaled = hub
      .output()
      .split('\n')
      .filter((l) => l.includes('"turn.journaled"'));
    expect(journaled).toHaveLength(4);
    expect(hub.output()).not.toContain('"turn.dropped_at_shutdown"');
    expect(ids.flatMap((id) => repliesTo(rig.api, id))).toHaveLength(0);

    // The next start, the store back: the journal is drained through the normal claim.
    const next = await rig.startHub({ ...env, AUTOHUB_DEMO_THINK_MS: '0', AUTOHUB_MAX_TURNS: '16' });
    for (const id of ids) await turnOver(rig.cloud.store, id, 15_000);
    await eventually(() => ids.every((id) => repliesTo(rig.api, id).length === 1), 'each journaled turn answered');
    expect(
      next
        .output()
        .split('\n')
        .filter((l) => l.includes('"journal.drained"')),
    ).toHaveLength(4);
    for (const id of ids) expect(repliesTo(rig.api, id)).toHaveLength(1);
    next.child.kill('SIGTERM');
    await next.exited;
  }, 60_000);

  it('a journaled turn the store still refuses at the next start runs once the store answers (before: it waited for the start after)', async () => {
    const stopping = await rig.startHub(env);
    rig.fx.bridge.mode = 'error-500';
    const id = 'Ev-j-refused';
    try {
      const ack = await deliver(`${stopping.url}/slack/events`, mentionEnvelope({ eventId: id, ts: '1700015100.000001' }), { signingSecret: SECRET });
      expect(ack.headers.get('x-autohub-claim')).toBe('fail-open');
      stopping.child.kill('SIGTERM');
      await stopping.exited;
      // Started while the store still refuses: the journal's turn fails open and is kept again.
      const next = await rig.startHub({ ...env, AUTOHUB_DEMO_THINK_MS: '0', AUTOHUB_MAX_TURNS: '16' });
      await eventually(
        () => next.output().includes('"claim":"fail-open"') && next.output().includes('"journal.drained"'),
        'the journal drained, its turn refused',
      );
    } finally {
      rig.fx.bridge.mode = 'normal';
    }
    await eventually(() => repliesTo(rig.api, id).length === 1, 'the kept turn answered once the store answers', 30_000);
    expect(repliesTo(rig.api, id)).toHaveLength(1);
  }, 60_000);
});
