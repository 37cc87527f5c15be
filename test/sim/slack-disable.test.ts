/**
 * Slack's disable rule as the drill's Slack models it (https://docs.slack.dev/reference/events/app_rate_limited:
 * events may be disabled when under 5% of event deliveries in the past 60 minutes got a 200), and the
 * response_url as the fake Web API mints it (5 uses within 30 minutes). Without them a drill of both copies down
 * for hours passes though Slack would have turned the app off, and a kept command answered at a spent
 * response_url counts as answered.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mentionEnvelope } from '../../drill/sim/slack-events.js';
import { startFakeWebApi } from '../../drill/sim/fake-web-api.js';
import { eventsDisabled, SlackSim } from '../../drill/slack-sim.js';

const HOUR = 3_600_000;
const at = (n: number, ok: (i: number) => boolean, every = 60_000) => Array.from({ length: n }, (_, i) => ({ at: i * every, ok: ok(i) }));

describe("Slack's disable rule (pure)", () => {
  it.each([
    ['an hour of failures', at(61, () => false), 60 * 60_000, true],
    ['one 200 in twenty (5%: on)', at(61, (i) => i % 20 === 0), 60 * 60_000, false],
    ['one 200 in thirty (3%: off)', at(91, (i) => i % 30 === 0), 90 * 60_000, true],
    ['failures for 59 minutes: no whole window yet', at(60, () => false), 59 * 60_000, false],
    ['failures long ago, 200s for the past hour', [...at(61, () => false), ...at(61, () => true).map((d) => ({ ...d, at: d.at + 2 * HOUR }))], 3 * HOUR, false],
  ] as const)('%s', (_, deliveries, now, off) => {
    expect(eventsDisabled(deliveries, now, HOUR, 0)).toBe(off);
  });
});

describe('the simulated Slack turns the events off, and sends no event after', () => {
  let server: Server;
  let url: string;
  const got: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        got.push(req.url ?? '');
        res.writeHead(req.url === '/down' ? 503 : 200).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  // Factor 36,000: Slack's hour is 100 ms, its retries 0.014 ms, 1.7 ms and 8.3 ms apart.
  const send = async (path: string, n: number) => {
    const slack = new SlackSim({ url: `${url}${path}`, signingSecret: 's', factor: 36_000 });
    for (let i = 0; i < n; i++) {
      const body = JSON.stringify(mentionEnvelope({ eventId: `Ev-${path}-${i}`, ts: `1700000000.${String(i).padStart(6, '0')}` }));
      await slack.deliver(`m${i}`, `Ev-${path}-${i}`, body);
    }
    return slack;
  };

  it('an app answering 503 past a whole hour is turned off: later events are never sent', async () => {
    const slack = await send('/down', 40);
    expect(slack.eventsDisabledAt).toBeDefined();
    expect(slack.unsent.length).toBeGreaterThan(0);
    expect(got.filter((p) => p === '/down').length).toBe(slack.attempts.length);
    expect(slack.attempts.length + slack.unsent.length).toBeGreaterThanOrEqual(40);
  });

  it('an app answering 200 stays on', async () => {
    const slack = await send('/up', 40);
    expect(slack.eventsDisabledAt).toBeUndefined();
    expect(slack.unsent).toEqual([]);
  });
});

describe("the fake Web API's response_url", () => {
  it('takes 5 messages, refuses the sixth (used_url), and refuses any past its life (expired_url)', async () => {
    let now = 1_000_000;
    const api = await startFakeWebApi({ now: () => now });
    try {
      const post = (u: string) => fetch(u, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"text":"hi"}' }).then((r) => r.status);
      const used = api.responseUrl('a', 30 * 60_000);
      const statuses = [];
      for (let i = 0; i < 6; i++) statuses.push(await post(used));
      expect(statuses).toEqual([200, 200, 200, 200, 200, 404]);
      const old = api.responseUrl('b', 30 * 60_000);
      now += 30 * 60_000 + 1;
      expect(await post(old)).toBe(404);
      expect(api.hooks.map((h) => h.refused ?? 'ok')).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 'used_url', 'expired_url']);
      expect(api.hooks[0]!.body).toEqual({ text: 'hi' });
    } finally {
      await api.close();
    }
  });
});
