import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { copyLogLevel, copyLogPath, drillHelp, prepareReportPath } from '../../drill/cli.js';
import { CopyLogBook, SHOWN_LINES } from '../../drill/copy-log.js';
import { brokenOff, runDrill } from '../../drill/drill.js';
import { renderHtml } from '../../drill/report-html.js';
import { failed, problems, renderTable, summaryLine, tableHeader, tableLayout, tableRow, verdict, verdictText } from '../../drill/report-table.js';
import { SCENARIOS } from '../../drill/scenarios.js';
import type { FaultWindow, ScenarioResult } from '../../drill/run-scenario.js';
import { dumpDom } from '../support/chromium.js';
import { scenarioResult } from '../support/drill-result.js';

const META = { factor: 120, store: 'redis-server', generatedAt: 'test' };
const tmp = () => mkdtempSync(join(tmpdir(), 'autohub-drill-report-'));

/** The report table's columns, as docs/drill.md lists them. */
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
const BUSY_WHY = 'FAIL: 1 lost, 2 answered twice, 4 half-written, 14 answered and dead-lettered, 1 step run twice, 13 acks over 3 s';
const BUSY_CELLS = ['busy', '10', '9', '1', '2', '3', '70%', '30%', '5', '6', '14', '4', '1', '8', '11', '12.3 s', '12 ms', '2500 ms', '13', BUSY_WHY];
/** The terminal's narrower table: the same cells as the report's, under shorter headers where need be. */
const TERMINAL_HEADERS = ['scenario', 'sent', 'lost', 'dup', 'half', '>3s', 'hub', 'wait', 'verdict'];

const textCells = (html: string) => [...html.matchAll(/<t[hd]>(?:<a [^>]*>)?([^<]*)(?:<\/a>)?<\/t[hd]>/g)].map((m) => m[1]!.replace(/&#62;/g, '>'));

describe("the drill's HTML report", () => {
  it('shows every column, and the terminal the same cells of its narrower table (the report dropped dead, half, caught up, late and max wait)', () => {
    const html = renderHtml([BUSY], META);
    const thead = html.match(/<thead>[\s\S]*?<\/thead>/)![0];
    const tbody = html.match(/<tbody>[\s\S]*?<\/tbody>/)![0];
    expect(textCells(thead)).toEqual(HEADERS);
    expect(textCells(tbody)).toEqual(BUSY_CELLS);
    const [header, row] = renderTable([BUSY], false).split('\n');
    expect(header!.trim().split(/ {2,}/)).toEqual(TERMINAL_HEADERS);
    const cells = row!.trim().split(/ {2,}/);
    const at = (h: string) => BUSY_CELLS[HEADERS.indexOf(h)];
    expect(cells.slice(0, -1)).toEqual(['busy', at('sent'), at('lost'), at('dup'), at('half'), at('>3s'), at('hub'), at('max wait')]);
    // The verdict says what failed, clipped to the row's 100 columns; the report has it whole.
    expect(BUSY_WHY.startsWith(cells.at(-1)!.slice(0, -1))).toBe(true);
    expect(cells.at(-1)).toMatch(/^FAIL: 1 lost, 2 answered twice, .*…$/);
    expect(row).toHaveLength(100);
  });

  it('says a pass with stated duplicates as the terminal does, and lists what did not hold under the table', () => {
    const stated = scenarioResult('stated', { duplicateReplies: 1, doubledMentions: ['1.000002'] }, [], { duplicatesPossible: 'the store may hang' });
    const unstaged = scenarioResult('unstaged', {}, [{ label: 'hub frozen', start: 1_002_000, end: 1_003_000, error: 'runs in this process' }]);
    const html = renderHtml([stated, unstaged], META);
    expect(textCells(html.match(/<tbody>[\s\S]*?<\/tbody>/)![0]).filter((c) => /^ok|^FAIL/.test(c))).toEqual([
      'ok: 1 dup(s), stated up front',
      'FAIL: fault not staged: hub frozen',
    ]);
    expect(html).toContain('note: stated: the store may hang');
    expect(html).toContain('fault not staged: unstaged: hub frozen: runs in this process');
  });

  it('says a pass with losses stated up front (lostByDesign) as such, with what was lost; a lost mention still fails it', () => {
    const why = { lostByDesign: 'the edge seals with another key' };
    const stated = scenarioResult('lost', { commands: 3, commandsAnswered: 1, clicks: 1, clicksHeard: 0 }, [], why);
    const mentions = scenarioResult('mentions', { commands: 3, commandsAnswered: 1, lost: 1, lostMentions: ['1.000001'] }, [], why);
    const html = renderHtml([stated, mentions], META);
    expect(textCells(html.match(/<tbody>[\s\S]*?<\/tbody>/)![0]).filter((c) => /^ok|^FAIL/.test(c))).toEqual([
      'ok: lost 2 of 3 slash commands, 1 of 1 clicks, stated up front',
      expect.stringMatching(/^FAIL: 1 lost/),
    ]);
    expect(html).toContain('note: lost: lost by design (2 of 3 slash commands, 1 of 1 clicks): the edge seals with another key');
    // The terminal's row says it too (clipped to 100 columns; the report has it whole).
    expect(renderTable([stated], false)).toContain('ok: lost 2 of 3 slash commands');
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

  it("into a missing folder is written there; the terminal gets a row a scenario within 100 columns, the copies' log lines go beside the report", () => {
    const dir = tmp();
    const path = join(dir, 'reports', 'today', 'drill.html');
    mkdirSync(join(dir, 'reports'));
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'drill/cli.ts', '--scenario', 'steady', '--events', '2', '--report', path], {
      // At info the copies log every claim and reply: before, their lines at error came on the drill's terminal.
      env: { PATH: process.env.PATH ?? '', AUTOHUB_ENV_FILE: 'none', DRILL_LOG_LEVEL: 'info' },
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(result.status).toBe(0);
    const out = result.stdout.trimEnd().split('\n');
    const err = result.stderr.trimEnd().split('\n');
    for (const line of [...out, ...err]) expect(line.length, line).toBeLessThanOrEqual(100);
    expect(`${result.stdout}${result.stderr}`).not.toContain('{"');
    expect(err).toEqual([expect.stringMatching(/^drill: 1 scenario\(s\), 2 mention\(s\) each, time factor 120 /), 'drill: the bot: the demo turn']);
    expect(out[0]).toMatch(/^scenario +sent +lost +dup +half +>3s +hub +wait +verdict$/);
    expect(out[1]).toMatch(/^steady +2 +0 +0 +0 +0 +100% +\d+\.\d s +ok$/);
    expect(out[2]).toMatch(/^sent: mentions sent; lost: /);
    // The run ends saying what it proved, how long it took, and where the report and the log are (wrapped, not cut).
    const log = join(dir, 'reports', 'today', 'drill.log');
    const last = out
      .slice(out.findIndex((l) => l.startsWith('1/1 scenarios ok')))
      .join(' ')
      .replace(/ {3}/g, ' ');
    expect(last).toMatch(
      new RegExp(
        `^1/1 scenarios ok in \\d+\\.\\d s: 2 mentions, 0 lost, 0 answered twice, 0 half-written, no ack over 3 s; report: ${path}; copies' log: ${log} \\(\\d+ line\\(s\\) at info and above\\)$`,
      ),
    );
    expect(readFileSync(log, 'utf8')).toMatch(/^steady drill-hub \{"event":"app.started"/m);
    const html = readFileSync(path, 'utf8');
    expect(html).toContain('<svg class="timeline" data-scenario="steady"');
    expect(html).toMatch(/<details class="log"><summary>The copies' log: \d+ line\(s\) at info and above: [^<]*app\.started \(info\) ×2/);
    // A sample of the replies, as the person read them: the demo's greeting.
    expect(html).toMatch(
      /<ul class="sample"[^>]*><li><span class="by hub">hub<\/span> Hi &#60;@U0PERSON&#62;, I got that\. Answered by the hub \(drill-hub\)\.<\/li>/,
    );
  }, 150_000);

  it("a copies' log that cannot be written is said once, and the run goes on (it was an unhandled error)", () => {
    const log = join(tmp(), 'no', 'such', 'folder', 'copies.log');
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'drill/cli.ts', '--scenario', 'steady', '--events', '2'], {
      env: { PATH: process.env.PATH ?? '', AUTOHUB_ENV_FILE: 'none', DRILL_COPY_LOG: log },
      encoding: 'utf8',
      timeout: 120_000,
    });
    // Wrapped to 100 columns: read as one line.
    expect(result.stderr.replaceAll('\n  ', ' ')).toContain(`drill: the copies' log ${log}: not written: ENOENT`);
    expect(result.stdout).toMatch(/^steady +2 +0 +0 +0 +0 +100% .* ok$/m);
    expect(result.stdout).not.toContain("copies' log:");
    expect(result.status).toBe(0);
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
    expect(result.stdout).toMatch(/^steady +2 +0 +0 +0 +0 +100% /m);
    expect(result.stdout).toMatch(/^hub-offline +2 +0 +0 +0 +0 +0% /m);
  }, 150_000);

  it('--help lists every scenario with what it stages, within 100 columns', () => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'drill/cli.ts', '--help'], {
      env: { PATH: process.env.PATH ?? '' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(result.status).toBe(0);
    expect(result.stdout.trimEnd()).toBe(drillHelp());
    const width = Math.max(...SCENARIOS.map((x) => x.name.length));
    const unwrapped = drillHelp().replace(new RegExp(`\n {${width + 4}}`, 'g'), ' ');
    for (const s of SCENARIOS) expect(unwrapped).toContain(`  ${s.name.padEnd(width)}  ${s.summary}\n`.trimEnd());
    for (const line of drillHelp().split('\n')) expect(line.length, line).toBeLessThanOrEqual(100);
  });
});

describe('a scenario this bot does not exercise (frozen-step with a bot that has no ctx.step)', () => {
  const idle = { ...scenarioResult('frozen-step', { sent: 30 }), notExercised: ['no step filed a ticket: this bot runs no ctx.step with a side effect'] };

  it('says so, under the table and in the last line, and does not fail (before: FAIL, with a row of zeros)', () => {
    expect(failed(idle)).toBe(false);
    expect(verdict(idle)).toBe('not exercised');
    expect(renderTable([idle], false)).toMatch(/^frozen-step +30 .* not exercised: no step filed a ticket/m);
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

describe("the drill's terminal table, 100 columns wide", () => {
  /** Every way a scenario fails, each alone: its row must say which (before: FAIL, and a row of zeros). */
  const ALONE: Array<[string, Parameters<typeof scenarioResult>[1], Partial<ScenarioResult>, RegExp]> = [
    ['lost', { lost: 2 }, {}, /^2 lost$/],
    ['answered twice', { duplicateReplies: 1 }, {}, /^1 answered twice$/],
    ['half-written', { halfWritten: 1 }, {}, /^1 half-written$/],
    ['answered and dead', { answeredThenDead: 3 }, {}, /^3 answered and dead-lettered$/],
    ['a step twice', { sideEffects: 4, sideEffectsTwice: 1 }, {}, /^1 step run twice$/],
    ['out of order', { outOfOrder: 2 }, {}, /^2 follow-ups out of order$/],
    ['spinning', { spinningTasks: 1 }, {}, /^1 task left spinning$/],
    ['a late ack', { deadlineMisses: 1 }, {}, /^1 ack over 3 s$/],
    ['unmet', {}, { unmet: ['no step filed a ticket'] }, /^no step filed a ticket$/],
    ['a fault not staged', {}, { faults: [{ label: 'hub frozen', start: 0, end: 1, error: 'in process' }] }, /^fault not staged: hub frozen$/],
  ];

  it.each(ALONE)('a row failed by %s says so', (_, score, extra, said) => {
    const r = { ...scenarioResult('broken', score), ...extra };
    expect(failed(r)).toBe(true);
    expect(problems(r)).toEqual([expect.stringMatching(said)]);
    expect(verdictText(r)).toBe(`FAIL: ${problems(r)[0]}`);
  });

  it('a passing row has nothing to say after ok, and stated duplicates are no problem', () => {
    expect(problems(scenarioResult('steady'))).toEqual([]);
    expect(verdictText(scenarioResult('steady'))).toBe('ok');
    expect(problems({ ...scenarioResult('stated', { duplicateReplies: 2 }), duplicatesPossible: 'the store may hang' })).toEqual([]);
  });

  it('every scenario’s row, failing every way at 100,000 mentions, fits 100 columns, its verdict clipped with …', () => {
    const layout = tableLayout(
      SCENARIOS.map((s) => s.name),
      100_000,
    );
    const worst = { sent: 199_999, lost: 99_999, duplicateReplies: 99_999, halfWritten: 99_999, deadlineMisses: 99_999, maxWaitMs: 999_900 };
    expect(tableHeader(layout).length).toBeLessThanOrEqual(100);
    for (const s of SCENARIOS) {
      const row = tableRow(scenarioResult(s.name, worst, [], { unmet: ['a very long expectation of its own that was not met, and more'] }), layout);
      expect(row.length, row).toBeLessThanOrEqual(100);
      expect(row).toMatch(/ FAIL: 99999 lost, .*…$/);
    }
  });

  it('a coloured row is the plain row in its colour: red for FAIL, yellow for stated duplicates, green for ok', () => {
    const layout = tableLayout(['steady'], 30);
    const ESC = String.fromCharCode(27);
    const paint = (r: ScenarioResult) => tableRow(r, layout, true).match(new RegExp(`^${ESC}\\[(\\d+)m`))?.[1];
    expect(paint(scenarioResult('steady'))).toBe('32');
    expect(paint(scenarioResult('steady', { lost: 1 }))).toBe('31');
    expect(paint({ ...scenarioResult('steady', { duplicateReplies: 1 }), duplicatesPossible: 'said' })).toBe('33');
    expect(tableRow(scenarioResult('steady'), layout, true).replaceAll(new RegExp(`${ESC}\\[\\d+m`, 'g'), '')).toBe(tableRow(scenarioResult('steady'), layout));
  });
});

describe('a scenario that stops before its end', () => {
  it('fails with why, in its row, and the run goes on (before: the whole drill ended in a stack trace, its copies left running)', async () => {
    const missing = join(tmp(), 'no-such-bot.mjs');
    const drill = await runDrill({
      scenarios: SCENARIOS.filter((s) => s.name === 'steady' || s.name === 'hub-offline'),
      events: 2,
      factor: 120,
      inProcess: true,
      turn: missing,
    });
    expect(drill.results.map((r) => r.name)).toEqual(['steady', 'hub-offline']);
    for (const r of drill.results) {
      expect(failed(r)).toBe(true);
      expect(verdictText(r)).toMatch(/^FAIL: stopped: .*no-such-bot\.mjs/);
    }
    const layout = tableLayout(['steady'], 2);
    expect(tableRow(drill.results[0]!, layout)).toMatch(/^steady +0 +0 +0 +0 +0 +- +0\.0 s +FAIL: stopped: /);
  }, 60_000);

  it('a broken-off result counts nothing and names why', () => {
    const r = brokenOff(
      { name: 'hub-crash', summary: 'the hub is killed' },
      1000,
      new Error('a copy did not become healthy within 20 s (http://127.0.0.1:1)'),
      4000,
    );
    expect(r).toMatchObject({
      name: 'hub-crash',
      startedAt: 1000,
      endedAt: 4000,
      unmet: ['stopped: a copy did not become healthy within 20 s (http://127.0.0.1:1)'],
    });
    expect(problems(r)).toEqual(['stopped: a copy did not become healthy within 20 s (http://127.0.0.1:1)']);
  });
});

describe("the copies' log", () => {
  it('goes beside the report (drill.html: drill.log), else to DRILL_COPY_LOG, else to the temporary folder', () => {
    expect(copyLogPath('out/drill.html', {})).toBe('out/drill.log');
    expect(copyLogPath('out/drill.HTM', {})).toBe('out/drill.log');
    expect(copyLogPath('out/drill.html', { DRILL_COPY_LOG: '/var/tmp/copies.log' })).toBe('/var/tmp/copies.log');
    expect(copyLogPath(undefined, {}, 42)).toBe(join(tmpdir(), 'autohub-drill-42.log'));
  });

  it('is at error unless DRILL_LOG_LEVEL says (info when DRILL_COPY_LOG asks for the whole log); a level that is none is a usage error', () => {
    expect(copyLogLevel({})).toBe('error');
    expect(copyLogLevel({ DRILL_COPY_LOG: 'x.log' })).toBe('info');
    expect(copyLogLevel({ DRILL_LOG_LEVEL: 'warn', DRILL_COPY_LOG: 'x.log' })).toBe('warn');
    expect(() => copyLogLevel({ DRILL_LOG_LEVEL: 'loud' })).toThrow(/^DRILL_LOG_LEVEL "loud": one of debug, info, warn, error$/);
  });

  it('counts each event a scenario logged, keeps its first lines for the report, and shows them there', () => {
    const book = new CopyLogBook();
    for (let i = 0; i < SHOWN_LINES + 5; i++) book.take('drill-hub', JSON.stringify({ event: 'store.unreachable', level: 'error', i }));
    book.take('drill-cloud', JSON.stringify({ event: 'turn.dead_letter', level: 'error' }));
    book.take('drill', 'assistant: 4 clicks');
    const log = book.summary();
    expect(log.lines).toBe(SHOWN_LINES + 7);
    expect(log.events).toEqual([
      { event: 'store.unreachable', level: 'error', count: SHOWN_LINES + 5 },
      { event: 'not JSON', level: '-', count: 1 },
      { event: 'turn.dead_letter', level: 'error', count: 1 },
    ]);
    expect(log.first).toHaveLength(SHOWN_LINES);
    expect(log.first[0]).toBe('drill-hub {"event":"store.unreachable","level":"error","i":0}');
    const html = renderHtml([scenarioResult('redis-hang')], { ...META, logs: { 'redis-hang': log }, logLevel: 'error', logFile: 'drill.log' });
    expect(html).toContain(
      `<summary>The copies' log: ${SHOWN_LINES + 7} line(s) at error and above: store.unreachable (error) ×${SHOWN_LINES + 5}, not JSON (-) ×1, turn.dead_letter (error) ×1</summary>`,
    );
    expect(html).toContain('<p class="log">…and 7 more line(s) in drill.log.</p>');
    expect(renderHtml([scenarioResult('steady')], { ...META, logs: { steady: new CopyLogBook().summary() }, logLevel: 'error' })).toContain(
      '<p class="log">The copies logged nothing at error and above.</p>',
    );
  });
});
