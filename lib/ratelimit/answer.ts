/**
 * A Web API answer whose body was read already, as the WebClient reads a
 * `Response` (status, statusText, url, headers.get / entries, then text(),
 * json() or arrayBuffer() once): the text it was read as, handed over as it
 * is, with no second copy into a new `Response` and no second decode.
 *
 * Its body can be taken once, as a `Response`'s: a second read rejects.
 */

/** What the WebClient and the rate-limit layer read of an answer's headers: a `Headers`, or the transport's lighter bag. */
export interface AnswerHeaders {
  get(name: string): string | null;
  has(name: string): boolean;
  forEach(callback: (value: string, name: string) => void): void;
  entries(): IterableIterator<[string, string]>;
  [Symbol.iterator](): IterableIterator<[string, string]>;
}

const used = () => new TypeError('Body is unusable: Body has already been read');

export class ReadAnswer {
  readonly ok: boolean;
  readonly redirected = false;
  readonly type = 'basic';
  /** Read already: there is no stream left to cancel or read. */
  readonly body = null;
  #text: string | undefined;

  constructor(
    readonly status: number,
    readonly statusText: string,
    readonly headers: AnswerHeaders,
    readonly url: string,
    text: string,
  ) {
    this.ok = status >= 200 && status < 300;
    this.#text = text;
  }

  get bodyUsed(): boolean {
    return this.#text === undefined;
  }

  /** The text, for the rate-limit layer's own look: it does not use the body up. */
  peek(): string | undefined {
    return this.#text;
  }

  #take(): string | undefined {
    const text = this.#text;
    this.#text = undefined;
    return text;
  }

  text(): Promise<string> {
    const text = this.#take();
    return text === undefined ? Promise.reject(used()) : Promise.resolve(text);
  }

  json(): Promise<unknown> {
    const text = this.#take();
    if (text === undefined) return Promise.reject(used());
    try {
      return Promise.resolve(JSON.parse(text));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  arrayBuffer(): Promise<ArrayBuffer> {
    return this.bytes().then((b) => b.buffer as ArrayBuffer);
  }

  bytes(): Promise<Uint8Array> {
    const text = this.#take();
    return text === undefined ? Promise.reject(used()) : Promise.resolve(new TextEncoder().encode(text));
  }

  blob(): Promise<Blob> {
    return this.bytes().then((b) => new Blob([b as Uint8Array<ArrayBuffer>]));
  }

  clone(): ReadAnswer {
    if (this.#text === undefined) throw used();
    return new ReadAnswer(this.status, this.statusText, this.headers, this.url, this.#text);
  }
}
