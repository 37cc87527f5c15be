/**
 * One function for each kind of answer the receiver gives without running a
 * turn, as bolt-js builds each of its answers in one place
 * (`HTTPModuleFunctions`: the URL check, the certificate check, a bare 200):
 * a refusal, the health body, Slack's checks, its rate-limit notice, a shed,
 * the edge's hint, a duplicate and a probe. Each writes its answer and its
 * one log line, and holds no state between deliveries.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { bearerMatches } from '../access/index.js';
import { answerThenLinger } from '../http/index.js';
import type { Logger } from '../log/index.js';
import type { ClaimKind } from '../store/index.js';
import type { AckGate } from '../runner/ack-gate.js';
import type { AppRateLimited } from '../delivery/delivery.js';
import type { HealthMonitor } from '../liveness/health.js';

/** A delivery answered before or without a claim says so (only to a caller who proved it is Slack). */
const NOT_CLAIMED: Record<string, string> = { 'x-autohub-claim': 'none' };

/** A header's first value (Node joins most repeated headers, not all). */
export function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** `GET|HEAD /slack/health`: the status alone to anyone; who this copy is and how it is, only with the health token. */
export function answerHealth(req: IncomingMessage, res: ServerResponse, health: Pick<HealthMonitor, 'report'>, token: string | null | undefined): void {
  const { status, body } = health.report();
  const shown = bearerMatches(header(req, 'authorization'), token) ? body : { status: body.status };
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(req.method === 'HEAD' ? undefined : JSON.stringify(shown));
}

export function answerNotFound(res: ServerResponse): void {
  res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
}

export function answerMethodNotAllowed(res: ServerResponse): void {
  res.writeHead(405, { allow: 'POST' }).end();
}

/**
 * A delivery this copy will not take (draining, unsigned, malformed). The
 * rest of the body is read and dropped; who answered is said only to a
 * caller who proved it is Slack (`signed`).
 */
export function refuse(req: IncomingMessage, gate: AckGate, log: Logger, status: number, reason: string, signed: boolean): void {
  req.resume();
  gate.answer(status, reason, signed ? NOT_CLAIMED : {});
  log.info('delivery.refused', { status, reason });
}

/** Answered whole, then the rest of the body drained: closing on unread bytes would reset the connection. */
export function answerTooLarge(req: IncomingMessage, res: ServerResponse, log: Logger, limitBytes: number): void {
  answerThenLinger(req, res, 413, `request body is larger than ${limitBytes} bytes`);
  log.info('delivery.refused', { status: 413, reason: 'body too large' });
}

/**
 * Slack's certificate check of a slash command URL comes unsigned (bolt-js
 * and bolt-python answer it before verifying): 200, and nothing about this copy.
 */
export function answerUnsignedSslCheck(gate: AckGate, log: Logger): void {
  gate.answer(200);
  log.debug('delivery.ssl_check', {});
}

/** A certificate check that came signed all the same. */
export function answerSslCheck(gate: AckGate): void {
  gate.answer(200, undefined, NOT_CLAIMED);
}

/** The Events API's URL check: the challenge, echoed. */
export function answerUrlVerification(gate: AckGate, challenge: string): void {
  gate.answer(200, { challenge }, NOT_CLAIMED);
}

/** Slack is dropping this app's events (over 30,000 an hour from one workspace); it wants a 200 all the same, first. */
export function answerAppRateLimited(gate: AckGate, log: Logger, notice: AppRateLimited, told: ((notice: AppRateLimited) => void) | undefined): void {
  gate.answer(200, undefined, NOT_CLAIMED);
  const { teamId, apiAppId, minuteRateLimited } = notice;
  log.warn('slack.app_rate_limited', { teamId, apiAppId, minuteRateLimited });
  told?.(notice);
}

/**
 * Too many turns wait here: 503 before any claim, so the copy that takes it
 * claims it (the edge gives it to the other copy; Slack's own retry would reach the edge again).
 */
export function answerShed(gate: AckGate, log: Logger, eventId: string, waiting: number): void {
  gate.answer(503, `busy: ${waiting} turns waiting here`, { ...NOT_CLAIMED, 'x-autohub-busy': String(waiting), 'retry-after': '1' });
  log.info('delivery.shed', { eventId, waiting });
}

/** The edge's hint (signed, checked before): never claimed, so it costs no store command until the reaper looks. */
export function answerHint(gate: AckGate, log: Logger, eventId: string, told: (() => void) | undefined): void {
  gate.answer(200, undefined, NOT_CLAIMED);
  log.debug('delivery.hint', { eventId });
  told?.();
}

/** Claimed before, here or at the other copy: acked, and nothing runs. */
export function answerDuplicate(gate: AckGate, log: Logger, logFields: Record<string, unknown>, ackMs: number): void {
  gate.answer(200, undefined, { 'x-autohub-claim': 'duplicate' });
  log.info('delivery.duplicate', { ...logFields, ackMs });
}

/** `npm run verify`'s probe: claimed like an event, answered with the claim's outcome, no turn runs. */
export function answerProbe(gate: AckGate, log: Logger, claim: ClaimKind | 'none', logFields: Record<string, unknown>, eventId: string, ackMs: number): void {
  gate.answer(200, undefined, { 'x-autohub-claim': claim });
  log.info('delivery.probe', { ...logFields, eventId, ackMs });
}
