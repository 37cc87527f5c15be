/**
 * The docs' counts and bounds are read from the code or not written: the docs said 22 scenarios while 31
 * ran. Each figure below, wherever README.md or docs/ writes it in that phrase, must be the code's; each
 * phrase must still be found somewhere, so a reworded sentence drops its row here rather than escaping it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SCENARIOS } from '../../drill/scenarios.js';
import { MAX_ASK_TIMEOUT_MS, MAX_PARKED } from '../../lib/ask/question.js';
import { ALERT_AFTER } from '../../lib/legs/leg-record.js';
import { STORE_LIMITS } from '../../lib/store/index.js';
import { MAX_LOADING_MESSAGES, MAX_PROMPTS } from '../../lib/turn/types.js';

const ROOT = join(import.meta.dirname, '../..');
const pages = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => join('docs', f)),
];
const text = new Map(pages.map((page) => [page, readFileSync(join(ROOT, page), 'utf8').replace(/\s+/g, ' ')]));

/** What a figure is, the phrases that write it (the figure their first group), and the code's value. */
interface Figure {
  what: string;
  phrases: RegExp[];
  value: number;
  /** The docs now write none (the scenarios: `npm run drill -- --help` counts them); one written later must still be right. */
  mayBeAbsent?: boolean;
}

const HOUR_S = 3600;

const FIGURES: Figure[] = [
  {
    what: "the drill's scenarios",
    phrases: [/\b(\d+)(?:\/\d+)? (?:failure )?scenarios\b/g, /\b\d+\/(\d+) scenarios\b/g],
    value: SCENARIOS.length,
    mayBeAbsent: true,
  },
  { what: 'steps kept a turn', phrases: [/at most \**(\d+) steps/g, /at most (\d+) a turn/g], value: STORE_LIMITS.stepsPerTurn },
  {
    what: "a claim's life, in hours",
    phrases: [
      /its claim is kept (\d+) h\b/g,
      /\(a claim (\d+) h:/g,
      /\((\d+) h, `claimTtlSeconds`\)/g,
      /live (\d+) h instead of 24 h \(`claimTtlSeconds`/g,
      /lives (\d+) h, a day past Slack's last redelivery/g,
    ],
    value: STORE_LIMITS.claimTtlSeconds / HOUR_S,
  },
  { what: 'turns waiting in one thread', phrases: [/At most (\d+) turns wait in one thread/g], value: STORE_LIMITS.conversationWaiting },
  { what: 'questions waiting at once', phrases: [/At most (\d+) questions wait at once/g], value: MAX_PARKED },
  {
    what: "a question's longest wait, in hours",
    phrases: [/(?:at most|up to) (\d+) (?:hours|h)\b/g, /from 1 s to (\d+) h\b/g],
    value: MAX_ASK_TIMEOUT_MS / (HOUR_S * 1000),
  },
  { what: 'suggested prompts', phrases: [/up to (\d+) `\{ title, message \}`/g, /cut to (\d+) well-formed prompts/g], value: MAX_PROMPTS },
  {
    what: 'loading messages',
    phrases: [/up to (\d+) strings, or `\(request\) => strings`/g, /rotates while the turn runs\. A function's answer is cut to (\d+)\./g],
    value: MAX_LOADING_MESSAGES,
  },
  { what: 'failed leg checks before the owner is told', phrases: [/failed (\d+) checks in a row/g], value: ALERT_AFTER },
];

/** Every figure `figure`'s phrases write in the docs, with its page. */
function written(figure: Figure): Array<{ page: string; n: number; said: string }> {
  return [...text].flatMap(([page, body]) => figure.phrases.flatMap((p) => [...body.matchAll(p)].map((m) => ({ page, n: Number(m[1]), said: m[0] }))));
}

describe("the docs' figures are the code's", () => {
  it.each(FIGURES)('$what: each is the code’s', (figure) => {
    const found = written(figure);
    if (!figure.mayBeAbsent) expect(found.length, `no page writes ${figure.what} in these words any more: drop or reword the row`).toBeGreaterThan(0);
    for (const { page, n, said } of found) expect(n, `"${said}" in ${page}`).toBe(figure.value);
  });

  it('catches a figure that is not the code’s (the check itself)', () => {
    const figure = FIGURES.find((f) => f.what === 'turns waiting in one thread')!;
    text.set('docs/made-up.md', 'At most 7 turns wait in one thread.');
    try {
      expect(written(figure).find((w) => w.page === 'docs/made-up.md')).toMatchObject({ n: 7 });
      expect(figure.value).not.toBe(7);
    } finally {
      text.delete('docs/made-up.md');
    }
  });
});
