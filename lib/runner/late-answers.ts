/**
 * The answers of slash commands and interactions that nobody reads where they
 * were given: an ack after the deadline, an ack of a run nobody waits on (a
 * takeover, a retry, a delivery the edge kept), an ack into a request the
 * edge gave up on, and a `respond()` that Slack refuses (a response_url
 * expired after 30 minutes or used 5 times: Slack answers 404,
 * https://docs.slack.dev/interactivity/handling-user-interaction#message_responses).
 * Each goes to the response_url while it may still take it, else to the
 * person by DM, naming what they ran. A DM that fails too fails the run, so
 * the run's one end (retry, dead letter) decides, as for a mention.
 */
import type { FetchFunction } from '@slack/web-api';
import type { Leasable } from '../delivery/index.js';

/** Slack: a response_url may be used up to 5 times within 30 minutes. */
export const RESPONSE_URL_MS = 30 * 60_000;

/** What a response_url is posted with: the fetch Bolt's respond() calls (its clientOptions' fetch), or the network's. */
export type PostFetch = FetchFunction;

type Form = Extract<Leasable, { kind: 'command' | 'interactive' }>;
type Message = Record<string, unknown>;

export interface LateAnswerPorts {
  /** The network's fetch, for the response_url. */
  send: PostFetch;
  /** A DM to the person (the copy's WebClient's chat.postMessage to their user id). */
  dm(user: string, text: string, blocks: unknown): Promise<void>;
  log: { info(event: string, fields: Record<string, unknown>): void; warn(event: string, fields: Record<string, unknown>): void };
  now: () => number;
}

/** The DM a command's answer becomes when its response_url cannot take it: it names the command the person ran. */
export function lateCommandText(command: string, text: string, answer: string): string {
  return `(late, for your ${`${command} ${text}`.trim()}) ${answer}`;
}

/** The DM a button's or a form's answer becomes when its response_url cannot take it. */
export function lateClickText(answer: string): string {
  return `(late, for what you pressed) ${answer}`;
}

function messageOf(response: unknown): Message | undefined {
  const message = typeof response === 'string' ? { text: response } : (response as Message | undefined);
  if (!message || typeof message !== 'object' || Object.keys(message).length === 0) return undefined;
  return message;
}

function userOf(form: Form): string | undefined {
  const user = form.body.user_id ?? (form.body.user as { id?: unknown } | undefined)?.id;
  return typeof user === 'string' && user.length > 0 ? user : undefined;
}

function responseUrlOf(form: Form): string | undefined {
  const url = form.body.response_url ?? (form.body.response_urls as Array<{ response_url?: unknown }> | undefined)?.[0]?.response_url;
  return typeof url === 'string' && url.length > 0 ? url : undefined;
}

export class LateAnswers {
  readonly #p: LateAnswerPorts;
  /** The response_urls of the forms running here, each with its form and when Slack sent it (when known). */
  readonly #open = new Map<string, { form: Form; arrivedAt: number | undefined }>();

  constructor(ports: LateAnswerPorts) {
    this.#p = ports;
  }

  /** A form starts running here: a `respond()` of it that Slack refuses falls back to a DM. Returns its close. */
  open(form: Form, arrivedAt: number | undefined): () => void {
    const url = responseUrlOf(form);
    if (!url) return () => {};
    this.#open.set(url, { form, arrivedAt });
    return () => {
      if (this.#open.get(url)?.form === form) this.#open.delete(url);
    };
  }

  /**
   * The fetch Bolt's `respond()` uses (its `clientOptions.fetch`): a POST to the response_url of a form running
   * here that Slack refuses, or that cannot reach Slack, goes to the person by DM and answers `respond()` 200.
   */
  fetchFor(inner: PostFetch): PostFetch {
    return async (input, init) => {
      const url = typeof input === 'string' ? input : input.href;
      const open = this.#open.get(url);
      if (!open || (init?.method ?? 'GET').toUpperCase() !== 'POST' || typeof init?.body !== 'string') return inner(input, init);
      let message: Message | undefined;
      try {
        message = messageOf(JSON.parse(init.body));
      } catch {
        return inner(input, init);
      }
      if (!message) return inner(input, init);
      await this.answer(open.form, message, open.arrivedAt, inner);
      return new Response('ok', { status: 200 });
    };
  }

  /**
   * An answer nobody reads where it was given: to the response_url while it is fresh (unknown age: tried), else,
   * or when it refuses, by DM. Resolves with where it went; rejects when neither took it (the run fails, and its
   * end retries it or makes it a dead letter).
   */
  async answer(form: Form, response: unknown, arrivedAt: number | undefined, send: PostFetch = this.#p.send): Promise<'response_url' | 'dm' | 'none'> {
    const p = this.#p;
    const message = messageOf(response);
    if (!message) return 'none';
    const url = responseUrlOf(form);
    const fresh = arrivedAt === undefined || p.now() - arrivedAt < RESPONSE_URL_MS;
    const trigger = String(form.body.trigger_id ?? '');
    if (url && fresh) {
      const posted = await send(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(message),
        signal: AbortSignal.timeout(5_000),
      }).catch(() => undefined);
      await posted?.arrayBuffer().catch(() => {});
      if (posted?.ok) {
        p.log.info('form.answered_late', { kind: form.kind, triggerId: trigger, via: 'response_url' });
        return 'response_url';
      }
      p.log.warn('form.response_url_refused', { kind: form.kind, triggerId: trigger, status: posted?.status ?? 'no answer' });
    }
    const user = userOf(form);
    if (!user) throw new Error(`a late answer to a ${form.kind} with no user to tell it to`);
    const text = typeof message.text === 'string' ? message.text : 'autohub';
    const said = form.kind === 'command' ? lateCommandText(String(form.body.command ?? 'command'), String(form.body.text ?? ''), text) : lateClickText(text);
    await p.dm(user, said, message.blocks);
    p.log.info('form.answered_late', { kind: form.kind, triggerId: trigger, via: 'dm' });
    return 'dm';
  }
}
