/**
 * The store keeps of a message only what a takeover needs, sealed,
 * and only while the turn is live. Read as someone with the database would:
 * every key, every type.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RespClient } from '../../drill/sim/resp-client.js';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { createSealer, deriveStoreKey, eventKey } from '../../lib/store/index.js';
import { useRedisBridge } from '../support/redis-fixture.js';
import { eventually, repliesTo, SECRET } from '../support/copies.js';
import { useCopy, useFakeWebApi } from '../support/fixtures.js';

const MARKER = 'MARKERWORD-7f3a';

describe('what the store keeps of a message', () => {
  const fx = useRedisBridge();
  const api = useFakeWebApi();
  const hub = useCopy({ role: 'hub', api, redis: fx });
  // Straight to the database, past the bridge, as someone holding it would read.
  let redis: RespClient;
  beforeAll(async () => {
    redis = await RespClient.open(fx.redis.port);
  });
  afterAll(() => {
    redis?.close();
  });

  /** Every value in the database, as text. */
  async function everything(): Promise<string[]> {
    const keys = (await redis.command(['KEYS', '*'])) as string[];
    const values: string[] = [];
    for (const key of keys) {
      const type = String(await redis.command(['TYPE', key]));
      const read =
        type === 'string'
          ? ['GET', key]
          : type === 'hash'
            ? ['HGETALL', key]
            : type === 'list'
              ? ['LRANGE', key, '0', '-1']
              : type === 'zset'
                ? ['ZRANGE', key, '0', '-1']
                : undefined;
      if (read) values.push(`${key} ${JSON.stringify(await redis.command(read))}`);
    }
    return values;
  }

  it('during the turn the body is sealed (no marker, no legacy token in clear); after it, no key holds a body', async () => {
    api.holdPosts(Number.POSITIVE_INFINITY);
    const envelope = mentionEnvelope({ eventId: 'Ev-private', ts: '1700004000.000001', text: `<@UAUTOHUB> ${MARKER}` });
    expect((await deliver(hub.eventsUrl, envelope, { signingSecret: SECRET })).status).toBe(200);
    await eventually(() => api.held > 0, 'the turn to be posting');
    const during = await everything();
    expect(during.join('\n')).not.toContain(MARKER);
    expect(during.join('\n')).not.toContain('legacy-verification-token');
    const record = JSON.parse((await hub.store.read(eventKey('T0AUTOHUB', 'Ev-private')))!);
    expect(record.body).toMatch(/^s1\./);
    api.releasePosts();
    await eventually(() => repliesTo(api, 'Ev-private').length === 1, 'the reply', 15_000);
    await eventually(async () => JSON.parse((await hub.store.read(eventKey('T0AUTOHUB', 'Ev-private')))!).state === 'done', 'the finish');
    const after = await everything();
    expect(after.join('\n')).not.toContain(MARKER);
    expect(after.filter((v) => v.includes('"body"'))).toEqual([]);
  });

  it('a duplicate under a new event id leaves no copy of the message behind', async () => {
    const ts = '1700004000.000002';
    await deliver(hub.eventsUrl, mentionEnvelope({ eventId: 'Ev-first', ts, text: MARKER }), { signingSecret: SECRET });
    const again = await deliver(hub.eventsUrl, mentionEnvelope({ eventId: 'Ev-again', ts, text: MARKER }), { signingSecret: SECRET });
    expect(again.headers.get('x-autohub-claim')).toBe('duplicate');
    expect(await hub.store.read(eventKey('T0AUTOHUB', 'Ev-again'))).toBeNull();
  });

  it("the sealed body is the event without Slack's legacy token, and opens only with the store key", async () => {
    api.holdPosts(Number.POSITIVE_INFINITY);
    const envelope = mentionEnvelope({ eventId: 'Ev-sealed', ts: '1700004000.000003', text: MARKER });
    await deliver(hub.eventsUrl, envelope, { signingSecret: SECRET });
    await eventually(() => api.held > 0, 'the turn to be posting');
    const sealed = JSON.parse((await hub.store.read(eventKey('T0AUTOHUB', 'Ev-sealed')))!).body as string;
    api.releasePosts();
    const opened = JSON.parse(createSealer(deriveStoreKey(SECRET)).open(sealed)!);
    const { token: _legacy, ...expected } = envelope;
    expect(opened).toEqual(expected);
    expect(createSealer(deriveStoreKey('another-secret')).open(sealed)).toBeUndefined();
  });
});
