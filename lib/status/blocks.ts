/**
 * The status page in Block Kit, for `/autohub status` and the App Home tab.
 * Pure: a snapshot and `now` in, blocks out.
 */
import { NOTICE_TITLES, type NoticeRecord } from '../notice/index.js';
import { replayVerdict } from '../ratelimit/index.js';
import type { CopyRecord } from './records.js';
import type { PeerView, StatusSnapshot } from './snapshot.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** A cloud leg silent this long is not a proven fallback. */
export const CLOUD_SILENT_WARN_MS = 3 * DAY_MS;

type Block = Record<string, unknown>;

export function ago(at: string | null | undefined, now: number): string {
  if (!at) return 'never';
  const ms = now - Date.parse(at);
  if (!Number.isFinite(ms)) return 'unknown';
  if (ms < 60_000) return `${Math.max(0, Math.round(ms / 1000))}s ago`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)}m ago`;
  if (ms < DAY_MS) return `${Math.round(ms / 3_600_000)}h ago`;
  return `${Math.round(ms / DAY_MS)}d ago`;
}

/** A heartbeat that says nothing of its interval (a copy older than `everyMs`) is late after this. */
export const COPY_SILENT_MS = 10 * 60 * 1000;
/** Beyond two intervals: the heartbeat's own round trip to the store, and a clock a little off. */
const SILENT_MARGIN_MS = 5_000;

/** How old a copy's heartbeat may be before the page calls it silent: about two of its intervals. */
export function silentAfterMs(copy: Pick<CopyRecord, 'everyMs'>): number {
  return copy.everyMs && copy.everyMs > 0 ? 2 * copy.everyMs + SILENT_MARGIN_MS : COPY_SILENT_MS;
}

/** `21:03:12 UTC`: when, on the page's clock. */
const clock = (ms: number): string => `${new Date(ms).toISOString().slice(11, 19)} UTC`;

/**
 * Why and since when a copy is silent, or undefined while it is heard from.
 * Pure. The answering copy is alive by definition; another is silent when its
 * heartbeat is late, or at once when the answering copy's peer watch lost its
 * role after that copy's last heartbeat (a replica heard from since is not).
 */
export function silence(copy: CopyRecord, now: number, answering: StatusSnapshot['answering'], peer?: PeerView): string | undefined {
  if (copy.instance === answering.instance) return undefined;
  const at = Date.parse(copy.at);
  if (!Number.isFinite(at)) return 'silent (no readable heartbeat)';
  if (peer && peer.role === copy.role && peer.state === 'down' && peer.downSince !== null && peer.downSince >= at) {
    return `silent since ${clock(at)} (not answering its health route since ${clock(peer.downSince)})`;
  }
  if (now - at > silentAfterMs(copy)) return `silent since ${clock(at)} (${ago(copy.at, now)})`;
  return undefined;
}

function copyLine(copy: CopyRecord, now: number, answering: StatusSnapshot['answering'], peer?: PeerView): string {
  const store = copy.storeOk === false ? ', store unreachable' : '';
  const quiet = silence(copy, now, answering, peer);
  const loop = copy.loopP99Ms ? `, loop p99 ${copy.loopP99Ms} ms` : '';
  const name = copy.role === 'hub' ? 'Hub' : 'Cloud copy';
  // A silent copy's last word is not its state now: say it was, not is.
  const state = quiet ? `:warning: ${quiet}; last said ${copy.status}${store}${loop}` : `${copy.status}${store}${loop} (seen ${ago(copy.at, now)})`;
  return `*${name}* \`${copy.instance}\`: ${state}`;
}

function copyLines(copies: readonly CopyRecord[], now: number, answering: StatusSnapshot['answering'], peer?: PeerView): string[] {
  const lines = copies.map((c) => copyLine(c, now, answering, peer));
  if (!copies.some((c) => c.role === 'hub')) lines.unshift('*Hub*: not seen yet');
  if (!copies.some((c) => c.role === 'cloud')) lines.push('*Cloud copy*: not seen yet');
  return lines;
}

const section = (text: string): Block => ({ type: 'section', text: { type: 'mrkdwn', text } });

/** The owner notices of the last 24 hours (each told by DM once an hour while its fault went on). */
function noticeSection(notices: readonly NoticeRecord[], now: number): string {
  const recent = notices.filter((n) => now - Date.parse(n.at) < DAY_MS);
  if (recent.length === 0) return '*Owner notices* (last 24 hours): none';
  const lines = recent.map(
    (n) => `• :warning: ${ago(n.at, now)}: *${NOTICE_TITLES[n.cause] ?? n.cause}*: ${n.detail} (${n.count} since the notice before), seen by \`${n.instance}\``,
  );
  return `*Owner notices* (last 24 hours)\n${lines.join('\n')}`;
}

/** A line per leg (edge -> hub, edge -> cloud): last proven, failed checks in a row. */
function legLines(legs: StatusSnapshot['legs'], now: number): string[] {
  if (!legs) return ['*Legs*: not checked yet (set `AUTOHUB_EDGE_URL` on the copies)'];
  return (['hub', 'cloud'] as const).map((leg) => {
    const l = legs[leg];
    const failing = l.failures > 0 ? `, :warning: ${l.failures} failed check(s) in a row (${l.lastFailure ?? 'no answer'})` : '';
    return `*Edge -> ${leg}*: last proven ${ago(l.provenAt, now)}${failing}`;
  });
}

/**
 * The edge's inbox as the answering copy last saw it: its size, its oldest entry's age and what was dropped
 * for age. Pure. Undefined where the copy drains no inbox (no shared store).
 */
export function inboxLine(inbox: StatusSnapshot['inbox'], now: number): string | undefined {
  if (!inbox) return undefined;
  // Not read yet is not empty: the drain reads it at start, when the peer comes back, and at most hourly on the looks.
  if (!inbox.checked_at) return "*Edge's inbox*: not read yet";
  const checked = `checked ${ago(inbox.checked_at, now)}`;
  const expired = inbox.expired > 0 ? `; :warning: ${inbox.expired} dropped for age (past \`AUTOHUB_INBOX_MAX_HOURS\`)` : '';
  const refused = (inbox.refused ?? 0) > 0 ? `; :warning: ${inbox.refused} refused while it was full (\`AUTOHUB_INBOX_MAX\`)` : '';
  const dropped = `${expired}${refused}`;
  if (inbox.size === 0) return `*Edge's inbox*: empty (${checked})${dropped}`;
  const oldest = inbox.oldest_at ? `, the oldest kept ${ago(inbox.oldest_at, now)}` : '';
  return `*Edge's inbox*: :warning: ${inbox.size} kept, not answered yet${oldest} (${checked})${dropped}`;
}

/** The answering copy's alert URL: where it posts, and when an alert last got through or was given up. Pure. */
export function alertLine(alert: StatusSnapshot['alert'], now: number): string | undefined {
  if (!alert) return undefined;
  const failed = alert.last_failed_at
    ? `; :warning: last failed ${ago(alert.last_failed_at, now)} (${alert.last_failure ?? 'unknown'}), ${alert.failed} given up since start`
    : '';
  return `*Alert URL*: ${alert.origin}, last delivered ${ago(alert.last_ok_at, now)}${failed}`;
}

/**
 * The bot's schedules as the answering copy knows them: each one's next slot, and its last run and by which
 * copy (this copy's instance, or the other copy's role). Pure. Undefined when the bot has none.
 */
export function scheduleLines(schedules: StatusSnapshot['schedules'], now: number): string | undefined {
  if (!schedules || schedules.length === 0) return undefined;
  const lines = schedules.map((x) => {
    const next = x.next_slot ? `next ${x.next_slot.slice(0, 16).replace('T', ' ')} UTC` : 'no slot to come';
    const last = x.last_run
      ? `last slot ${x.last_run.slot.slice(0, 16).replace('T', ' ')} UTC run by ${x.last_run.by} ${ago(x.last_run.at, now)}${x.last_run.late ? ', late' : ''}`
      : 'not run since this copy started';
    return `• \`${x.name}\` (${x.every}) to ${x.target}: ${next}; ${last}`;
  });
  return `*Schedules*\n${lines.join('\n')}`;
}

export function statusBlocks(s: StatusSnapshot, now: number): Block[] {
  const dayAgo = now - DAY_MS;
  const failovers = s.failoverTimes.filter((at) => Date.parse(at) >= dayAgo).length;
  const refusals = s.refusals.filter((r) => Date.parse(r.at) >= dayAgo);
  const verdicts = new Map<string, number>();
  for (const r of refusals) {
    const v = replayVerdict(r).verdict;
    verdicts.set(v, (verdicts.get(v) ?? 0) + 1);
  }
  const turns = s.turns.length
    ? s.turns
        .map((t) => {
          const how = t.outcome === 'dead' ? `*dead letter* (${t.reason ?? 'unknown'})` : 'answered';
          const tries = t.attempts > 1 ? `, ${t.attempts} runs` : '';
          const stream = t.stream ? `, ${t.stream.how} in ${t.stream.chunks} chunk(s) over ${(t.stream.ms / 1000).toFixed(1)} s` : '';
          const taken = t.takenOver ? ', taken over' : '';
          return `• ${ago(t.at, now)}: ${how} by *${t.role}* \`${t.instance}\`${tries}${stream}${taken}`;
        })
        .join('\n')
    : '_no turns recorded yet_';
  const silentFor = s.cloudLastServed ? now - Date.parse(s.cloudLastServed) : Infinity;
  const blocks: Block[] = [
    { type: 'header', text: { type: 'plain_text', text: 'autohub status' } },
    section(`Answering now: *${s.answering.role}* \`${s.answering.instance}\``),
    section(
      [
        ...copyLines(s.copies, now, s.answering, s.peer),
        `*Claim store*: ${s.storeKind}, ${s.storeOk === null ? 'not checked yet' : s.storeOk ? 'reachable' : 'unreachable'}`,
        ...legLines(s.legs, now),
        ...[inboxLine(s.inbox, now), alertLine(s.alert, now)].filter((l): l is string => l !== undefined),
      ].join('\n'),
    ),
    section(noticeSection(s.notices ?? [], now)),
    { type: 'divider' },
    section(`*Last ${s.turns.length} turn(s)*\n${turns}`),
    ...(() => {
      const lines = scheduleLines(s.schedules, now);
      return lines ? [section(lines)] : [];
    })(),
    { type: 'divider' },
    section(
      [
        `*Last 24 hours*: ${failovers} turn(s) served by the cloud copy (failover)`,
        `${refusals.length} rate-limit refusal(s)${refusals.length ? `: ${[...verdicts].map(([v, n]) => `${n} ${v}`).join(', ')}` : ''}`,
      ].join('\n'),
    ),
    section(
      [
        `*Cloud copy last served*: ${ago(s.cloudLastServed, now)}`,
        ...(s.lastFailover ? [`*Last failover*: ${ago(s.lastFailover.at, now)}, ${s.lastFailover.reason}`] : []),
        s.sweep
          ? `*Last catch-up sweep*: ${ago(s.sweep.at, now)}, over ${s.sweep.from.slice(11, 16)}-${s.sweep.to.slice(11, 16)} UTC in ${s.sweep.conversations} conversation(s): ${s.sweep.found} found, ${s.sweep.answered} answered late`
          : '*Last catch-up sweep*: none needed yet',
      ].join('\n'),
    ),
    { type: 'divider' },
    section(
      s.dead.length
        ? `*Dead letters* (\`npm run deadletter -- list\`)\n${s.dead
            .map((d) => `• \`${d.eventId}\` in ${d.channel ? `<#${d.channel}>` : 'an unknown channel'}: ${d.reason}, ${d.attempts} run(s), ${ago(d.at, now)}`)
            .join('\n')}`
        : '*Dead letters*: none',
    ),
  ];
  if (silentFor > CLOUD_SILENT_WARN_MS) {
    blocks.push({
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: ':warning: The cloud copy has served nothing for over 3 days: it is not a proven fallback. Run `npm run verify` against it.',
        },
      ],
    });
  }
  return blocks;
}
