/**
 * A feedback click handed to both copies is heard once even when one copy's
 * claim of it fails open: the store, slow under load, answers that copy's
 * claim after the receiver's ack deadline (1,200 ms less its margin), so
 * the copy acks with `fail-open` and runs the listener, while the other copy
 * holds the claim and runs it too. Real copies (Bolt, receiver, sockets), one
 * Redis behind the Upstash bridge; each copy's store is a real UpstashStore
 * whose claim answers can be held back (the fault: a slow store's answer).
 *
 * Bug caught (drill `assistant` at 1,000 mentions: 8 of 500 clicks heard twice):
 * onFeedback ran once per copy whose claim failed open, besides the copy that held the claim.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { deliver, feedbackClickForm } from '../../drill/sim/slack-events.js';
import { UpstashStore } from '../../lib/store/index.js';
import type { Feedback, TurnModule } from '../../lib/bot/index.js';
import { eventually, quiescent, SECRET } from '../support/copies.js';
import { useCopy, useFakeWebApi } from '../support/fixtures.js';
import { freezingStore } from '../support/freezing-store.js';
import { useRedisBridge, type RedisFixture } from '../support/redis-fixture.js';

const heard: Feedback[] = [];
/** While set, onFeedback does not return until the test lets it go. */
let holdFeedback: Promise<void> | undefined;
const bot: TurnModule = {
  takeTurn: async (request) => ({ text: `Answer to: ${request.text}` }),
  onFeedback: async (feedback) => {
    heard.push(feedback);
    await holdFeedback;
  },
};

/** A store whose claims of interactivity (trigger keys) are answered only when `release` is called: the command itself runs at once. */
function slowClaims(fx: RedisFixture) {
  const slow = { on: false, marksUnanswered: false };
  const frozen = freezingStore(new UpstashStore({ settings: { url: fx.bridge.url, token: fx.bridge.token }, reporter: () => undefined }), {
    calls: ['claim', 'lock'],
    holdAnswer: (name, args) => name === 'claim' && slow.on && (args[0] as readonly string[]).some((k) => k.includes(':trigger:')),
    // The take lands; its answer is lost (as the store's deadline loses it).
    answer: (name, args, reply) => (name === 'lock' && slow.marksUnanswered && String(args[0]).includes(':feedback:') ? undefined : reply),
  });
  return { store: frozen.store, slow, release: frozen.thaw };
}

describe('a feedback click whose claim fails open on one copy', () => {
  const fx = useRedisBridge();
  const api = useFakeWebApi();
  const hubStore = { current: undefined as ReturnType<typeof slowClaims> | undefined };
  const cloudStore = { current: undefined as ReturnType<typeof slowClaims> | undefined };
  const hub = useCopy({ role: 'hub', api, turn: bot, store: () => (hubStore.current = slowClaims(fx)).store });
  const cloud = useCopy({ role: 'cloud', api, turn: bot, store: () => (cloudStore.current = slowClaims(fx)).store });
  afterEach(() => {
    for (const s of [hubStore.current, cloudStore.current]) {
      if (!s) continue;
      s.slow.on = false;
      s.slow.marksUnanswered = false;
      s.release();
    }
  });
  let n = 0;
  const click = () =>
    feedbackClickForm({
      triggerId: `trigger-once-${++n}`,
      channel: 'C0AI',
      messageTs: `1700041000.00000${n}`,
      threadTs: '1700041000.000000',
      button: 'positive',
    });
  const lines = (copy: typeof hub, event: string) => copy.lines.filter((l) => l.event === event).length;

  it('is acked before onFeedback runs: an onFeedback still running does not hold the ack (Slack wants it within 3 s)', async () => {
    let letGo = () => {};
    holdFeedback = new Promise<void>((resolve) => (letGo = resolve));
    try {
      const before = heard.length;
      const heardLines = lines(hub, 'feedback.heard');
      const ack = await deliver(hub.eventsUrl, click(), { signingSecret: SECRET });
      expect(ack.status).toBe(200);
      // Acked on purpose, not by the receiver's deadline backstop (1,200 ms after arrival, whatever the listener does).
      expect(ack.headers.get('x-autohub-ack')).toBeNull();
      await eventually(() => heard.length > before, 'onFeedback to start');
      // The ack came while onFeedback holds: it was not waited for.
      expect(lines(hub, 'feedback.heard')).toBe(heardLines);
    } finally {
      letGo();
      holdFeedback = undefined;
    }
    await quiescent([hub, cloud]);
  });

  it('is heard once when the other copy held the claim first: the copy that failed open finds the click heard and stands down', async () => {
    const form = click();
    const before = heard.length;
    const first = await deliver(cloud.eventsUrl, form, { signingSecret: SECRET });
    expect(first.headers.get('x-autohub-claim')).toBe('claimed');
    await eventually(() => heard.length > before, 'the cloud hearing the click');

    // The hub's claim lands (a duplicate) but its answer comes after the ack deadline: it fails open and is acked so.
    hubStore.current!.slow.on = true;
    const heardAlready = lines(hub, 'feedback.heard_already');
    const second = await deliver(hub.eventsUrl, form, { signingSecret: SECRET });
    expect(second.status).toBe(200);
    expect(second.headers.get('x-autohub-claim')).toBe('fail-open');
    // Its claim's confirm finds the click the cloud's (before its listener runs), or its listener finds it heard.
    const notOurs = lines(hub, 'claim.not_ours');
    await eventually(
      () => lines(hub, 'claim.not_ours') > notOurs || lines(hub, 'feedback.heard_already') > heardAlready || heard.length > before + 1,
      'the hub to decide',
    );
    hubStore.current!.release();
    await quiescent([hub, cloud]);
    expect(heard.length - before).toBe(1);
  });

  it("is heard once when the store answers no copy's mark: the copy whose claim held hears it, the one that failed open does not", async () => {
    const form = click();
    const before = heard.length;
    hubStore.current!.slow.marksUnanswered = true;
    cloudStore.current!.slow.marksUnanswered = true;
    const first = await deliver(cloud.eventsUrl, form, { signingSecret: SECRET });
    expect(first.headers.get('x-autohub-claim')).toBe('claimed');
    hubStore.current!.slow.on = true;
    const second = await deliver(hub.eventsUrl, form, { signingSecret: SECRET });
    expect(second.headers.get('x-autohub-claim')).toBe('fail-open');
    const unsure = (copy: typeof hub) => copy.lines.filter((l) => l.event === 'feedback.unsure');
    // The cloud's listener gives up on the mark and hears it (its claim held); the hub's claim's confirm finds the
    // click the cloud's before its listener runs (or, run, its listener gives up on the mark and does not hear it).
    const hubDecided = () => unsure(hub).length > 0 || lines(hub, 'claim.not_ours') > notOurs;
    const notOurs = lines(hub, 'claim.not_ours');
    await eventually(() => hubDecided() && unsure(cloud).length > 0, 'both copies to decide', 10_000);
    hubStore.current!.release();
    await quiescent([hub, cloud]);
    expect(heard.length - before).toBe(1);
    expect(unsure(cloud).at(-1)).toMatchObject({ claim: 'claimed', heard: true });
    if (unsure(hub).length > 0) expect(unsure(hub).at(-1)).toMatchObject({ claim: 'fail-open', heard: false });
  });

  it('is heard once when both copies fail open: the first to mark it heard hears it', async () => {
    const form = click();
    const before = heard.length;
    hubStore.current!.slow.on = true;
    cloudStore.current!.slow.on = true;
    const acks = await Promise.all([deliver(hub.eventsUrl, form, { signingSecret: SECRET }), deliver(cloud.eventsUrl, form, { signingSecret: SECRET })]);
    expect(acks.map((a) => a.headers.get('x-autohub-claim'))).toEqual(['fail-open', 'fail-open']);
    const already = () =>
      lines(hub, 'feedback.heard_already') + lines(cloud, 'feedback.heard_already') + lines(hub, 'claim.not_ours') + lines(cloud, 'claim.not_ours');
    const alreadyBefore = already();
    // Each copy decides once: its listener hears the click or finds it heard, or (a click is leased like a
    // mention) its claim's confirm finds the click the other copy's and its listener never runs.
    await eventually(() => already() - alreadyBefore + (heard.length - before) >= 2, 'both copies to decide');
    hubStore.current!.release();
    cloudStore.current!.release();
    await quiescent([hub, cloud]);
    expect(heard.length - before).toBe(1);
  });
});
