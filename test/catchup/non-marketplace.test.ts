/**
 * The catch-up under Slack's limits for non-Marketplace apps (issue 45, item 9;
 * https://docs.slack.dev/apis/web-api/rate-limits, "App types and rate limits"): conversations.history and
 * conversations.replies once a minute, 15 objects a page, for a commercially distributed app outside the
 * Marketplace. Before, the sweep kept its Tier 3 pace (one call per 1.2 s) whatever Slack answered: under
 * that regime nearly every call was refused first and waited out inside the rate-limit layer, and each took
 * the minute's one read that live turns (ctx.history(), a takeover's thread check) needed. Now the sweep
 * learns the regime from Slack's answers (a Retry-After near a minute, or a page cut at 15) and reads one
 * call every 2 minutes, 15 a page; an app Slack gives Tier 3 keeps its pace. The real WebClient over the
 * rate-limit fetch against the fake Slack; time is virtual.
 */
import { WebClient } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import { CatchupSweeper, LIMITED_PACE_MS } from '../../lib/catchup/index.js';
import { createMemoryLogger, silentLogger } from '../../lib/log/index.js';
import { createRateLimitFetch } from '../../lib/ratelimit/index.js';
import { MemoryStore } from '../../lib/store/index.js';
import { useFakeWebApiPerTest } from '../support/fixtures.js';
import { virtualTime } from '../support/virtual-time.js';

const START = Date.now();
const vt = virtualTime(START);
const ts = (ms: number, i = 0) => (ms / 1000 + i / 1e6).toFixed(6);

describe('the catch-up sweep, as Slack limits a non-Marketplace app', () => {
  const api = useFakeWebApiPerTest({ now: vt.now });

  /** A channel of 40 people's messages in the window, two of them mentions, and a thread of 20 replies with one; a DM. */
  function seed(now: number): string[] {
    const mentions: string[] = [];
    for (let i = 0; i < 40; i++) {
      const at = ts(now - 500_000 + i * 1000);
      const mention = i === 3 || i === 31;
      api.addMessage('C0NM', { ts: at, user: 'U0PERSON', text: mention ? '<@UAUTOHUB> look' : 'chatter' });
      if (mention) mentions.push(at);
    }
    const parent = ts(now - 3_600_000);
    api.addMessage('C0NM', { ts: parent, user: 'U0OTHER', text: 'plans?' });
    for (let i = 0; i < 20; i++) {
      const at = ts(now - 400_000, i);
      api.addMessage('C0NM', { ts: at, thread_ts: parent, user: 'U0PERSON', text: i === 17 ? '<@UAUTOHUB> which?' : 'hm' });
      if (i === 17) mentions.push(at);
    }
    const dm = ts(now - 300_000);
    api.addMessage('D0NM', { ts: dm, user: 'U0PERSON', text: 'hi', im: true });
    mentions.push(dm);
    return mentions.sort();
  }

  function sweeper(log = silentLogger) {
    const injected: string[] = [];
    let made: CatchupSweeper | undefined;
    const fetch = createRateLimitFetch({ now: vt.now, sleep: vt.sleep, budgetMs: 600_000, onRefusal: (r) => made?.noticeRefusal(r) });
    made = new CatchupSweeper({
      client: new WebClient('xoxb-test', { slackApiUrl: api.url, retryConfig: { retries: 0 }, fetch }),
      store: new MemoryStore({ now: vt.now }),
      inject: async (envelope) => {
        injected.push(String((envelope.event as { ts: string }).ts));
        return 'claimed';
      },
      instance: 'hub',
      log,
      maxMs: 24 * 3_600_000,
      now: vt.now,
      sleep: vt.sleep,
    });
    return { sweeper: made, injected };
  }

  const historyCalls = (from: number) => api.calls.slice(from).filter((c) => c.method === 'conversations.history' || c.method === 'conversations.replies');
  /** The gaps between accepted history and replies calls, on Slack's (the fake's, virtual) clock. */
  const gaps = (calls: ReturnType<typeof historyCalls>) => {
    const accepted = calls.filter((c) => !c.refused).map((c) => c.at);
    return accepted.slice(1).map((at, i) => at - accepted[i]!);
  };

  it('learns the regime from a refusal with a Retry-After near a minute: one refusal, then a call every 2 minutes, 15 a page, and every mention found', async () => {
    const now = vt.now();
    const mentions = seed(now);
    // Once a minute, 429 with a whole-second Retry-After, as Slack answers it; no page cap, so only the refusal tells.
    api.enforceInterval('conversations.history', 60_000, '429', 'whole');
    api.enforceInterval('conversations.replies', 60_000, '429', 'whole');
    const memory = createMemoryLogger();
    const { sweeper: s, injected } = sweeper(memory);
    const from = api.calls.length;
    await s.sweep({ from: now - 600_000, to: now - 5_000 });
    const calls = historyCalls(from);
    expect(calls.filter((c) => c.refused)).toHaveLength(1);
    expect(s.regime).toBe('limited');
    // After the refused call's own retry (sent once its Retry-After was over), every call asks 15 and waits 2 minutes.
    const after = calls.slice(calls.findIndex((c) => c.refused) + 1);
    expect(gaps(after).every((g) => g >= LIMITED_PACE_MS)).toBe(true);
    expect(after.slice(1).every((c) => c.params.limit === '15')).toBe(true);
    expect(injected.sort()).toEqual(mentions);
    expect(memory.lines.filter((l) => l.event === 'catchup.paced')).toEqual([expect.objectContaining({ by: 'retry_after', paceMs: 120_000, pageLimit: 15 })]);
  });

  it('learns it from a page cut at 15 before any refusal: no call refused at all, and every mention found across pages of 15', async () => {
    const now = vt.now();
    const mentions = seed(now);
    api.nonMarketplace(true);
    const { sweeper: s, injected } = sweeper();
    const from = api.calls.length;
    await s.sweep({ from: now - 600_000, to: now - 5_000 });
    const calls = historyCalls(from);
    expect(calls.filter((c) => c.refused)).toEqual([]);
    expect(s.regime).toBe('limited');
    expect(gaps(calls).every((g) => g >= LIMITED_PACE_MS)).toBe(true);
    expect(calls.slice(1).every((c) => c.params.limit === '15')).toBe(true);
    expect(injected.sort()).toEqual(mentions);
  });

  it('an app Slack gives Tier 3 keeps its pace: 200 a page, 1.2 s between calls', async () => {
    const now = vt.now();
    const mentions = seed(now);
    const { sweeper: s, injected } = sweeper();
    const from = api.calls.length;
    const slept = vt.slept.length;
    await s.sweep({ from: now - 600_000, to: now - 5_000 });
    expect(s.regime).toBe('tier3');
    expect(historyCalls(from).every((c) => c.params.limit === '200' && !c.refused)).toBe(true);
    expect(vt.slept.slice(slept).every((ms) => ms === 1200)).toBe(true);
    expect(injected.sort()).toEqual(mentions);
  });
});
