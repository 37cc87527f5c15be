/**
 * The playground driven in a real headless Chromium as a person drives it:
 * they type a mention and see the answer stream into its thread; they kill
 * the hub mid-answer from the switches and still see one complete answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startPlayground, type Playground } from '../../try/play.js';
import { CHROMIUM_BIN, CHROMIUM_FLAGS } from '../support/chromium.js';

const BOT = 'test/support/slow-bot.mjs';
const END = ' - the end.';

describe('npm run play, in a browser', () => {
  let playground: Playground;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    playground = await startPlayground({ turn: BOT });
    browser = await chromium.launch({ executablePath: CHROMIUM_BIN, args: [...CHROMIUM_FLAGS] });
    page = await browser.newPage({ viewport: { width: 1440, height: 820 } });
    await page.goto(playground.url);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await playground?.close();
  }, 30_000);

  const thread = () => page.locator('#thread-list');

  it('serves on loopback only', () => {
    expect(new URL(playground.url).hostname).toBe('127.0.0.1');
  });

  it('a mention typed in #general is answered in its thread, streamed, once, by the hub', async () => {
    await page.locator('#say').fill('count for me');
    await page.locator('#say').press('Enter');
    // While it streams, the person sees part of it and a Stop button.
    await expect.poll(() => thread().locator('.reply .text.open').count(), { timeout: 30_000, interval: 50 }).toBe(1);
    await expect.poll(() => thread().locator('.reply .text').first().textContent(), { timeout: 15_000 }).toContain(END);
    expect(await thread().locator('.reply').count()).toBe(1);
    expect(await thread().locator('.reply .meta').first().textContent()).toContain('drill-hub');
    // The bot's answer offers feedback buttons; pressing one reaches the app as Slack sends it (a signed block_actions).
    await thread().locator('[data-feedback="positive"]').click();
    await expect.poll(() => page.locator('#timeline').textContent(), { timeout: 10_000 }).toMatch(/pressed Good answer \(answered 200\)/);
  }, 60_000);

  it('the hub killed mid-answer from the switches: one complete answer, finished by the cloud copy', async () => {
    await page.locator('#say').fill('again, please');
    await page.locator('#say').press('Enter');
    const open = thread().locator('.reply .text.open');
    await expect.poll(() => open.count(), { timeout: 30_000, interval: 50 }).toBe(1);
    await page.locator('button[data-switch="hub"][data-value="killed"]').click();
    await expect.poll(() => page.locator('button[data-switch="hub"].on').textContent(), { timeout: 15_000 }).toBe('killed');
    await expect.poll(() => thread().locator('.reply .text').last().textContent(), { timeout: 60_000 }).toContain(END);
    const texts = await thread().locator('.reply .text').allTextContents();
    expect(texts.filter((t) => t.includes('Counting'))).toHaveLength(1);
    expect(await thread().locator('.reply .meta').last().textContent()).toContain('drill-cloud');
    expect(await page.locator('#timeline').textContent()).toMatch(/took over a turn/);
    await page.locator('button[data-switch="hub"][data-value="up"]').click();
    await expect.poll(() => page.locator('button[data-switch="hub"].on').textContent(), { timeout: 30_000 }).toBe('up');
  }, 150_000);

  it('Stop pressed mid-answer: the answer ends where it was, marked stopped by you', async () => {
    await page.locator('#to-dm').click();
    await page.locator('#say').fill('count slowly');
    await page.locator('#say').press('Enter');
    await expect.poll(() => thread().locator('button.stop').count(), { timeout: 30_000, interval: 50 }).toBe(1);
    await thread().locator('button.stop').click();
    await expect.poll(() => thread().locator('.reply .meta').last().textContent(), { timeout: 15_000 }).toContain('stopped by you');
    expect(await thread().locator('.reply .text').last().textContent()).not.toContain(END);
  }, 60_000);
});
