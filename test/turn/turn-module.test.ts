/**
 * AUTOHUB_TURN names your bot's module. A good module
 * loads; a missing file, a syntax error or a module without takeTurn stops
 * start-up with one line naming AUTOHUB_TURN and the path, from `npm start`
 * itself as well as from the loader.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../lib/errors/index.js';
import { parseAppConfig } from '../../lib/config/index.js';
import { loadTurnModule, projectRoot } from '../../app/turn-module.js';
import { startToExit } from '../support/child-app.js';

const dir = mkdtempSync(join(tmpdir(), 'autohub-turn-'));
const write = (name: string, source: string) => {
  writeFileSync(join(dir, name), source);
  return join(dir, name);
};
const request = {
  text: 'hi',
  user: 'U1',
  channel: 'C1',
  threadTs: '1.1',
  ts: '1.1',
  eventId: 'Ev1',
  via: 'mention',
  late: false,
  files: [],
  copy: { role: 'hub', instance: 'hub-test' },
} as const;
const ctx = {} as never;

describe('loadTurnModule', () => {
  it('a module exporting takeTurn (and register) is loaded, by an absolute path', async () => {
    const path = write(
      'good.mjs',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the module's own source, with its template literal
      'export function takeTurn(request) { return `echo: ${request.text}`; }\nexport function register(app) { app.registered = true; }\n',
    );
    const mod = await loadTurnModule(path);
    expect(await mod.takeTurn({ ...request, files: [] }, ctx)).toBe('echo: hi');
    const app: { registered?: boolean } = {};
    await mod.register?.(app as never, {} as never);
    expect(app.registered).toBe(true);
  });

  it('a relative path starts at the project root, whatever the working directory', async () => {
    expect(projectRoot()).toBe(process.cwd());
    const mod = await loadTurnModule('examples/echo.mjs', { root: projectRoot() });
    expect(await mod.takeTurn({ ...request, files: [] }, ctx)).toMatchObject({ text: expect.stringMatching(/hi/) });
  });

  it('a TypeScript module loads (through tsx when this copy runs its build)', async () => {
    const path = write('typed.ts', 'export const takeTurn = (request: { text: string }): string => request.text.toUpperCase();\n');
    const viaTsx = async (url: string) => (await import('tsx/esm/api')).tsImport(url, import.meta.url);
    const mod = await loadTurnModule(path, { importTs: viaTsx });
    expect(await mod.takeTurn({ ...request, files: [] }, ctx)).toBe('HI');
  });

  it('a bot importing a package this install lacks is told where its dependencies go, so the prune keeps them', async () => {
    const path = write('needs-package.mjs', "import x from 'autohub-no-such-package';\nexport const takeTurn = () => x;\n");
    await expect(loadTurnModule(path)).rejects.toThrow(
      /Cannot find package 'autohub-no-such-package'.*\(a package your bot imports goes in package\.json's dependencies, `npm install --save-prod autohub-no-such-package`, so `npm ci --omit=dev` keeps it\)/,
    );
  });

  it('`export default { takeTurn }` is accepted', async () => {
    const path = write('default.mjs', 'export default { takeTurn: () => "from default" };\n');
    expect(await (await loadTurnModule(path)).takeTurn({ ...request, files: [] }, ctx)).toBe('from default');
  });

  it('concurrency and taskDisplayMode, when exported, are kept; any other value stops start-up naming what was expected', async () => {
    const good = write(
      'modes.mjs',
      "export const concurrency = 'parallel';\nexport const taskDisplayMode = 'plan';\nexport function takeTurn() { return 'ok'; }\n",
    );
    expect(await loadTurnModule(good)).toMatchObject({ concurrency: 'parallel', taskDisplayMode: 'plan' });
    const plain = await loadTurnModule(write('plain.mjs', "export function takeTurn() { return 'ok'; }\n"));
    expect(plain.concurrency).toBeUndefined();
    expect(plain.taskDisplayMode).toBeUndefined();
    await expect(loadTurnModule(write('bad-mode.mjs', "export const concurrency = 'debounce';\nexport function takeTurn() {}\n"))).rejects.toThrow(
      /AUTOHUB_TURN is invalid: expected concurrency, when exported, to be one of queue, parallel, interrupt, but it is "debounce"/,
    );
    await expect(loadTurnModule(write('bad-tasks.mjs', "export const taskDisplayMode = 'kanban';\nexport function takeTurn() {}\n"))).rejects.toThrow(
      /expected taskDisplayMode, when exported, to be one of timeline, plan, but it is "kanban"/,
    );
    expect(await loadTurnModule(write('edits.mjs', "export const edits = 'answer';\nexport function takeTurn() { return 'ok'; }\n"))).toMatchObject({
      edits: 'answer',
    });
    await expect(loadTurnModule(write('bad-edits.mjs', "export const edits = 'sometimes';\nexport function takeTurn() {}\n"))).rejects.toThrow(
      /expected edits, when exported, to be one of answer, ignore, but it is "sometimes"/,
    );
    expect(
      await loadTurnModule(write('follow-ups.mjs', "export const followUps = { minutes: 30 };\nexport function takeTurn() { return 'ok'; }\n")),
    ).toMatchObject({ followUps: { minutes: 30 } });
    await expect(loadTurnModule(write('bad-follow-ups.mjs', 'export const followUps = 30;\nexport function takeTurn() {}\n'))).rejects.toThrow(
      /expected followUps, when exported, to be \{ minutes \} with minutes a whole number from 1 to 1440, but it is 30 in /,
    );
  });

  it('unset, the demo turn answers, with the settings it is given', async () => {
    const mod = await loadTurnModule(undefined, { demo: { thinkMs: 0, chunkMs: 0 } });
    const reply = (await mod.takeTurn({ ...request, files: [] }, ctx)) as AsyncIterable<string>;
    let text = '';
    for await (const chunk of reply) text += chunk;
    expect(text).toBe('Hi <@U1>, I got that. Answered by the hub (hub-test).');
  });

  it.each([
    [
      'a missing file',
      () => join(dir, 'nope.mjs'),
      /^AUTOHUB_TURN is invalid: expected the path of your bot's module, but there is no file at .*nope\.mjs, received ".*nope\.mjs"$/,
    ],
    ['a directory', () => dir, /there is no file at/],
    [
      'a syntax error',
      () => write('broken.mjs', 'export function takeTurn( {\n'),
      /^AUTOHUB_TURN is invalid: expected a module that loads, but importing .*broken\.mjs failed: \w*Error: /,
    ],
    ['a module that throws as it loads', () => write('throws.mjs', 'throw new Error("no API key");\n'), /importing .*throws\.mjs failed: Error: no API key/],
    [
      'a module without takeTurn',
      () => write('empty.mjs', 'export const taketurn = 1;\nexport function reply() {}\n'),
      /^AUTOHUB_TURN is invalid: expected a module exporting a takeTurn\(request, ctx\) function, but .*empty\.mjs exports taketurn, reply, received/,
    ],
    ['takeTurn that is not a function', () => write('notfn.mjs', 'export const takeTurn = "hello";\n'), /exporting a takeTurn\(request, ctx\) function/],
    [
      'register that is not a function',
      () => write('badreg.mjs', 'export const takeTurn = () => "x";\nexport const register = {};\n'),
      /register, when exported, to be a function .* it is a object/,
    ],
  ])('%s stops start-up with one line naming AUTOHUB_TURN and the path', async (_what, path, message) => {
    const p = path();
    const error = await loadTurnModule(p).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain('\n');
  });
});

describe('AUTOHUB_TURN as a setting', () => {
  const base = { AUTOHUB_ROLE: 'hub', SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's' };
  it('is kept as given, unset by default', () => {
    expect(parseAppConfig(base).turn).toBeUndefined();
    expect(parseAppConfig({ ...base, AUTOHUB_TURN: 'examples/echo.mjs' }).turn).toBe('examples/echo.mjs');
  });
  it('a path that is not a module is refused with one line', () => {
    expect(() => parseAppConfig({ ...base, AUTOHUB_TURN: 'bot.py' })).toThrow(
      /^AUTOHUB_TURN is invalid: expected the path of an ES module that exports takeTurn, ending \.js, \.mjs or \.ts .*received "bot\.py"$/,
    );
  });
});

describe('`npm start` with AUTOHUB_TURN', () => {
  const run = (env: Record<string, string>) => startToExit(env);

  it('a module without takeTurn stops start-up with exit 1 and one line, before anything listens', () => {
    mkdirSync(join(dir, 'bot'), { recursive: true });
    const path = write('bot/index.mjs', 'export const hello = 1;\n');
    const result = run({ AUTOHUB_TURN: path });
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr.trim()).toMatch(
      /^autohub: AUTOHUB_TURN is invalid: expected a module exporting a takeTurn\(request, ctx\) function, but .*bot\/index\.mjs exports hello/,
    );
    expect(result.stdout).not.toMatch(/app\.listening|"event"/);
  });

  it('a module with a syntax error stops start-up with exit 1 and one line naming the SyntaxError and its file, line and column', () => {
    const path = write('bot/broken.mjs', 'export function takeTurn(request) {\n  return request.text +;\n}\n');
    const result = run({ AUTOHUB_TURN: path });
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr.trim()).toMatch(
      /^autohub: AUTOHUB_TURN is invalid: expected a module that loads, but importing .*bot\/broken\.mjs failed: SyntaxError at .*bot\/broken\.mjs:2:24: Unexpected token ';'/,
    );
  });

  it('a TypeScript module with a syntax error names its file, line and column too (not "TransformError: Transform failed with 1 error:")', () => {
    const path = write('bot/broken.ts', 'export function takeTurn(request: { text: string }): string {\n  const x = ;\n  return request.text;\n}\n');
    const result = run({ AUTOHUB_TURN: path });
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr.trim()).toMatch(/failed: SyntaxError at .*bot\/broken\.ts:2:13: /);
    expect(result.stderr).not.toContain('Transform failed');
  });
});
