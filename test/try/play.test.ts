/**
 * The playground driven in a real headless Chromium as a person drives it, with the README's
 * bot (examples/playground.mjs): they type a mention and see the bot's own thinking status,
 * loading messages and tasks, the answer stream into its thread and the bot's own buttons under
 * it; they click one, kill the hub mid-answer, press Stop, answer the bot's question; at 1,440
 * and at 800 px. `PLAY_SCREENSHOTS=docs` saves the screenshots docs/try-and-play.md shows.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startPlayground, type Playground } from '../../try/play.js';
import { CHROMIUM_BIN, CHROMIUM_FLAGS } from '../support/chromium.js';

const BOT = 'examples/playground.mjs';
const END = '. Done.';
const SHOTS = process.env.PLAY_SCREENSHOTS;

let playground: Playground;
let browser: Browser;

beforeAll(async () => {
  playground = await startPlayground({ turn: BOT });
  browser = await chromium.launch({ executablePath: CHROMIUM_BIN, args: ['--headless', ...CHROMIUM_FLAGS] });
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await playground?.close();
}, 30_000);

async function open(width: number): Promise<Page> {
  const page = await browser.newPage({ viewport: { width, height: 820 } });
  await page.goto(playground.url);
  return page;
}

const saidCount = async () => ((await (await fetch(new URL('/api/state', playground.url))).json()) as { messages: unknown[] }).messages.length;

async function mention(page: Page, text: string): Promise<void> {
  await page.locator('#say').fill(text);
  await page.locator('#say').press('Enter');
}

describe('npm run play at 1,440 px', () => {
  let page: Page;
  beforeAll(async () => {
    page = await open(1440);
  });
  const thread = () => page.locator('#thread-list');

  it('serves on loopback only', () => {
    expect(new URL(playground.url).hostname).toBe('127.0.0.1');
  });

  it("a mention shows the bot's own status, loading messages and tasks, streams, and ends with the bot's own buttons; a click reaches the app signed", async () => {
    await mention(page, 'count for me');
    // The bot's `status` and one of its `loadingMessages`, under the thread while it thinks (assistant.threads.setStatus).
    await expect.poll(() => thread().locator('#status').textContent(), { timeout: 30_000, interval: 50 }).toContain('is thinking it over...');
    expect(await thread().locator('#status .loading').textContent()).toMatch(/Reading your message|Finding my fingers|Counting them twice/);
    // Wide: the thread opens beside the conversation, the switches beside it, nothing overlapping.
    const [main, side, aside] = await Promise.all(['main', '#thread', 'aside'].map(async (q) => (await page.locator(q).boundingBox())!));
    expect([main!.x + main!.width, side!.x + side!.width]).toEqual([side!.x, aside!.x]);
    expect(main!.width).toBeGreaterThan(380);
    // Its tasks (task_update chunks) and its text, streaming, with Slack's Stop.
    await expect.poll(() => thread().locator('.reply .text.open').count(), { timeout: 30_000, interval: 50 }).toBe(1);
    expect(await thread().locator('.reply .task .title').allTextContents()).toEqual(['Read your message', 'Count to ten']);
    expect(await thread().locator('.reply .task.in_progress').count()).toBe(1);
    expect(await thread().locator('#status').count()).toBe(0);
    await expect.poll(() => thread().locator('.reply').first().textContent(), { timeout: 30_000 }).toContain(END);
    expect(await thread().locator('.reply .task.complete').count()).toBe(2);
    expect(await thread().locator('.reply').count()).toBe(1);
    expect(await thread().locator('.reply .meta').first().textContent()).toContain('drill-hub');
    // The buttons are the bot's feedback_buttons element (its action_id), sent with chat.stopStream, not the page's.
    const good = thread().locator('button[data-act="playground_feedback"][data-value="good"]');
    expect(await good.textContent()).toBe('Good answer');
    await good.click();
    // The copy that got the click heard it: its signature checked, its onFeedback run.
    await expect.poll(() => page.locator('#timeline').textContent(), { timeout: 15_000 }).toMatch(/heard a feedback click \(positive\)/);
    expect(await page.locator('#timeline').textContent()).toMatch(/clicked "Good answer" \(Slack's post answered 200\)/);
  }, 90_000);

  it('the hub killed mid-answer from the switches: one complete answer, finished by the cloud copy', async () => {
    await mention(page, 'again, please');
    const open = thread().locator('.reply .text.open');
    await expect.poll(() => open.count(), { timeout: 30_000, interval: 50 }).toBe(1);
    await page.locator('button[data-switch="hub"][data-value="killed"]').click();
    await expect.poll(() => page.locator('button[data-switch="hub"].on').textContent(), { timeout: 15_000 }).toBe('killed');
    await expect.poll(() => thread().locator('.reply').last().textContent(), { timeout: 60_000 }).toContain(END);
    // Rewritten by the taker-over (chat.update), it may show as blocks: one message counts, whatever shows it.
    expect(await thread().locator('.reply', { hasText: 'Counting' }).count()).toBe(1);
    expect(await thread().locator('.reply .meta').last().textContent()).toContain('drill-cloud');
    expect(await page.locator('#timeline').textContent()).toMatch(/took over a turn/);
    await page.locator('button[data-switch="hub"][data-value="up"]').click();
    await expect.poll(() => page.locator('button[data-switch="hub"].on').textContent(), { timeout: 30_000 }).toBe('up');
  }, 150_000);

  it('Stop pressed mid-answer: the answer ends where it was, marked stopped by you', async () => {
    await page.locator('#to-dm').click();
    await mention(page, 'count slowly');
    await expect.poll(() => thread().locator('button.stopctl').count(), { timeout: 30_000, interval: 50 }).toBe(1);
    await thread().locator('button.stopctl').click();
    await expect.poll(() => thread().locator('.reply .meta').last().textContent(), { timeout: 15_000 }).toContain('stopped by you');
    expect(await thread().locator('.reply').last().textContent()).not.toContain(END);
  }, 60_000);

  it("ctx.ask: the bot's question with one button per choice; a click resumes the turn once, and the question shows the choice", async () => {
    await mention(page, 'ask me first');
    const quickly = thread().locator('button.b-button', { hasText: 'Quickly' });
    await expect.poll(() => quickly.count(), { timeout: 30_000, interval: 50 }).toBe(1);
    expect(await thread().locator('button.b-button').allTextContents()).toEqual(['Slowly', 'Quickly']);
    await quickly.click();
    // The buttons are replaced by the choice (chat.update), and the turn runs on from the answer.
    await expect.poll(() => thread().locator('.reply').first().textContent(), { timeout: 15_000 }).toContain('Quickly: chosen by @you');
    expect(await thread().locator('button.b-button').count()).toBe(0);
    await expect
      .poll(() => thread().locator('.reply').last().textContent(), { timeout: 30_000 })
      .toContain(`Counting quickly to ten: one two three four five six seven eight nine ten${END}`);
    expect(await page.locator('#timeline').textContent()).toMatch(/clicked "Quickly"[\s\S]*asked a question: the turn waits for a click/);
    expect(await thread().locator('.reply', { hasText: 'Counting' }).count()).toBe(1);
    if (SHOTS) await page.screenshot({ path: join(SHOTS, 'play.png') });
  }, 90_000);
});

describe('npm run play at 800 px', () => {
  let page: Page;
  beforeAll(async () => {
    page = await open(800);
  });
  const box = async (selector: string) => (await page.locator(selector).boundingBox())!;

  it('no thread open: the conversation fills the space up to the switches, no empty band', async () => {
    const main = await box('main');
    const aside = await box('aside');
    expect(main.x + main.width).toBe(aside.x);
    expect(main.width).toBeGreaterThan(300);
  });

  it('the message box and its Send button do not overlap, and a short message reads on one line', async () => {
    await page.locator('#to-dm').click();
    const text = await box('#say');
    const send = await box('#compose button');
    expect(text.x + text.width).toBeLessThanOrEqual(send.x);
    await mention(page, 'count at 800 px');
    await expect.poll(() => page.locator('#thread-list .reply .text.open').count(), { timeout: 30_000, interval: 50 }).toBe(1);
    const said = await box('#thread-list .msg.person .text');
    expect(said.height).toBeLessThan(30);
  }, 60_000);

  it("a thread takes the conversation's place, the answer streams and its buttons click; back returns", async () => {
    expect(await page.locator('main').isVisible()).toBe(false);
    const thread = await box('#thread');
    const aside = await box('aside');
    expect(thread.x + thread.width).toBe(aside.x);
    await expect.poll(() => page.locator('#thread-list .reply').last().textContent(), { timeout: 30_000 }).toContain(END);
    await page.locator('#thread-list button[data-value="bad"]').last().click();
    await expect.poll(() => page.locator('#timeline').textContent(), { timeout: 15_000 }).toMatch(/heard a feedback click \(negative\)/);
    if (SHOTS) await page.screenshot({ path: join(SHOTS, 'play-800.png') });
    await page.locator('#back').click();
    expect(await page.locator('main').isVisible()).toBe(true);
    expect(await page.locator('#thread').isVisible()).toBe(false);
  }, 60_000);
});

describe('npm run play refuses other web pages', () => {
  /** A raw request, so Host and Origin are exactly as given. */
  const raw = (o: { method: string; path: string; headers: Record<string, string>; body?: string }) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const url = new URL(playground.url);
      const req = request({ host: url.hostname, port: url.port, method: o.method, path: o.path, headers: o.headers }, (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end(o.body);
    });

  it('a text/plain POST from another origin is refused with 403 and says why; nothing is said', async () => {
    const before = await saidCount();
    const host = new URL(playground.url).host;
    const answer = await raw({
      method: 'POST',
      path: '/api/say',
      headers: { host, origin: 'https://evil.example', 'content-type': 'text/plain' },
      body: '{"text":"run the bot"}',
    });
    expect(answer.status).toBe(403);
    expect(answer.body).toMatch(/refused a request from Origin "https:\/\/evil\.example": only the playground's own page/);
    expect(await saidCount()).toBe(before);
  });

  it('a request under another Host name (DNS rebinding) is refused with 403, even a GET', async () => {
    const port = new URL(playground.url).port;
    const answer = await raw({ method: 'GET', path: '/api/state', headers: { host: `evil.example:${port}` } });
    expect(answer.status).toBe(403);
    expect(answer.body).toMatch(/refused a request for Host "evil\.example:\d+"/);
  });

  it('a POST that is not JSON is refused even without an Origin', async () => {
    const answer = await raw({
      method: 'POST',
      path: '/api/switch',
      headers: { host: new URL(playground.url).host, 'content-type': 'text/plain' },
      body: '{"name":"hub","value":"killed"}',
    });
    expect(answer.status).toBe(415);
  });

  it('in the browser: a page on another origin posts to it (text/plain, no-cors, and a form) and nothing happens', async () => {
    // The other site: a page on another loopback port, as any page the developer has open.
    const evil: Server = createServer((_, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<form id="f" method="POST" enctype="text/plain" action="${new URL('/api/switch', playground.url)}"><input name='{"name":"hub","value":"killed","x":"' value='"}'></form>
<script>fetch(${JSON.stringify(new URL('/api/say', playground.url).href)}, { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: '{"text":"run the bot"}' }).finally(() => document.getElementById('f').submit());</script>`);
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    try {
      const before = await saidCount();
      const page = await browser.newPage();
      const refused = page.waitForResponse((r) => r.url().endsWith('/api/switch'));
      await page.goto(`http://127.0.0.1:${(evil.address() as AddressInfo).port}/`);
      const answer = await refused;
      expect(answer.status()).toBe(403);
      expect(await answer.text()).toMatch(/refused a request from Origin "http:\/\/127\.0\.0\.1:\d+"/);
      expect(await saidCount()).toBe(before);
      const state = (await (await fetch(new URL('/api/state', playground.url))).json()) as { switches: { hub: string } };
      expect(state.switches.hub).toBe('up');
      await page.close();
    } finally {
      evil.close();
    }
  }, 30_000);
});
