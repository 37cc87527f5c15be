/**
 * `npm run try`: the bot answers one message offline, printed as the person
 * reads it, then one line saying who answered, by which route, how long and
 * what it cost the store; with a fault staged mid-turn the one answer still
 * prints. Run as a person runs it: the CLI in a child process.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parseTryArgs, streamPrinter, summaryLine } from '../../try/cli.js';
import { shownFor, shownLine } from '../../try/shown.js';
import type { RecordedCall } from '../../drill/sim/fake-web-api.js';
import type { ReplyView } from '../../try/conversation.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BOTS = mkdtempSync(join(tmpdir(), 'try-bots-'));
afterAll(() => rmSync(BOTS, { recursive: true, force: true }));

/** A bot of the test's own, outside the project (it imports autohub/bot as any bot does). */
function botFile(name: string, source: string): string {
  writeFileSync(join(BOTS, name), source);
  return join(BOTS, name);
}

function runTry(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    // Only PATH from this process: no developer's AUTOHUB_TURN or Slack settings reach the run.
    execFile(
      process.execPath,
      ['--import', 'tsx', 'try/cli.ts', ...args],
      { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, timeout: 170_000 },
      (error, stdout, stderr) => {
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

describe('parseTryArgs', () => {
  it('takes the words last, and the flags anywhere before them', () => {
    expect(parseTryArgs(['--turn', 'examples/echo.mjs', '--dm', 'hello', 'there'])).toEqual({
      turn: 'examples/echo.mjs',
      dm: true,
      thread: false,
      text: 'hello there',
    });
  });
  it.each([
    [[], /say something/],
    [['--fail', 'meteor', 'hi'], /--fail "meteor" is not a fault; one of hub-dies, hub-down, ratelimited, store-hangs/],
    [['--bogus', 'hi'], /unknown argument "--bogus"/],
  ])('%j is a usage error', (argv, message) => {
    expect(() => parseTryArgs(argv)).toThrow(message);
  });
});

const view = (o: Partial<ReplyView>): ReplyView => ({ parts: [], text: '', done: true, answers: 1, by: 'drill-hub', ...o });

describe('what try prints', () => {
  it('the answer as it streams: each new piece once, a rewritten message shown again whole', () => {
    let out = '';
    const print = streamPrinter((s) => void (out += s));
    print(view({ text: 'Hi' }));
    print(view({ text: 'Hi there' }));
    print(view({ text: 'Hi there' }));
    print(view({ text: 'Hello there' }));
    expect(out).toBe('autohub: Hi there\n(the message now reads) Hello there');
  });
  it('says a turn the hub acked and the cloud copy answered was taken over', () => {
    const line = summaryLine({ view: view({ by: 'drill-cloud' }), routes: ['hub (200)'], ackedBy: 'hub', ms: 4200, commands: 7 });
    expect(line).toBe(
      'answered once by the cloud copy (drill-cloud), taken over from the hub that acked it; route: edge -> hub (200); 4.2 s; 7 store commands',
    );
  });
  it('says an answer written twice, twice', () => {
    expect(summaryLine({ view: view({ answers: 2 }), routes: ['hub (200)'], ackedBy: 'hub', ms: 100, commands: 4 })).toMatch(/^answered 2 times by the hub/);
  });
});

describe('what the bot showed beside its answer', () => {
  const call = (method: string, params: Record<string, string>, at = 2000, answer: unknown = { ok: true }): RecordedCall => ({
    method,
    params,
    at,
    status: 200,
    refused: false,
    answer,
  });
  const where = { channel: 'C1', thread: '100.000001', dm: false, since: 1000 };

  it("reads the thread's statuses in order, each once, not another thread's, an earlier message's or a refused one", () => {
    const calls = [
      call('assistant.threads.setStatus', { channel_id: 'C1', thread_ts: '100.000001', status: 'is thinking...', loading_messages: '["a","b"]' }),
      call('assistant.threads.setStatus', { channel_id: 'C1', thread_ts: '100.000001', status: 'is thinking...', loading_messages: '["a","b"]' }),
      call('assistant.threads.setStatus', { channel_id: 'C1', thread_ts: '100.000001', status: '' }),
      call('assistant.threads.setStatus', { channel_id: 'C1', thread_ts: '100.000001', status: 'is retrying...' }),
      call('assistant.threads.setStatus', { channel_id: 'C1', thread_ts: '999.000001', status: 'another thread' }),
      call('assistant.threads.setStatus', { channel_id: 'C1', thread_ts: '100.000001', status: 'too early' }, 500),
      call('assistant.threads.setStatus', { channel_id: 'C1', thread_ts: '100.000001', status: 'refused' }, 2000, { ok: false, error: 'invalid_arguments' }),
    ];
    const shown = shownFor(calls, where, [], () => undefined);
    expect(shownLine(shown)).toBe('shown: status "is thinking..." (loading: "a", "b"), then "is retrying..."; no tasks; no prompts');
  });

  it("shows the answer's tasks in their last state, and the prompts last set where the person writes (a DM's have no thread)", () => {
    const tasks = new Map([['10.000001', new Map([['t1', { title: 'Search', status: 'complete' }]])]]);
    const prompts = (params: Record<string, string>) =>
      call('assistant.threads.setSuggestedPrompts', { channel_id: 'D1', prompts: JSON.stringify([{ title: params.p, message: 'm' }]), ...params });
    const calls = [prompts({ p: 'first' }), prompts({ p: 'last', title: 'Try asking' }), prompts({ p: 'a thread of its own', thread_ts: '5.000001' })];
    const dm = shownFor(calls, { ...where, channel: 'D1', dm: true }, ['10.000001'], (ts) => tasks.get(ts));
    expect(shownLine(dm)).toBe('shown: no status; tasks: Search (complete); prompts "Try asking": "last"');
    // A channel's thread is no DM: the DM's prompts are not its.
    expect(shownFor(calls, { ...where, channel: 'D1' }, [], () => undefined).prompts).toBeUndefined();
  });
});

describe('npm run try, end to end', () => {
  it("prints the echo bot's answer and who answered it, and exits 0", async () => {
    const { code, stdout } = await runTry(['--turn', 'examples/echo.mjs', 'hello']);
    expect(stdout).toContain('you (#general): @autohub hello\nautohub: You said: hello\n');
    expect(stdout).toMatch(/answered once by the hub \(drill-hub\); route: edge -> hub \(200\); \d+\.\d s; \d+ store commands\n/);
    // echo's own status; a mention in a channel gets no prompts (they are set when a DM or an assistant thread opens).
    expect(stdout).toMatch(/\nshown: status "is listening\.\.\."; no tasks; no prompts\n$/);
    expect(code).toBe(0);
  }, 180_000);

  it('prints the status, loading messages, tasks and prompts the bot showed (before: only its text)', async () => {
    const bot = botFile(
      'shows-everything.mjs',
      [
        "export const status = 'is checking...';",
        "export const loadingMessages = ['Looking it up', 'Writing'];",
        "export const prompts = [{ title: 'Say hello', message: 'Hello!' }, { title: 'Ask the time', message: 'What time is it?' }];",
        "export const promptsTitle = 'Try asking';",
        'export async function* takeTurn() {',
        "  yield { type: 'task_update', id: 'look', title: 'Look it up', status: 'in_progress' };",
        "  yield { type: 'task_update', id: 'look', title: 'Look it up', status: 'complete' };",
        "  yield { type: 'task_update', id: 'check', title: 'Check it', status: 'error' };",
        "  yield 'found it';",
        '}',
        '',
      ].join('\n'),
    );
    // --dm opens the DM first, as a person does: the agent view sets the prompts then.
    const { code, stdout } = await runTry(['--turn', bot, '--dm', 'hi']);
    expect(stdout).toContain('autohub: found it\n');
    expect(stdout).toContain(
      '\nshown: status "is checking..." (loading: "Looking it up", "Writing"); tasks: Look it up (complete), Check it (error); prompts "Try asking": "Say hello", "Ask the time"\n',
    );
    expect(code).toBe(0);
  }, 180_000);

  it('runs AUTOHUB_TURN when no --turn is given (before, the drill copies got only PATH and ran the demo)', async () => {
    const { code, stdout } = await runTry(['--dm', 'from the environment'], { AUTOHUB_TURN: 'examples/echo.mjs' });
    expect(stdout).toContain('autohub: You said: from the environment\n');
    expect(code).toBe(0);
  }, 180_000);

  it("--fail hub-dies: the hub is killed mid-turn and the cloud copy's one answer prints", async () => {
    const { code, stdout } = await runTry(['--turn', 'examples/echo.mjs', '--fail', 'hub-dies', 'still there?']);
    expect(stdout.match(/You said: still there\?/g)).toHaveLength(1);
    expect(stdout).toMatch(/answered once by the cloud copy \(drill-cloud\), taken over from the hub that acked it; .*fault: the hub was killed/);
    expect(code).toBe(0);
  }, 180_000);

  it('a bot whose turn is a dead letter: try ends at the dead letter saying why (before, it waited its full 60 s and said nothing of why)', async () => {
    const bot = botFile('forty-two.mjs', 'export const takeTurn = () => 42;\n');
    const { code, stdout, stderr } = await runTry(['--turn', bot, 'hello']);
    expect(stdout).toMatch(/^NOT answered: a dead letter \(bot: takeTurn returned a number \(42\); it may return a string, .*\); route: edge -> hub \(200\)/m);
    expect(stderr).toMatch(/^try: the turn is a dead letter: bot: takeTurn returned a number \(42\)/m);
    expect(stderr).not.toContain('no complete answer');
    expect(code).toBe(1);
  }, 50_000); // under try's own 60 s: a try that waited them out fails here

  it('the time is to the whole answer (the stream stopped), not its first message; and a retry is said', async () => {
    const bot = botFile(
      'slow-after-a-retry.mjs',
      [
        "import { existsSync, writeFileSync } from 'node:fs';",
        "import { RetryAfterError } from 'autohub/bot';",
        '// Its first run, on whichever copy (each is a process of its own), is marked in a file beside it.',
        "const ran = new URL('./ran-once', import.meta.url);",
        'export async function* takeTurn() {',
        "  if (!existsSync(ran)) { writeFileSync(ran, ''); throw new RetryAfterError('warming up', 0); }",
        "  yield 'one ';",
        '  await new Promise((r) => setTimeout(r, 1500));',
        "  yield 'two';",
        '}',
        '',
      ].join('\n'),
    );
    const { code, stdout } = await runTry(['--turn', bot, 'hello']);
    expect(stdout).toContain('autohub: one two\n');
    // Either copy may take the retry (the cloud copy's answer reads 'taken over from the hub that acked it').
    const summary =
      /answered once by the (hub|cloud copy) [^;]*; route: edge -> hub \(200\); (\d+\.\d) s; retried once \(retryable: warming up\); \d+ store commands/.exec(
        stdout,
      );
    expect(summary, stdout).not.toBeNull();
    // The bot's own pause sits between the stream's start and its stop: the start alone is sooner.
    expect(Number(summary![2])).toBeGreaterThanOrEqual(1.5);
    expect(code).toBe(0);
  }, 180_000);

  it("ctx.history() is in true order offline: a follow-up sees the question, then the bot's answer (before: the answer first, its ts earlier)", async () => {
    const bot = botFile(
      'history-order.mjs',
      "export async function takeTurn(request, ctx) { const h = await ctx.history(); return h.length === 0 ? 'first answer' : h.map((m) => m.role).join(' then '); }\n",
    );
    const { code, stdout } = await runTry(['--turn', bot, '--thread', 'what came first?']);
    expect(stdout).toContain('autohub: first answer\n');
    expect(stdout).toContain('autohub: user then assistant\n');
    expect(code).toBe(0);
  }, 180_000);

  it('a bot that asks (ctx.ask): its question shows with its buttons, --answer clicks one, and the resumed turn answers once', async () => {
    const { code, stdout } = await runTry(['--turn', 'examples/approval.ts', '--answer', 'cancel', 'restart billing']);
    expect(stdout).toContain('(I would *restart* `billing`. Go ahead?)\nbuttons: [Go ahead] [Cancel]\nyou click: Cancel\n');
    expect(stdout).toContain('autohub: Cancelled by <@U0PERSON>: I did nothing.');
    expect(stdout).toMatch(/answered once by the (hub|cloud)/);
    expect(code).toBe(0);
  }, 180_000);

  it('a bot that cannot load is one line and exit 2, before any copy starts', async () => {
    const { code, stderr } = await runTry(['--turn', 'no-such-bot.mjs', 'hi']);
    expect(stderr).toMatch(/^try: AUTOHUB_TURN is invalid: .*no file at .*no-such-bot\.mjs/m);
    expect(code).toBe(2);
  }, 30_000);
});
