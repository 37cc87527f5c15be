import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { prepareReportPath } from '../../drill/cli.js';
import { renderHtml } from '../../drill/report-html.js';
import { failed, renderTable, summaryLine, verdict } from '../../drill/report-table.js';
import { SCENARIOS } from '../../drill/scenarios.js';
import type { FaultWindow } from '../../drill/run-scenario.js';
import { dumpDom } from '../support/chromium.js';
import { scenarioResult } from '../support/drill-result.js';

const META = { factor: 120, store: 'redis-server', generatedAt: 'test' };
const tmp = () => mkdtempSync(join(tmpdir(), 'autohub-drill-report-'));

/** The terminal table's columns, as README's drill section lists them. */
const HEADERS = [
  'scenario',
  'sent',
  'answered',
  'lost',
  'dup',
  'retries',
  'hub',
  'cloud',
  'taken over',
  'dead',
  'ans+dead',
  'half',
  'step x2',
  'caught up',
  'late',
  'max wait',
  'ack p50',
  'ack p99',
  '>3s',
  'verdict',
];

/** Every figure a different number, so a column shifted or dropped shows. */
const BUSY = scenarioResult('busy', {
  sent: 10,
  answered: 9,
  lost: 1,
  lostMentions: ['1.000001'],
  duplicateReplies: 2,
  retries: 3,
  servedByHub: 7,
  servedByCloud: 3,
  takenOver: 5,
  deadLetters: 6,
  answeredThenDead: 14,
  halfWritten: 4,
  sideEffects: 14,
  sideEffectsTwice: 1,
  caughtUp: 8,
  late: 11,
  maxWaitMs: 12_345,
  ackP50Ms: 12,
  ackP99Ms: 2500,
  deadlineMisses: 13,
});
const BUSY_CELLS = ['busy', '10', '9', '1', '2', '3', '70%', '30%', '5', '6', '14', '4', '1', '8', '11', '12.3 s', '12 ms', '2500 ms', '13', 'FAIL'];

const textCells = (html: string) => [...html.matchAll(/<t[hd]>(?:<a [^>]*>)?([^<]*)(?:<\/a>)?<\/t[hd]>/g)].map((m) => m[1]!.replace(/&#62;/g, '>'));

describe("the drill's HTML report", () => {
  it('shows every column the terminal table shows (it dropped dead, half, caught up, late and max wait)', () => {
    const html = renderHtml([BUSY], META);
    const thead = html.match(/<thead>[\s\S]*?<\/thead>/)![0];
    const tbody = html.match(/<tbody>[\s\S]*?<\/tbody>/)![0];
    expect(textCells(thead)).toEqual(HEADERS);
    expect(textCells(tbody)).toEqual(BUSY_CELLS);
    const [header, , row] = renderTable([BUSY], false).split('\n');
    expect(header!.trim().split(/ {2,}/)).toEqual(HEADERS);
    expect(row!.trim().split(/ {2,}/)).toEqual(BUSY_CELLS);
  });

  it('says a pass with stated duplicates as the terminal does, and lists what did not hold under the table', () => {
    const stated = scenarioResult('stated', { duplicateReplies: 1, doubledMentions: ['1.000002'] }, [], { duplicatesPossible: 'the store may hang' });
    const unstaged = scenarioResult('unstaged', {}, [{ label: 'hub frozen', start: 1_002_000, end: 1_003_000, error: 'runs in this process' }]);
    const html = renderHtml([stated, unstaged], META);
    expect(textCells(html.match(/<tbody>[\s\S]*?<\/tbody>/)![0]).filter((c) => /^ok|^FAIL/.test(c))).toEqual(['ok (dups stated)', 'FAIL']);
    expect(html).toContain('note: stated: the store may hang');
    expect(html).toContain('fault not staged: unstaged: hub frozen: runs in this process');
  });

  it('says a pass with losses stated up front (lostByDesign) as such, with what was lost; a lost mention still fails it', () => {
    const why = { lostByDesign: 'the edge seals with another key' };
    const stated = scenarioResult('lost', { commands: 3, commandsAnswered: 1, clicks: 1, clicksHeard: 0 }, [], why);
    const mentions = scenarioResult('mentions', { commands: 3, commandsAnswered: 1, lost: 1, lostMentions: ['1.000001'] }, [], why);
    const html = renderHtml([stated, mentions], META);
    expect(textCells(html.match(/<tbody>[\s\S]*?<\/tbody>/)![0]).filter((c) => /^ok|^FAIL/.test(c))).toEqual(['ok (loss stated)', 'FAIL']);
    expect(html).toContain('note: lost: lost by design (2 of 3 slash commands, 1 of 1 clicks): the edge seals with another key');
    expect(renderTable([stated], false)).toContain('note: lost: lost by design (2 of 3 slash commands, 1 of 1 clicks)');
  });

  it('at 22 scenarios, links each row of the table to that scenario’s own timeline', () => {
    const names = Array.from({ length: 22 }, (_, i) => `scenario-no-${i + 1}`);
    const html = renderHtml(
      names.map((n) => scenarioResult(n)),
      META,
    );
    expect(html.indexOf('<table')).toBeLessThan(html.indexOf('<svg'));
    for (const name of names) {
      const link = html.match(new RegExp(`<td><a href="#([^"]+)">${name}</a></td>`));
      expect(link, name).not.toBeNull();
      expect(html).toMatch(new RegExp(`<section id="${link![1]}"><h2>${name} `));
      expect(html).toMatch(new RegExp(`<section id="${link![1]}">[^\\n]*<svg class="timeline" data-scenario="${name}"`));
    }
  });

  it('lays fault labels out in Chromium without one over another or past the edge (fence’s three began together)', () => {
    const at = (share: number) => 1_000_000 + share * 10_000;
    const window = (label: string, from: number, to: number): FaultWindow => ({ label, start: at(from), end: at(to) });
    const results = [
      scenarioResult('fence', {}, [
        window('stream starts refused 429 (Retry-After 1 s)', 0.3, 0.45),
        window('hub frozen (SIGSTOP) past its lease', 0.3, 0.7),
        window('store flushed (FLUSHALL) mid-turn', 0.3, 0.82),
      ]),
      scenarioResult('both-down', {}, [window('tunnel cut (530, error 1033)', 0.2, 0.6), window('cloud unreachable (530)', 0.2, 0.6)]),
      scenarioResult('close-together', {}, [window('posts take 800 ms', 0, 1), window('hub process dead', 0.02, 0.9)]),
      scenarioResult('at-the-end', {}, [window('a fault that begins just before the scenario ends, with a long label', 0.97, 1)]),
      scenarioResult('not-staged', {}, [{ ...window('hub frozen (SIGSTOP) past its lease', 0.3, 0.3), error: 'a copy in this process cannot be frozen' }]),
    ];
    const dir = tmp();
    const path = join(dir, 'report.html');
    const measure = `<script>
      const problems = [];
      for (const svg of document.querySelectorAll('svg.timeline')) {
        const name = svg.dataset.scenario;
        const width = svg.viewBox.baseVal.width;
        const labels = [...svg.querySelectorAll('.fault-label')].map((t) => ({ text: t.textContent, box: t.getBBox() }));
        for (const { text, box } of labels) if (box.x < 0 || box.y < 0 || box.x + box.width > width) problems.push(name + ': "' + text + '" outside the timeline');
        for (let i = 0; i < labels.length; i++)
          for (let j = i + 1; j < labels.length; j++) {
            const a = labels[i].box, b = labels[j].box;
            if (a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height)
              problems.push(name + ': "' + labels[i].text + '" over "' + labels[j].text + '"');
          }
        problems.push(name + ': ' + labels.length + ' label(s)');
      }
      const pre = document.createElement('pre');
      pre.id = 'layout';
      pre.textContent = problems.join('\\n');
      document.body.append(pre);
    </script>`;
    writeFileSync(path, renderHtml(results, META).replace('</body>', `${measure}</body>`));
    const layout = dumpDom(path)
      .match(/<pre id="layout">([\s\S]*?)<\/pre>/)?.[1]
      ?.split('\n');
    expect(layout).toEqual(['fence: 3 label(s)', 'both-down: 2 label(s)', 'close-together: 2 label(s)', 'at-the-end: 1 label(s)', 'not-staged: 1 label(s)']);
  });
});

describe('npm run drill -- --report PATH', () => {
  it('makes a missing folder, as mkdir -p does (a missing folder ended the run in a stack trace)', () => {
    const dir = tmp();
    prepareReportPath(join(dir, 'not', 'yet', 'report.html'));
    expect(statSync(join(dir, 'not', 'yet')).isDirectory()).toBe(true);
  });

  it.each([
    ['a folder', (dir: string) => dir, /^--report .+: is a folder; give a file name/],
    ['under a file', (dir: string) => join(dir, 'file', 'report.html'), /^--report .+: a part of its folder is a file/],
    ['deeper under a file', (dir: string) => join(dir, 'file', 'more', 'report.html'), /^--report .+: a part of its folder is a file/],
  ])('%s is a usage error of one line', (_, pathIn, message) => {
    const dir = tmp();
    writeFileSync(join(dir, 'file'), '');
    expect(() => prepareReportPath(pathIn(dir))).toThrow(message);
  });

  it('that cannot be written ends before the run, in one line and exit code 2, not a stack trace', () => {
    const dir = tmp();
    writeFileSync(join(dir, 'file'), '');
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'drill/cli.ts', '--report', join(dir, 'file', 'report.html')], {
      env: { PATH: process.env.PATH ?? '', AUTOHUB_ENV_FILE: 'none' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(result.status).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([`drill: --report ${join(dir, 'file', 'report.html')}: a part of its folder is a file, not a folder`]);
  });

  it('into a missing folder is written there, and a log that is no terminal shows each scenario start and end', () => {
    const dir = tmp();
    const path = join(dir, 'reports', 'today', 'drill.html');
    mkdirSync(join(dir, 'reports'));
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'drill/cli.ts', '--scenario', 'steady', '--events', '2', '--report', path], {
      env: { PATH: process.env.PATH ?? '', AUTOHUB_ENV_FILE: 'none' },
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(result.stderr).toMatch(/^drill: \[1\/1\] steady: started\ndrill: \[1\/1\] steady: ok in \d+\.\d s: 2\/2 answered, 0 lost, 0 dup, 0 half-written$/m);
    expect(result.stderr).toContain(`drill: report written to ${path}`);
    expect(result.status).toBe(0);
    expect(existsSync(path)).toBe(true);
    expect(readFileSync(path, 'utf8')).toContain('<svg class="timeline" data-scenario="steady"');
    // The terminal run ends saying what it proved, under a legend of the columns (it ended with the table alone).
    const lines = result.stdout.trim().split('\n');
    expect(lines.at(-1)).toBe(`1/1 scenarios ok: 2 mentions, 0 lost, 0 answered twice, 0 half-written, no ack over 3 s; report: ${path}`);
    expect(lines.at(-2)).toMatch(/^legend: sent: mentions sent; .*half: replies left half-written .*>3s: acks later than Slack's 3 s/);
    // A sample of the replies, as the person read them: the demo's greeting.
    expect(readFileSync(path, 'utf8')).toMatch(
      /<ul class="sample"[^>]*><li><span class="by hub">hub<\/span> Hi &#60;@U0PERSON&#62;, I got that\. Answered by the hub \(drill-hub\)\.<\/li>/,
    );
  }, 150_000);

  it('--turn runs your bot in the copies: its words in the report, each reply put to the copy that wrote it (the copies got only PATH, so the demo answered)', () => {
    const dir = tmp();
    const path = join(dir, 'drill.html');
    const result = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        'drill/cli.ts',
        '--scenario',
        'steady',
        '--scenario',
        'hub-offline',
        '--events',
        '2',
        '--turn',
        'examples/echo.mjs',
        '--report',
        path,
      ],
      { env: { PATH: process.env.PATH ?? '', AUTOHUB_ENV_FILE: 'none' }, encoding: 'utf8', timeout: 120_000 },
    );
    expect(result.stderr).toContain('drill: the bot: examples/echo.mjs');
    expect(result.status).toBe(0);
    const html = readFileSync(path, 'utf8');
    expect(html).toContain('<li><span class="by hub">hub</span> You said: hello</li>');
    expect(html).toContain('<li><span class="by cloud">cloud copy</span> You said: hello</li>');
    expect(html).not.toContain('I got that');
    expect(result.stdout).toMatch(/^steady +2 +2 +0 +0 +0 +100% +0% /m);
    expect(result.stdout).toMatch(/^hub-offline +2 +2 +0 +0 +0 +0% +100% /m);
  }, 150_000);

  it('--help lists every scenario with what it stages', () => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'drill/cli.ts', '--help'], {
      env: { PATH: process.env.PATH ?? '' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(result.status).toBe(0);
    for (const s of SCENARIOS) expect(result.stdout).toContain(`  ${s.name.padEnd(Math.max(...SCENARIOS.map((x) => x.name.length)))}  ${s.summary}\n`);
  });
});

describe('a scenario this bot does not exercise (frozen-step with a bot that has no ctx.step)', () => {
  const idle = { ...scenarioResult('frozen-step', { sent: 30 }), notExercised: ['no step filed a ticket: this bot runs no ctx.step with a side effect'] };

  it('says so, under the table and in the last line, and does not fail (before: FAIL, with a row of zeros)', () => {
    expect(failed(idle)).toBe(false);
    expect(verdict(idle)).toBe('not exercised');
    expect(renderTable([idle], false)).toContain('not exercised by this bot: frozen-step: no step filed a ticket');
    expect(summaryLine([scenarioResult('steady', { sent: 30 }), idle])).toMatch(/^2\/2 scenarios ok \(not exercised by this bot: frozen-step\): /);
  });

  it('a failure of its own still fails it', () => {
    expect(verdict({ ...idle, score: { ...idle.score, lost: 1 } })).toBe('FAIL');
  });
});

describe("the drill's last line", () => {
  it('names the scenarios that failed and counts what went wrong', () => {
    const line = summaryLine([scenarioResult('steady', { sent: 30 }), scenarioResult('broken', { sent: 30, lost: 2, deadlineMisses: 1 })]);
    expect(line).toBe('1/2 scenarios ok (FAIL: broken): 60 mentions, 2 lost, 0 answered twice, 0 half-written, 1 ack(s) over 3 s; report: --report FILE.html');
  });
});
