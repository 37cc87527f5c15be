/**
 * A bot module's AI-app exports are checked when it loads (a bad one stops
 * start-up with one line naming AUTOHUB_TURN, never a failure at the first
 * mention), and what a function export returns is held to Slack's limits.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTurnModule } from '../../app/turn-module.js';
import { clampLoadingMessages, clampPrompts, defaultTitle, TITLE_MAX } from '../../lib/turn/ai-exports.js';
import { refreshIn, STATUS_REFRESH_MS } from '../../lib/turn/status.js';

const dir = mkdtempSync(join(tmpdir(), 'autohub-ai-'));
let n = 0;
const moduleWith = (exports: string) => {
  const path = join(dir, `bot-${++n}.mjs`);
  writeFileSync(path, `export const takeTurn = () => 'hi';\n${exports}\n`);
  return path;
};

describe("a bot module's AI-app exports", () => {
  it('status, loadingMessages, prompts, title and onFeedback load as exported', async () => {
    const mod = await loadTurnModule(
      moduleWith(
        [
          "export const status = 'is looking it up...';",
          "export const loadingMessages = ['Reading...', 'Writing...'];",
          "export const prompts = [{ title: 'Hi', message: 'Say hi' }];",
          "export const title = (request) => 'T: ' + request.text;",
          'export const onFeedback = () => {};',
        ].join('\n'),
      ),
    );
    expect(mod.status).toBe('is looking it up...');
    expect(mod.loadingMessages).toEqual(['Reading...', 'Writing...']);
    expect(mod.prompts).toEqual([{ title: 'Hi', message: 'Say hi' }]);
    expect(typeof mod.title).toBe('function');
    expect(typeof mod.onFeedback).toBe('function');
  });

  it.each([
    ['export const status = 42;', /status, when exported, to be a non-empty string, but it is a number/],
    ["export const loadingMessages = 'Thinking';", /loadingMessages, when exported, to be an array of non-empty strings or a function/],
    [
      "export const loadingMessages = Array.from({ length: 11 }, (_, i) => 'm' + i);",
      /loadingMessages to hold at most 10 strings \(Slack's limit\), but it holds 11/,
    ],
    ["export const prompts = [{ title: 'no message' }];", /prompts, when exported, to be an array of \{ title, message \}/],
    ["export const prompts = [1, 2, 3, 4, 5].map((i) => ({ title: 't' + i, message: 'm' + i }));", /prompts to hold at most 4 prompts/],
    ["export const title = 'A title';", /title, when exported, to be a function, but it is a string/],
    ['export const onFeedback = {};', /onFeedback, when exported, to be a function, but it is a object/],
    ["export const promptsTitle = '';", /promptsTitle, when exported, to be a non-empty string, but it is a string/],
    ['export const greeting = 7;', /greeting, when exported, to be a non-empty string or a function \(thread\), but it is a number/],
    [
      "export const notes = { dead: 'ok', gone: 'what' };",
      /notes to name only late, dead, retrying, skipped, interrupted, cutOff, botLoop, but it names "gone"/,
    ],
    ["export const notes = { dead: '' };", /notes\.dead to be a non-empty string of at most 4000 characters, but it is 0 characters/],
    ["export const notes = ['dead'];", /notes, when exported, to be an object of strings by name, but it is an array of 1/],
  ])('%s stops start-up with a line naming AUTOHUB_TURN', async (source, why) => {
    const path = moduleWith(source);
    await expect(loadTurnModule(path)).rejects.toThrow(/^AUTOHUB_TURN is invalid: expected /);
    await expect(loadTurnModule(path)).rejects.toThrow(why);
  });

  it('promptsTitle, greeting and notes load as exported', async () => {
    const mod = await loadTurnModule(
      moduleWith(["export const promptsTitle = 'Try asking';", "export const greeting = 'Hi!';", "export const notes = { dead: 'Oops.' };"].join('\n')),
    );
    expect(mod).toMatchObject({ promptsTitle: 'Try asking', greeting: 'Hi!', notes: { dead: 'Oops.' } });
  });

  it("a function's answer is held to Slack's limits: 10 loading messages, 4 well-formed prompts", () => {
    expect(clampLoadingMessages(Array.from({ length: 12 }, (_, i) => `m${i}`))).toHaveLength(10);
    expect(clampLoadingMessages(['a', '', 3, '  ', 'b'])).toEqual(['a', 'b']);
    expect(clampLoadingMessages('not a list')).toEqual([]);
    const prompts = [{ title: 'a', message: 'A' }, { title: 'b' }, ...[1, 2, 3, 4].map((i) => ({ title: `t${i}`, message: `m${i}`, extra: true }))];
    expect(clampPrompts(prompts)).toEqual([
      { title: 'a', message: 'A' },
      { title: 't1', message: 'm1' },
      { title: 't2', message: 'm2' },
      { title: 't3', message: 'm3' },
    ]);
  });

  it("the default title is the message's first line, trimmed, cut short when long", () => {
    expect(defaultTitle('\n  Plan the offsite  \nwith details')).toBe('Plan the offsite');
    expect(defaultTitle('')).toBe('');
    const long = defaultTitle('x'.repeat(500));
    expect(long).toHaveLength(TITLE_MAX);
    expect(long.endsWith('...')).toBe(true);
  });
});

describe('when the thinking status is refreshed', () => {
  it.each([
    [0, 0, STATUS_REFRESH_MS],
    [0, 30_000, 60_000],
    [0, STATUS_REFRESH_MS, 0],
    [0, 200_000, 0],
  ])('set at %i, now %i: the refresh is due in %i ms (Slack drops it at 120 s)', (setAt, now, due) => {
    expect(refreshIn(setAt, now)).toBe(due);
    expect(STATUS_REFRESH_MS).toBeLessThan(120_000);
  });
});
