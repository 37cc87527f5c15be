/**
 * The one response a Slack delivery gets. Whoever answers first (Bolt's ack,
 * the receiver's deadline, an error) wins; later answers are ignored.
 */
import type { ServerResponse } from 'node:http';

export class AckGate {
  #answered = false;
  #resolve!: () => void;
  /** Resolves once the response has been written. */
  readonly done = new Promise<void>((resolve) => {
    this.#resolve = resolve;
  });

  constructor(private readonly res: ServerResponse | null) {
    if (!res) {
      this.#answered = true;
      this.#resolve();
      return;
    }
    // The client went away before the answer (the edge gave up on this leg and kept the delivery, or sent it on):
    // nobody reads an answer now, so `answer` says it was not given, and the late answers take it.
    res.once('close', () => {
      if (this.#answered) return;
      this.#answered = true;
      this.#gone = true;
      this.#resolve();
    });
  }

  #gone = false;

  /** The client went away before the answer: nobody reads one now. */
  get gone(): boolean {
    return this.#gone;
  }

  /** A gate with nobody waiting on it: a taken-over turn was acked long ago by the copy that died. */
  static detached(): AckGate {
    return new AckGate(null);
  }

  get answered(): boolean {
    return this.#answered;
  }

  /** Headers every later answer carries (who answered: set once the caller proved it is Slack). */
  identify(headers: Record<string, string>): void {
    if (this.#answered || !this.res) return;
    for (const [name, value] of Object.entries(headers)) this.res.setHeader(name, value);
  }

  /** Answer with a status and an optional body (string as text, object as JSON). */
  answer(status: number, body?: unknown, headers: Record<string, string> = {}): boolean {
    if (this.#answered || !this.res) return false;
    this.#answered = true;
    for (const [name, value] of Object.entries(headers)) this.res.setHeader(name, value);
    if (body === undefined || body === '') {
      this.res.writeHead(status).end();
    } else if (typeof body === 'string') {
      this.res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(body);
    } else {
      this.res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
    }
    this.#resolve();
    return true;
  }
}
