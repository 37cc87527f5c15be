/**
 * What `both-down-edge-key` expects beyond the usual (issue 43, break 4): the edge sealed what it kept with a
 * store key the copies do not hold. Nothing kept can be opened, so nothing kept can be answered; the truth is
 * that each is counted as not opened, the owner is told once how many and how to check (never that they were
 * answered or taken up), the health bodies show the two keys apart, and `npm run verify` says so.
 */
import { runVerify } from '../app/cli/verify.js';
import { DRILL_HEALTH_TOKEN } from './copies.js';
import { DRILL_SECRET, type Harness } from './harness.js';

/** The outage's end note when deliveries were dropped (lib/inbox/drainer.ts outageEndText): how many unopened, and the way to check. */
const DROPPED = /^The edge's inbox is empty again: .* (\d+) could not be opened: .*`npm run verify` compares them\.$/;
/** A note that says the kept deliveries were answered or taken up: false here, whatever its count. */
const ANSWERED = /deliveries the edge kept are (?:answered|taken up)|the rest are taken up/;

interface Health {
  inbox?: { store_key_id?: unknown; size?: unknown; kept_here?: unknown };
  store_key_ids?: unknown;
}

async function health(url: string): Promise<Health | string> {
  try {
    const response = await fetch(`${url}/slack/health`, { headers: { authorization: `Bearer ${DRILL_HEALTH_TOKEN}` } });
    return (await response.json()) as Health;
  } catch (error) {
    return (error as Error).message;
  }
}

/** Until `check` holds, polling every 100 ms; false after `timeoutMs`. */
async function eventually(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

/** What the owner was told since `startedAt`, in order. */
const toldOwner = (h: Harness, owner: string, startedAt: number) =>
  h.api
    .posts()
    .filter((c) => c.at >= startedAt && c.params.channel === owner)
    .map((c) => c.params.text ?? '');

/**
 * The scenario's own expectations, unmet ones as lines. Waits up to `waitMs` for the owner's note (the drain runs
 * as the copies start).
 */
export async function edgeKeyUnmet(h: Harness, o: { owner: string; startedAt: number; waitMs?: number }): Promise<string[]> {
  const unmet: string[] = [];
  const told = () => toldOwner(h, o.owner, o.startedAt);
  await eventually(() => told().some((t) => DROPPED.test(t)), o.waitMs ?? 10_000);
  const notes = told().filter((t) => DROPPED.test(t));
  if (notes.length !== 1) unmet.push(`the owner was told ${notes.length} times that kept deliveries could not be opened, not once`);
  const unopened = notes.reduce((n, t) => n + Number(DROPPED.exec(t)?.[1] ?? 0), 0);
  const answered = told().filter((t) => ANSWERED.test(t));
  if (answered.length > 0) unmet.push(`the owner was told the kept deliveries were answered: "${answered[0]}"`);

  // The keys apart, as each health body (with its token) shows them.
  const [edge, hub, cloud] = await Promise.all([health(h.edgeUrl.replace(/\/slack\/events$/, '')), health(h.hub.url), health(h.cloud.url)]);
  const sealing = typeof edge === 'string' ? undefined : edge.inbox?.store_key_id;
  if (typeof sealing !== 'string')
    unmet.push(`the edge's health shows no inbox store_key_id (${typeof edge === 'string' ? edge : JSON.stringify(edge.inbox)})`);
  else {
    for (const [name, body] of [
      ['hub', hub],
      ['cloud', cloud],
    ] as const) {
      const ids = typeof body === 'string' ? undefined : body.store_key_ids;
      if (!Array.isArray(ids)) unmet.push(`the ${name}'s health shows no store_key_ids (${typeof body === 'string' ? body : 'absent'})`);
      else if (ids.includes(sealing)) unmet.push(`the ${name}'s health store_key_ids hold the edge's ${sealing}: the keys do not differ`);
    }
  }
  if (typeof edge !== 'string' && edge.inbox?.size !== 0) unmet.push(`the edge's inbox still holds ${String(edge.inbox?.size)} deliveries`);
  // What the edge kept, by its own count (a delivery Slack gave up on after 3 s may have been kept all the same), and
  // at most as many more as its keeps that timed out: such a write may land after the edge answered 503.
  const kept = typeof edge === 'string' ? undefined : edge.inbox?.kept_here;
  const mayHaveLanded = [...h.edgeEvents()].filter(([event]) => event.startsWith('edge.inbox_failed')).reduce((n, [, c]) => n + c, 0);
  if (typeof kept !== 'number' || unopened < kept || unopened > kept + mayHaveLanded)
    unmet.push(
      `the owner was told ${unopened} kept deliveries could not be opened; the edge kept ${String(kept)}${mayHaveLanded ? ` (and ${mayHaveLanded} keeps failed)` : ''}`,
    );

  // `npm run verify`, as the owner would run it against the edge and both copies.
  const out: string[] = [];
  const errors: string[] = [];
  const code = await runVerify(
    ['--edge', h.edgeUrl, '--hub', h.hub.url, '--cloud', h.cloud.url],
    { SLACK_SIGNING_SECRET: DRILL_SECRET, AUTOHUB_HEALTH_TOKEN: DRILL_HEALTH_TOKEN },
    { log: (line: string) => void out.push(line), error: (line: string) => void errors.push(line) } as Console,
  );
  for (const name of ['hub', 'cloud']) {
    if (!errors.some((e) => e.startsWith(`FAIL ${name}: cannot open what the edge keeps`)))
      unmet.push(`npm run verify (exit ${code}) did not flag the ${name}'s store key: ${errors.join(' | ') || out.at(-1)}`);
  }
  return unmet;
}
