/**
 * A streamed reply is one message, whole, once, whatever happens to
 * the copy writing it or to the stream. The fake Web API streams as Slack does:
 * a stream per ts, appends refused after a stop or past the stream's life.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { FakeStream, FakeWebApi } from '../../drill/sim/fake-web-api.js';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { useTakeoverRig } from '../support/takeover-rig.js';
import { eventually, SECRET, turnOver, type RunningCopy } from '../support/copies.js';

describe('a streamed reply', () => {
  const rig = useTakeoverRig({ afterEach: (api) => void (api.streamLifeMs = 300_000) });
  let api: FakeWebApi;
  let cloud: RunningCopy;
  let n = 0;
  beforeAll(() => {
    ({ api, cloud } = rig);
  });

  const ts = () => `1700006000.${String(++n).padStart(6, '0')}`;
  const streamsIn = (thread: string): Array<[string, FakeStream]> => [...api.streams].filter(([, st]) => st.thread_ts === thread);
  const metadataOf = (st: FakeStream) => JSON.parse(st.metadata ?? '{}').event_payload?.event_id;
  const startHub = (env: Record<string, string> = {}) => rig.startHub(env);
  /** A dead owner's claim of a mention in C0GENERAL: a lease that lapses soon, with no stream ts recorded. */
  const deadOwnersClaim = async (eventId: string, thread: string) => {
    const { eventKey } = await import('../../lib/store/index.js');
    const body = JSON.stringify(mentionEnvelope({ eventId, ts: thread, team: 'T0AUTOHUB', channel: 'C0GENERAL' }));
    expect(await cloud.store.claim([eventKey('T0AUTOHUB', eventId)], { instance: 'hub-gone', role: 'hub' }, { leaseMs: 1500, body })).toMatchObject({
      token: 1,
    });
  };

  it("arrives whole and once: one message, stopped, with the delivery's metadata", async () => {
    const thread = ts();
    await deliver(cloud.eventsUrl, mentionEnvelope({ eventId: 'Ev-stream-1', ts: thread }), { signingSecret: SECRET });
    await turnOver(cloud.store, 'Ev-stream-1');
    const streams = streamsIn(thread);
    expect(streams).toHaveLength(1);
    const [, st] = streams[0]!;
    expect(st).toMatchObject({ state: 'stopped', text: 'Hi <@U0PERSON>, I got that. Answered by the cloud copy (cloud-test).' });
    expect(metadataOf(st)).toBe('Ev-stream-1');
    expect(api.calls.filter((c) => c.method === 'chat.postMessage' && c.params.thread_ts === thread)).toHaveLength(0);
  });

  it('its owner killed (SIGKILL) after two appends: one message in the thread, complete and stopped, written by the taker-over', async () => {
    const hub = await startHub({ AUTOHUB_DEMO_CHUNK_MS: '1100' });
    const thread = ts();
    await deliver(`${hub.url}/slack/events`, mentionEnvelope({ eventId: 'Ev-stream-kill', ts: thread }), { signingSecret: SECRET });
    await eventually(() => (streamsIn(thread)[0]?.[1].appends ?? 0) >= 2, 'two appends', 10_000);
    hub.child.kill('SIGKILL');
    await hub.exited;
    await turnOver(cloud.store, 'Ev-stream-kill', 15_000);
    const streams = streamsIn(thread);
    expect(streams).toHaveLength(1);
    const [, st] = streams[0]!;
    expect(st.state).toBe('updated');
    expect(st.text).toBe('Hi <@U0PERSON>, I got that. Answered by the cloud copy (cloud-test).');
    expect(metadataOf(st)).toBe('Ev-stream-kill');
    expect(cloud.lines.some((l) => l.event === 'turn.replied' && l.eventId === 'Ev-stream-kill' && l.stream === 'completed')).toBe(true);
  });

  it('its owner died between chat.startStream and recording the ts: the taker-over completes that message, not a second one', async () => {
    // The dead owner's state, built by hand (the window is one request wide): a lapsed lease with no
    // stream ts, and the message Slack opened for it, without metadata (that goes on only at the stop).
    const { WebClient } = await import('@slack/web-api');
    const thread = ts();
    const eventId = 'Ev-stream-orphan';
    await deadOwnersClaim(eventId, thread);
    await new WebClient('xoxb-test', { slackApiUrl: api.url }).chat.startStream({
      channel: 'C0GENERAL',
      thread_ts: thread,
      markdown_text: 'Hi <@U0PERSON>, I',
      recipient_user_id: 'U0PERSON',
      recipient_team_id: 'T0AUTOHUB',
    });
    expect(streamsIn(thread)).toHaveLength(1);

    await turnOver(cloud.store, eventId, 15_000);
    const streams = streamsIn(thread);
    expect(streams).toHaveLength(1);
    const [, st] = streams[0]!;
    expect(st.state).toBe('updated');
    expect(st.text).toBe('Hi <@U0PERSON>, I got that. Answered by the cloud copy (cloud-test).');
    expect(metadataOf(st)).toBe(eventId);
    expect(api.calls.filter((c) => c.method === 'chat.postMessage' && c.params.thread_ts === thread)).toHaveLength(0);
    expect(cloud.lines.some((l) => l.event === 'turn.orphan_stream' && l.eventId === eventId)).toBe(true);
  });

  it('its owner died after stopping the stream, its record unanswered (the record goes beside the stop): the taker-over finds the whole reply and writes nothing', async () => {
    // The dead owner's state, built by hand: a lapsed lease with no stream ts (the record sent beside
    // the stop never landed), and the message Slack opened and stopped for it, whole, with its metadata.
    const { partMetadata } = await import('../../lib/turn/parts.js');
    const { WebClient } = await import('@slack/web-api');
    const thread = ts();
    const eventId = 'Ev-stream-stopped-unrecorded';
    await deadOwnersClaim(eventId, thread);
    const slack = new WebClient('xoxb-test', { slackApiUrl: api.url });
    const started = await slack.chat.startStream({
      channel: 'C0GENERAL',
      thread_ts: thread,
      markdown_text: 'Hi <@U0PERSON>, ',
      recipient_user_id: 'U0PERSON',
      recipient_team_id: 'T0AUTOHUB',
    });
    await slack.chat.stopStream({
      channel: 'C0GENERAL',
      ts: started.ts!,
      markdown_text: 'I got that. Answered by the hub.',
      metadata: partMetadata(eventId, 0, true),
    });

    await turnOver(cloud.store, eventId, 15_000);
    const streams = streamsIn(thread);
    expect(streams).toHaveLength(1);
    expect(streams[0]![1]).toMatchObject({ state: 'stopped', text: 'Hi <@U0PERSON>, I got that. Answered by the hub.' });
    expect(
      api.calls.filter(
        (c) => (c.method === 'chat.postMessage' || c.method === 'chat.update') && c.params.channel === 'C0GENERAL' && c.params.ts === started.ts,
      ),
    ).toHaveLength(0);
    expect(api.calls.filter((c) => c.method === 'chat.postMessage' && c.params.thread_ts === thread)).toHaveLength(0);
    expect(cloud.lines.some((l) => l.event === 'turn.already_replied' && l.eventId === eventId)).toBe(true);
  });

  it('a stream Slack closes mid-turn ends complete, through an update', async () => {
    api.streamLifeMs = 500;
    const hub = await startHub({ AUTOHUB_DEMO_CHUNK_MS: '700' });
    const thread = ts();
    await deliver(`${hub.url}/slack/events`, mentionEnvelope({ eventId: 'Ev-stream-expired', ts: thread }), { signingSecret: SECRET });
    await turnOver(cloud.store, 'Ev-stream-expired', 15_000);
    const streams = streamsIn(thread);
    expect(streams).toHaveLength(1);
    expect(streams[0]![1]).toMatchObject({ state: 'updated', text: 'Hi <@U0PERSON>, I got that. Answered by the hub (hub-child).' });
    expect(metadataOf(streams[0]![1])).toBe('Ev-stream-expired');
  });

  it('appends under a 429 storm keep their order', async () => {
    api.enforceInterval('chat.appendStream', 1500, 'both');
    try {
      const hub = await startHub({ AUTOHUB_DEMO_CHUNK_MS: '1100' });
      const thread = ts();
      await deliver(`${hub.url}/slack/events`, mentionEnvelope({ eventId: 'Ev-stream-storm', ts: thread }), { signingSecret: SECRET });
      await turnOver(cloud.store, 'Ev-stream-storm', 20_000);
      expect(api.calls.some((c) => c.method === 'chat.appendStream' && c.refused)).toBe(true);
      const streams = streamsIn(thread);
      expect(streams).toHaveLength(1);
      expect(streams[0]![1]).toMatchObject({ state: 'stopped', text: 'Hi <@U0PERSON>, I got that. Answered by the hub (hub-child).' });
    } finally {
      api.enforceInterval('chat.appendStream', 0);
    }
  });

  it('while starting a stream is throttled (Tier 2), the reply goes out as one post with the same metadata', async () => {
    // Slack refuses a start with a 1 s window; while it is closed, the next reply does not wait for it.
    api.script('chat.startStream', { status: 429, body: { ok: false, error: 'ratelimited' }, headers: { 'retry-after': '1' } });
    const waiting = ts();
    await deliver(cloud.eventsUrl, mentionEnvelope({ eventId: 'Ev-tier2-a', ts: waiting }), { signingSecret: SECRET });
    await eventually(() => api.calls.some((c) => c.method === 'chat.startStream' && c.refused), 'the refused start');
    const posted = ts();
    await deliver(cloud.eventsUrl, mentionEnvelope({ eventId: 'Ev-tier2-b', ts: posted }), { signingSecret: SECRET });
    await turnOver(cloud.store, 'Ev-tier2-b');
    await turnOver(cloud.store, 'Ev-tier2-a');
    const post = api.calls.filter((c) => c.method === 'chat.postMessage' && c.params.thread_ts === posted);
    expect(post).toHaveLength(1);
    expect(JSON.parse(post[0]!.params.metadata!).event_payload.event_id).toBe('Ev-tier2-b');
    expect(streamsIn(posted)).toHaveLength(0);
    // The one that met the refusal waited out the window and streamed.
    expect(streamsIn(waiting)).toHaveLength(1);
  });
});
