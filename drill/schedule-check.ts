/**
 * The `schedule` scenario's score (`Scenario.schedule`): the ticks the drill's schedule bot posted
 * (drill/bots/schedule-bot.ts, `tick <slot> by <copy>`), read from the Web API. Each slot runs once
 * (none twice), none is lost while a copy is up (the hub dark: the cloud copy fires them), and of the
 * slots missed while both copies were down only the latest runs, once, when a copy returns.
 */
import type { FaultWindow } from './run-scenario.js';
import type { RecordedCall } from './sim/fake-web-api.js';

export interface ScheduleTraffic {
  /** The schedule's period (DRILL_TICK_MS, at least 1,000). */
  everyMs: number;
  /** Its channel (drill/bots/schedule-bot.ts's TICK_CHANNEL). */
  channel: string;
  /** The label of the fault that takes both copies down: slots in it may be missed (all but the latest). */
  bothDownLabel: string;
  /** The label of the fault that takes the hub down alone: the cloud copy must fire slots in it. */
  hubDarkLabel: string;
}

export interface ScheduleFigures {
  slots: number;
  slotsTwice: number;
  slotsLost: number;
  byCloudWhileHubDark: number;
}

/** What the ticks posted since `startedAt` came to; unmet and not-exercised lines. */
export function scheduleScore(
  posts: readonly RecordedCall[],
  windows: readonly FaultWindow[],
  o: ScheduleTraffic,
  startedAt: number,
  ownBot: boolean,
): { figures: ScheduleFigures; unmet: string[]; notExercised: string[] } {
  const ticks = posts
    .filter((c) => c.at >= startedAt && c.params.channel === o.channel)
    .map((c) => /\btick (\S+) by (\S+)/.exec(c.params.text ?? ''))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ slot: Date.parse(m[1]!), by: m[2]! }));
  const figures: ScheduleFigures = { slots: 0, slotsTwice: 0, slotsLost: 0, byCloudWhileHubDark: 0 };
  if (ticks.length === 0) {
    const what = 'no schedule fired: this bot exports no `schedules` (the drill schedule bot does: run the drill without --turn)';
    return ownBot
      ? { figures, unmet: [], notExercised: [what] }
      : { figures, unmet: ['no schedule fired: the scenario did not test what it says'], notExercised: [] };
  }
  const bySlot = new Map<number, number>();
  for (const t of ticks) bySlot.set(t.slot, (bySlot.get(t.slot) ?? 0) + 1);
  const slots = [...bySlot.keys()].sort((a, b) => a - b);
  figures.slots = slots.length;
  figures.slotsTwice = [...bySlot.values()].filter((n) => n > 1).length;
  const down = windows.filter((w) => w.label === o.bothDownLabel);
  // A slot may be missed when it fell while both copies were down (from a period before they went, as a
  // slot due then may not have been claimed yet, until they were both back up).
  const excused = (slot: number) => down.some((w) => slot >= w.start - o.everyMs && slot <= w.end);
  const lost: number[] = [];
  for (let slot = slots[0]!; slot <= slots.at(-1)!; slot += o.everyMs) if (!bySlot.has(slot) && !excused(slot)) lost.push(slot);
  figures.slotsLost = lost.length;
  const dark = windows.filter((w) => w.label === o.hubDarkLabel);
  figures.byCloudWhileHubDark = ticks.filter((t) => t.by.includes('cloud') && dark.some((w) => t.slot >= w.start && t.slot <= w.end)).length;
  const unmet: string[] = [];
  if (figures.slotsTwice > 0) unmet.push(`${figures.slotsTwice} slots run twice`);
  if (lost.length > 0)
    unmet.push(
      `${lost.length} slots lost while a copy was up: ${lost
        .slice(0, 5)
        .map((s) => new Date(s).toISOString())
        .join(', ')}`,
    );
  for (const w of down) {
    // 'latest': of the slots missed while both were down, the latest runs once, late, when a copy returns.
    const inside = slots.filter((s) => s > w.start && s <= w.end);
    if (inside.length === 0) unmet.push('no slot missed while both copies were down ran when they returned (missed: latest)');
  }
  if (dark.length > 0 && figures.byCloudWhileHubDark < 2) {
    unmet.push(`the cloud copy fired ${figures.byCloudWhileHubDark} slots while the hub was dark: the scenario did not test what it says`);
  }
  return { figures, unmet, notExercised: [] };
}
