/**
 * A minimal RESP2 client over one TCP connection, enough for the Upstash REST
 * bridge and the drill to talk to a real redis-server. Commands are pipelined
 * and answered in order.
 */
import { connect, type Socket } from 'node:net';

export class RedisReplyError extends Error {
  override name = 'RedisReplyError';
}

type Pending = { resolve: (value: unknown) => void; reject: (error: Error) => void };

export class RespClient {
  readonly #socket: Socket;
  readonly #pending: Pending[] = [];
  #buffer: Buffer = Buffer.alloc(0);
  #closed: Error | undefined;

  private constructor(socket: Socket) {
    this.#socket = socket;
    socket.on('data', (chunk: Buffer) => {
      this.#buffer = this.#buffer.length ? Buffer.concat([this.#buffer, chunk]) : chunk;
      this.#drain();
    });
    const fail = (error: Error) => {
      this.#closed ??= error;
      for (const p of this.#pending.splice(0)) p.reject(error);
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('redis connection closed')));
  }

  static open(port: number, host = '127.0.0.1'): Promise<RespClient> {
    return new Promise((resolve, reject) => {
      const socket = connect({ port, host });
      socket.setNoDelay(true);
      socket.once('connect', () => resolve(new RespClient(socket)));
      socket.once('error', reject);
    });
  }

  command(args: readonly (string | number)[]): Promise<unknown> {
    if (this.#closed) return Promise.reject(this.#closed);
    let out = `*${args.length}\r\n`;
    for (const arg of args) {
      const text = String(arg);
      out += `$${Buffer.byteLength(text)}\r\n${text}\r\n`;
    }
    return new Promise((resolve, reject) => {
      this.#pending.push({ resolve, reject });
      this.#socket.write(out);
    });
  }

  close(): void {
    this.#socket.destroy();
  }

  #drain(): void {
    while (this.#pending.length > 0) {
      const parsed = parseReply(this.#buffer, 0);
      if (!parsed) return;
      this.#buffer = this.#buffer.subarray(parsed.end);
      const pending = this.#pending.shift()!;
      if (parsed.value instanceof RedisReplyError) pending.reject(parsed.value);
      else pending.resolve(parsed.value);
    }
  }
}

/** One reply starting at `at`, or undefined when the buffer does not hold all of it yet. */
function parseReply(buf: Buffer, at: number): { value: unknown; end: number } | undefined {
  const lineEnd = buf.indexOf('\r\n', at);
  if (lineEnd < 0) return undefined;
  const type = String.fromCharCode(buf[at]!);
  const line = buf.toString('utf8', at + 1, lineEnd);
  const next = lineEnd + 2;
  switch (type) {
    case '+':
      return { value: line, end: next };
    case '-':
      return { value: new RedisReplyError(line), end: next };
    case ':':
      return { value: Number(line), end: next };
    case '$': {
      const length = Number(line);
      if (length < 0) return { value: null, end: next };
      if (buf.length < next + length + 2) return undefined;
      return { value: buf.toString('utf8', next, next + length), end: next + length + 2 };
    }
    case '*': {
      const count = Number(line);
      if (count < 0) return { value: null, end: next };
      const items: unknown[] = [];
      let cursor = next;
      for (let i = 0; i < count; i++) {
        const item = parseReply(buf, cursor);
        if (!item) return undefined;
        items.push(item.value);
        cursor = item.end;
      }
      return { value: items, end: cursor };
    }
    default:
      throw new Error(`unexpected RESP type ${JSON.stringify(type)}`);
  }
}
