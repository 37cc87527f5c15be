/**
 * A bot module's `schedules` export, checked once at start-up: each entry's
 * slots (a cron expression in a time zone, by croner, which handles daylight
 * saving; or every `everyMs`, counted from the epoch so both copies name the
 * same slots) and where its answer goes. Pure.
 *
 * A wrong entry stops start-up with one line naming it (the caller makes it
 * a ConfigError), never an error at the first firing.
 */
import { Cron } from 'croner';
import { ConfigError } from '../errors/index.js';

/** One entry of a bot module's `schedules`, as the bot writes it. */
export interface ScheduleSpec {
  /** Unique among the schedules: letters, digits, `-` and `_`, up to 64. It names the slot's claim. */
  name: string;
  /** A cron expression (5 fields, or 6 with seconds first), read in `timezone`. One of `cron` or `everyMs`. */
  cron?: string;
  /** An IANA time zone for `cron` (`Europe/Paris`). @default UTC */
  timezone?: string;
  /** Every this many ms (at least 1,000), slots counted from the epoch. One of `cron` or `everyMs`. */
  everyMs?: number;
  /** The channel the answer is posted in, at the top level. One of `channel` or `dm`. */
  channel?: string;
  /** The person (a user id) the answer goes to, in the bot's DM with them. One of `channel` or `dm`. */
  dm?: string;
  /** Slots missed while no copy ran: the latest runs once, late (`latest`), or none do (`skip`). @default 'latest' */
  missed?: 'latest' | 'skip';
}

/** A checked schedule: its slots as epoch ms. */
export interface Schedule {
  readonly name: string;
  /** `cron 0 8 * * 1-5 Europe/Paris` or `every 3600000 ms`. */
  readonly every: string;
  readonly target: { channel: string } | { dm: string };
  readonly missed: 'latest' | 'skip';
  /** The first slot strictly after `ms`; undefined when there is none (a cron that never fires again). */
  nextAfter(ms: number): number | undefined;
  /** The latest slot at or before `ms`; undefined when there is none. */
  latestAtOrBefore(ms: number): number | undefined;
}

const NAME = /^[A-Za-z0-9_-]{1,64}$/;
/** The shortest `everyMs`: a schedule is not a busy loop. */
export const MIN_EVERY_MS = 1000;

export type ParsedSchedules = { ok: true; schedules: Schedule[] } | { ok: false; expected: string };

function cronSchedule(spec: ScheduleSpec, cron: string, timezone: string | undefined): Schedule | string {
  let job: Cron;
  try {
    job = new Cron(cron, { paused: true, ...(timezone ? { timezone } : {}) });
    // An unknown time zone is only found at the first computation: found here, at start-up.
    job.nextRun(new Date(0));
  } catch (error) {
    return `schedule "${spec.name}": a cron expression${timezone ? ` in an IANA time zone` : ''}, but ${JSON.stringify(cron)}${timezone ? ` in ${JSON.stringify(timezone)}` : ''} is refused (${String(
      (error as Error).message ?? error,
    )
      .split('\n')[0]
      ?.slice(0, 160)})`;
  }
  return {
    name: spec.name,
    every: `cron ${cron}${timezone ? ` ${timezone}` : ' UTC'}`,
    target: targetOf(spec),
    missed: spec.missed ?? 'latest',
    nextAfter: (ms) => job.nextRun(new Date(ms))?.getTime(),
    latestAtOrBefore: (ms) => job.previousRuns(1, new Date(ms + 1))[0]?.getTime(),
  };
}

function everySchedule(spec: ScheduleSpec, every: number): Schedule {
  return {
    name: spec.name,
    every: `every ${every} ms`,
    target: targetOf(spec),
    missed: spec.missed ?? 'latest',
    nextAfter: (ms) => (Math.floor(ms / every) + 1) * every,
    latestAtOrBefore: (ms) => Math.floor(ms / every) * every,
  };
}

function targetOf(spec: ScheduleSpec): Schedule['target'] {
  return spec.channel !== undefined ? { channel: spec.channel } : { dm: spec.dm! };
}

const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '';

/** One entry checked: the schedule, or what was expected of it. */
function one(value: unknown, index: number, seen: Set<string>): Schedule | string {
  if (typeof value !== 'object' || value === null) return `schedules[${index}]: an object { name, cron | everyMs, channel | dm }`;
  const spec = value as ScheduleSpec;
  if (typeof spec.name !== 'string' || !NAME.test(spec.name))
    return `schedules[${index}]: a name of letters, digits, - and _ (up to 64), but it is ${JSON.stringify(spec.name)}`;
  if (seen.has(spec.name)) return `schedule "${spec.name}": a name of its own, but two schedules have it`;
  seen.add(spec.name);
  const where = `schedule "${spec.name}"`;
  if ((spec.channel === undefined) === (spec.dm === undefined)) return `${where}: one of channel or dm (where its answer goes)`;
  if (spec.channel !== undefined && !nonEmpty(spec.channel)) return `${where}: channel to be a channel id (C...)`;
  if (spec.dm !== undefined && !nonEmpty(spec.dm)) return `${where}: dm to be a user id (U...)`;
  if (spec.missed !== undefined && spec.missed !== 'latest' && spec.missed !== 'skip')
    return `${where}: missed to be 'latest' or 'skip', but it is ${JSON.stringify(spec.missed)}`;
  if ((spec.cron === undefined) === (spec.everyMs === undefined)) return `${where}: one of cron or everyMs`;
  if (spec.everyMs !== undefined) {
    if (!Number.isInteger(spec.everyMs) || spec.everyMs < MIN_EVERY_MS)
      return `${where}: everyMs to be a whole number of ms, at least ${MIN_EVERY_MS}, but it is ${JSON.stringify(spec.everyMs)}`;
    if (spec.timezone !== undefined) return `${where}: timezone only with cron`;
    return everySchedule(spec, spec.everyMs);
  }
  if (!nonEmpty(spec.cron)) return `${where}: cron to be a cron expression, but it is ${JSON.stringify(spec.cron)}`;
  if (spec.timezone !== undefined && !nonEmpty(spec.timezone)) return `${where}: timezone to be an IANA time zone name`;
  return cronSchedule(spec, spec.cron, spec.timezone);
}

/** A module's `schedules` export (undefined: none), checked whole: the first wrong entry is named. */
export function parseSchedules(value: unknown): ParsedSchedules {
  if (value === undefined) return { ok: true, schedules: [] };
  if (!Array.isArray(value)) return { ok: false, expected: `schedules, when exported, to be an array, but it is a ${typeof value}` };
  const seen = new Set<string>();
  const schedules: Schedule[] = [];
  for (const [i, entry] of value.entries()) {
    const parsed = one(entry, i, seen);
    if (typeof parsed === 'string') return { ok: false, expected: parsed };
    schedules.push(parsed);
  }
  return { ok: true, schedules };
}

/** The schedules of a bot module, or a ConfigError naming AUTOHUB_TURN and the first wrong entry (one line at start-up). */
export function checkedSchedules(value: unknown, where = 'the bot module'): Schedule[] {
  const parsed = parseSchedules(value);
  if (!parsed.ok) throw new ConfigError('AUTOHUB_TURN', `${parsed.expected} (in ${where})`, where);
  return parsed.schedules;
}
