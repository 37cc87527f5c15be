/**
 * `npm run play [-- --turn FILE] [--port N]`: the playground. A page on
 * 127.0.0.1 that looks like a Slack conversation with your bot (the same
 * selection as `npm run try`), served with node:http, beside switches for
 * each part of the system and a timeline of what each copy did.
 *
 * The page polls GET /api/state; it writes with POST /api/say, /api/stop,
 * /api/action and /api/switch (JSON bodies). Only the page itself may use
 * them (try/play-guard.ts: no other Host, no other Origin, JSON only).
 * It shows what the bot shows in Slack (try/play-view.ts): its thinking
 * status and loading messages, its tasks, its own blocks and buttons; a
 * click on one goes to the app as Slack's signed block_actions (try/play-click.ts).
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UsageError } from '../lib/errors/index.js';
import { helpAsked, parseCli, wholeNumber } from '../app/cli/args.js';
import { isMain } from '../app/cli/is-main.js';
import { deliver } from '../drill/sim/slack-events.js';
import { DRILL_SECRET } from '../drill/harness.js';
import { resolveTurn, startConversation, TRY_FACTOR, type Conversation, type Said } from './conversation.js';
import { blockActionsForm, findClicked } from './play-click.js';
import { refusal } from './play-guard.js';
import { messageView, threadStatus } from './play-view.js';
import { stopWithProcess } from './play-lifetime.js';
import { INITIAL, isSwitch, setSwitch, SWITCHES, type SwitchState } from './switches.js';
import { timelineEntry, type TimelineEntry } from './timeline.js';

export const PLAY_USAGE = 'usage: npm run play -- [--turn FILE] [--port N]';

const PAGE = new URL('./page.html', import.meta.url);
/** The person the page writes as (the id the simulated Slack's mentions carry). */
const PERSON = 'U0PERSON';
/** A response_url lives 30 minutes (https://docs.slack.dev/interactivity/handling-user-interaction), compressed as the run's retries are. */
const RESPONSE_URL_MS = (30 * 60_000) / TRY_FACTOR;

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

export async function startPlayground(o: { turn: string | undefined; port?: number }): Promise<Playground> {
  const timeline: TimelineEntry[] = [];
  const started = Date.now();
  const note = (entry: TimelineEntry) => {
    timeline.push(entry);
    if (timeline.length > 400) timeline.splice(0, timeline.length - 400);
  };
  // The port first: taken, it is one line before any copy starts (and none is left behind).
  const server: Server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new UsageError(`port ${o.port} is taken (another playground?): pass --port N, or --port 0 for a free one`) : error),
    );
    server.listen(o.port ?? 0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  const conversation = await startConversation({
    turn: o.turn,
    onLog: (instance, line) => {
      const entry = timelineEntry(instance, line);
      if (entry) note(entry);
    },
  }).catch((error: unknown) => {
    server.close();
    throw error;
  });
  const { api } = conversation.h;
  const said: Said[] = [];
  const switches: SwitchState = { ...INITIAL };
  let clicks = 0;
  const find = (ts: unknown) => said.find((s) => s.ts === ts);

  const state = () => {
    const statuses: Record<string, ReturnType<typeof threadStatus>> = {};
    for (const s of said) statuses[s.thread] ??= threadStatus(api, s.channel, s.thread);
    return {
      bot: o.turn ?? 'the demo turn',
      store: conversation.h.storeKind,
      startedAt: started,
      switches,
      choices: SWITCHES,
      statuses,
      messages: said.map((s) => {
        const view = conversation.reply(s);
        return {
          ts: s.ts,
          thread: s.thread,
          channel: s.channel,
          dm: s.dm,
          text: s.text,
          sentAt: s.sentAt,
          routes: conversation.attempts(s).map((a) => `${a.route ?? 'nowhere'} ${a.status}`),
          reply: { ...view, parts: view.parts.map((p) => ({ ...p, shows: messageView(api, p.ts)?.shows ?? [{ text: p.text }] })) },
        };
      }),
      timeline,
    };
  };

  /** A click on one of the bot's own elements, delivered as Slack delivers it: 409 when the message no longer shows it. */
  const click = async (body: Record<string, unknown>): Promise<[number, unknown]> => {
    const ts = String(body.ts ?? '');
    const s = said.find((m) => conversation.reply(m).parts.some((p) => p.ts === ts));
    const view = s && messageView(api, ts);
    if (!s || !view) return [400, { error: 'no such message' }];
    const clicked = findClicked(view.blocks, { actionId: String(body.action_id ?? ''), value: typeof body.value === 'string' ? body.value : undefined });
    if (!clicked) return [409, { error: 'that button is no longer on the message' }];
    clicks += 1;
    const text = view.shows.map((x) => ('text' in x ? x.text : '')).join('');
    const form = blockActionsForm({
      clicked,
      user: PERSON,
      channel: s.channel,
      ts,
      thread: s.thread,
      text,
      blocks: view.blocks,
      metadata: view.metadata,
      triggerId: `play-trigger-${started}-${clicks}`,
      responseUrl: api.responseUrl(`play-click-${clicks}`, RESPONSE_URL_MS),
      now: Date.now(),
    });
    const answer = await deliver(conversation.h.edgeUrl, form, { signingSecret: DRILL_SECRET });
    await answer.arrayBuffer();
    note({ at: Date.now(), who: 'you', what: `clicked "${clicked.label}" (Slack's post answered ${answer.status})` });
    return [200, { status: answer.status }];
  };

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const send = (status: number, body: unknown, type = 'application/json') => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    const refused = refusal(
      { method: req.method ?? 'GET', host: req.headers.host, origin: req.headers.origin, contentType: req.headers['content-type'] },
      port,
    );
    if (refused) {
      req.resume();
      return send(refused.status, `${refused.reason}\n`, 'text/plain; charset=utf-8');
    }
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
          const pressed = api.pressStop(String(body.ts ?? ''));
          if (pressed) note({ at: Date.now(), who: 'you', what: 'pressed Stop' });
          return send(pressed ? 200 : 409, { pressed });
        }
        case 'POST /api/action': {
          const [status, answer] = await click(await readJson(req));
          return send(status, answer);
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
  const lifetime = stopWithProcess((line) => process.stderr.write(`play: ${line}\n`));
  let playground: Playground;
  try {
    playground = await startPlayground({ turn, port });
  } catch (error) {
    process.stderr.write(`play: ${(error as Error).message}\n`);
    lifetime.abandon();
    return error instanceof UsageError ? 2 : 1;
  }
  // Its signal handling is in place (run's first, synchronous, part) before the URL says it is up.
  const stopped = lifetime.run(playground);
  process.stdout.write(`play: open ${playground.url} (Ctrl-C to stop)\n`);
  await stopped;
  return 0;
}

if (isMain(import.meta.url)) {
  const argv = process.argv.slice(2);
  process.exitCode = helpAsked(argv, PLAY_USAGE) ? 0 : await main(argv);
  // Stopped or failed, nothing of it should keep the process up; a handle a failed start left open would.
  setTimeout(() => process.exit(), 1000).unref();
}
