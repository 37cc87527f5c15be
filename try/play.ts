/**
 * `npm run play [-- --turn FILE] [--port N]`: the playground. A page on
 * 127.0.0.1 that looks like a Slack conversation with your bot (the same
 * selection as `npm run try`), served with node:http, beside switches for
 * each part of the system and a timeline of what each copy did.
 *
 * The page polls GET /api/state; it writes with POST /api/say, /api/stop,
 * /api/feedback and /api/switch (JSON bodies). Loopback only: nothing here
 * is for another machine.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UsageError } from '../lib/errors/index.js';
import { helpAsked, parseCli, wholeNumber } from '../app/cli/args.js';
import { isMain } from '../app/cli/is-main.js';
import { deliver } from '../drill/sim/slack-events.js';
import { DRILL_SECRET } from '../drill/harness.js';
import { resolveTurn, startConversation, type Conversation, type Said } from './conversation.js';
import { INITIAL, isSwitch, setSwitch, SWITCHES, type SwitchState } from './switches.js';
import { timelineEntry, type TimelineEntry } from './timeline.js';

export const PLAY_USAGE = 'usage: npm run play -- [--turn FILE] [--port N]';

const PAGE = new URL('./page.html', import.meta.url);

export interface Playground {
  url: string;
  conversation: Conversation;
  close(): Promise<void>;
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as unknown;
  if (typeof parsed !== 'object' || parsed === null) throw new UsageError('a JSON object');
  return parsed as Record<string, unknown>;
}

/** A feedback button pressed on a message, as Slack sends it: a signed block_actions form post (https://docs.slack.dev/reference/interaction-payloads/block_actions-payload). */
function feedbackForm(said: Said, messageTs: string, value: string, n: number): string {
  const payload = {
    type: 'block_actions',
    team: { id: 'T0AUTOHUB' },
    user: { id: 'U0PERSON', team_id: 'T0AUTOHUB' },
    api_app_id: 'A0AUTOHUB',
    token: 'legacy-verification-token',
    trigger_id: `play-trigger-${Date.now()}-${n}`,
    container: { type: 'message', message_ts: messageTs, channel_id: said.channel, is_ephemeral: false },
    channel: { id: said.channel },
    message: { type: 'message', ts: messageTs, thread_ts: said.thread },
    actions: [{ type: 'feedback_buttons', action_id: 'feedback', block_id: 'feedback', value, action_ts: String(Date.now() / 1000) }],
  };
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}

export async function startPlayground(o: { turn: string | undefined; port?: number }): Promise<Playground> {
  const timeline: TimelineEntry[] = [];
  const started = Date.now();
  const note = (entry: TimelineEntry) => {
    timeline.push(entry);
    if (timeline.length > 400) timeline.splice(0, timeline.length - 400);
  };
  const conversation = await startConversation({
    turn: o.turn,
    onLog: (instance, line) => {
      const entry = timelineEntry(instance, line);
      if (entry) note(entry);
    },
  });
  const said: Said[] = [];
  const switches: SwitchState = { ...INITIAL };
  let clicks = 0;
  const find = (ts: unknown) => said.find((s) => s.ts === ts);

  const state = () => ({
    bot: o.turn ?? 'the demo turn',
    store: conversation.h.storeKind,
    startedAt: started,
    switches,
    choices: SWITCHES,
    messages: said.map((s) => {
      const view = conversation.reply(s);
      const attempts = conversation.attempts(s);
      return {
        ts: s.ts,
        thread: s.thread,
        channel: s.channel,
        dm: s.dm,
        text: s.text,
        sentAt: s.sentAt,
        routes: attempts.map((a) => `${a.route ?? 'nowhere'} ${a.status}`),
        reply: view,
      };
    }),
    timeline,
  });

  const server: Server = createServer((req, res) => {
    const send = (status: number, body: unknown, type = 'application/json') => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    const route = `${req.method} ${(req.url ?? '/').split('?')[0]}`;
    (async () => {
      switch (route) {
        case 'GET /':
          return send(200, readFileSync(PAGE, 'utf8'), 'text/html; charset=utf-8');
        case 'GET /api/state':
          return send(200, state());
        case 'POST /api/say': {
          const body = await readJson(req);
          const text = typeof body.text === 'string' ? body.text.trim() : '';
          if (text === '') return send(400, { error: 'write something first' });
          const parent = body.thread === undefined ? undefined : find(body.thread);
          if (body.thread !== undefined && !parent) return send(400, { error: 'no such thread' });
          const s = conversation.say({ text, dm: parent ? parent.dm : body.dm === true, ...(parent ? { threadTs: parent.thread } : {}) });
          said.push(s);
          note({ at: Date.now(), who: 'you', what: `wrote ${s.dm ? 'in the DM' : 'in #general'}${parent ? ' (in the thread)' : ''}` });
          return send(200, { ts: s.ts, thread: s.thread });
        }
        case 'POST /api/stop': {
          const body = await readJson(req);
          const pressed = conversation.h.api.pressStop(String(body.ts ?? ''));
          if (pressed) note({ at: Date.now(), who: 'you', what: 'pressed Stop' });
          return send(pressed ? 200 : 409, { pressed });
        }
        case 'POST /api/feedback': {
          const body = await readJson(req);
          const s = find(body.of);
          if (!s) return send(400, { error: 'no such message' });
          const value = body.value === 'negative' ? 'negative' : 'positive';
          const answer = await deliver(conversation.h.edgeUrl, feedbackForm(s, String(body.ts ?? ''), value, ++clicks), { signingSecret: DRILL_SECRET });
          await answer.arrayBuffer();
          note({ at: Date.now(), who: 'you', what: `pressed ${value === 'positive' ? 'Good answer' : 'Bad answer'} (answered ${answer.status})` });
          return send(200, { status: answer.status });
        }
        case 'POST /api/switch': {
          const body = await readJson(req);
          const name = String(body.name ?? '');
          const value = String(body.value ?? '');
          if (!isSwitch(name, value)) return send(400, { error: `no switch ${name} with ${value}` });
          note({ at: Date.now(), who: 'you', what: await setSwitch(conversation.h, switches, name, value) });
          return send(200, { switches });
        }
        default:
          return send(404, { error: 'not found' });
      }
    })().catch((error: unknown) => {
      if (!res.headersSent) send(error instanceof UsageError || error instanceof SyntaxError ? 400 : 500, { error: (error as Error).message });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    conversation,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      // A copy left frozen or killed by a switch is woken or ended by the harness's close.
      if (switches.hub === 'frozen') await conversation.h.hub.thaw();
      if (switches.store === 'frozen') conversation.h.hangStore(false);
      await conversation.close();
    },
  };
}

async function main(argv: readonly string[]): Promise<number> {
  let turn: string | undefined;
  let port: number;
  try {
    const { values } = parseCli(argv, { turn: { type: 'string' }, port: { type: 'string' } }, PLAY_USAGE);
    port = wholeNumber(values.port, '--port', 0, 65_535, 3030);
    turn = await resolveTurn(values.turn);
  } catch (error) {
    process.stderr.write(`play: ${(error as Error).message}\n`);
    return 2;
  }
  process.stderr.write(`play: starting ${turn ?? 'the demo turn'} in a hub and a cloud copy behind the edge, against a simulated Slack...\n`);
  const playground = await startPlayground({ turn, port });
  process.stdout.write(`play: open ${playground.url} (Ctrl-C to stop)\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await playground.close();
  return 0;
}

if (isMain(import.meta.url)) {
  const argv = process.argv.slice(2);
  process.exitCode = helpAsked(argv, PLAY_USAGE) ? 0 : await main(argv);
}
