/**
 * Upstash takes a request of up to 10 MB now (it was 1 MB). A
 * delivery of 700 KB (under the 1 MiB body limit) used to be claimed without
 * its body, so a copy dying mid-turn lost it; now it is stored (sealed) and
 * can be taken over.
 */
import { describe, expect, it } from 'vitest';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { eventKey, parseLeaseRecord } from '../../lib/store/index.js';
import { useRedisBridge } from '../support/redis-fixture.js';
import { eventually, SECRET, turnOver } from '../support/copies.js';
import { useCopy, useFakeWebApi } from '../support/fixtures.js';

describe('a large delivery', () => {
  const fx = useRedisBridge();
  const api = useFakeWebApi();
  const copy = useCopy({ role: 'hub', api, redis: fx, env: { AUTOHUB_DEMO_THINK_MS: '1500' } });

  it('of 700 KB is stored with its lease, so a taker-over could run it (before: claimed bodiless, lost if its copy died)', async () => {
    // 350,000 characters, twice: in `text` and in its rich_text block, as Slack sends a message: a 700 KB body.
    const envelope = mentionEnvelope({ eventId: 'Ev-700k', ts: '1700016000.000001', text: `<@UAUTOHUB> ${'x'.repeat(350_000)}` });
    const ack = await deliver(copy.eventsUrl, envelope, { signingSecret: SECRET });
    expect(ack.headers.get('x-autohub-claim')).toBe('claimed');
    let body: string | undefined;
    await eventually(async () => {
      body = parseLeaseRecord(await copy.store.read(eventKey('T0AUTOHUB', 'Ev-700k')))?.body;
      return body !== undefined;
    }, 'the stored record');
    expect(body!.length).toBeGreaterThan(700_000);
    await turnOver(copy.store, 'Ev-700k');
  });
});
