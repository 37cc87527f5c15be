/**
 * The Retry-After audit: replay a refusal log offline, and (optionally) a
 * read-only sweep that records the shape of Slack's answers. The sweep makes
 * exactly one call each of three read methods, never retries, and never
 * provokes a limit: exhausting a window to prove it exists would be a denial
 * of service against the workspace being audited.
 */
import { classifyResponse, isThrottled, type ResponseState } from './classify.js';
import { retryAfterSeconds, type RetryAfterSource } from './retry-after.js';
import { REPAIRS, replayVerdict, type LoggedRefusal, type Verdict } from './verdict.js';

export const SWEEP: ReadonlyArray<readonly [string, Record<string, string>]> = [
  ['auth.test', {}],
  ['conversations.list', { limit: '1', exclude_archived: 'true' }],
  ['users.list', { limit: '1' }],
];

export interface SweepResult {
  method: string;
  status: number;
  state: ResponseState;
  seconds: number;
  source: RetryAfterSource;
  detail: string;
}

export interface ReplayLine {
  method: string;
  verdict: Verdict;
  state: ResponseState;
  seconds: number;
  source: RetryAfterSource;
  detail: string;
  repair?: string;
}

export interface AuditReport {
  records: ReplayLine[];
  sweep: SweepResult[];
  mishandled: number;
}

export function replayAll(records: readonly LoggedRefusal[]): ReplayLine[] {
  return records.map((record) => {
    const j = replayVerdict(record);
    const repair = j.verdict === 'honoured' || j.verdict === 'not-a-refusal' ? undefined : REPAIRS[j.verdict];
    return { method: String(record?.method ?? '?'), ...j, ...(repair ? { repair } : {}) };
  });
}

/** One read call, GET, no retry. */
export async function sweepOnce(apiUrl: string, token: string, fetcher: typeof fetch = fetch): Promise<SweepResult[]> {
  const results: SweepResult[] = [];
  for (const [method, params] of SWEEP) {
    const url = `${apiUrl}${method}${Object.keys(params).length ? `?${new URLSearchParams(params)}` : ''}`;
    const response = await fetcher(url, { headers: { authorization: `Bearer ${token}` } });
    let body: unknown = {};
    try {
      body = await response.json();
    } catch {
      body = {};
    }
    const { state, detail } = classifyResponse(response.status, body);
    const window = retryAfterSeconds(response.headers);
    results.push({ method, status: response.status, state, seconds: window.seconds, source: window.source, detail });
  }
  return results;
}

export function countMishandled(report: Omit<AuditReport, 'mishandled'>): number {
  const replay = report.records.filter((r) => r.verdict !== 'honoured' && r.verdict !== 'not-a-refusal').length;
  const sweep = report.sweep.filter((s) => isThrottled(s.state)).length;
  return replay + sweep;
}
