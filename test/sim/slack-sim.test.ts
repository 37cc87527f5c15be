/**
 * The simulated Slack sends what Slack sends: a DM @mention as two events,
 * the unsigned ssl_check, the app_rate_limited notice. Caught on a loopback
 * server that records each request as it arrived.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSignature } from '../../lib/slack/index.js';
import { dmMentionPair } from '../../drill/sim/slack-events.js';
import { SlackSim } from '../../drill/slack-sim.js';

const SECRET = 'sim-test-secret';

describe('the simulated Slack', () => {
  let server: Server;
  let url: string;
  const got: Array<{ path: string; headers: IncomingHttpHeaders; body: string }> = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        got.push({ path: req.url ?? '', headers: req.headers, body });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it.each(['mention-first', 'im-first'] as const)(
    'sends a DM @mention as two events under two event_ids (%s): app_mention without channel_type, message.im with it',
    async (order) => {
      const [first, second] = dmMentionPair({ eventIds: ['Ev-a', 'Ev-b'], ts: '1700000000.000100', channel: 'D0PERSON', order });
      const events = [first, second].map((e) => e.event as Record<string, unknown>);
      expect(events.map((e) => e.type)).toEqual(order === 'mention-first' ? ['app_mention', 'message'] : ['message', 'app_mention']);
      const mention = events.find((e) => e.type === 'app_mention')!;
      const im = events.find((e) => e.type === 'message')!;
      expect(mention).not.toHaveProperty('channel_type');
      expect(im.channel_type).toBe('im');
      expect(new Set([first.event_id, second.event_id]).size).toBe(2);
      expect([mention.ts, mention.channel, mention.text]).toEqual([im.ts, im.channel, im.text]);
      // One to each copy if need be: each delivery may name its own address.
      const slack = new SlackSim({ url: `${url}/edge`, signingSecret: SECRET, factor: 1 });
      await Promise.all([
        slack.deliver('1700000000.000100', 'Ev-a', JSON.stringify(first)),
        slack.deliver('1700000000.000100', 'Ev-b', JSON.stringify(second), `${url}/cloud`),
      ]);
      expect(
        got
          .slice(-2)
          .map((g) => g.path)
          .sort(),
      ).toEqual(['/cloud', '/edge']);
    },
  );

  it("sends ssl_check as an unsigned form post (no X-Slack-Signature), and records the copy's answer", async () => {
    const slack = new SlackSim({ url: `${url}/commands`, signingSecret: SECRET, factor: 1 });
    expect(await slack.sslCheck()).toEqual({ kind: 'ssl_check', status: 200 });
    const last = got.at(-1)!;
    expect(last.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(last.headers).not.toHaveProperty('x-slack-signature');
    expect(new URLSearchParams(last.body).get('ssl_check')).toBe('1');
  });

  it('sends app_rate_limited signed, with no inner event and the minute it began', async () => {
    const slack = new SlackSim({ url: `${url}/events`, signingSecret: SECRET, factor: 1 });
    expect(await slack.appRateLimited({ minute: 1518467820 })).toEqual({ kind: 'app_rate_limited', status: 200 });
    const last = got.at(-1)!;
    const body = JSON.parse(last.body) as Record<string, unknown>;
    expect(body).toMatchObject({ type: 'app_rate_limited', team_id: 'T0AUTOHUB', minute_rate_limited: 1518467820, api_app_id: 'A0AUTOHUB' });
    expect(body).not.toHaveProperty('event');
    const verdict = await checkSignature({
      signingSecret: SECRET,
      body: new TextEncoder().encode(last.body),
      signature: String(last.headers['x-slack-signature']),
      timestamp: String(last.headers['x-slack-request-timestamp']),
      now: Date.now(),
    });
    expect(verdict).toMatchObject({ ok: true });
  });
});
