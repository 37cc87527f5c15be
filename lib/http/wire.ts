/**
 * HTTP/1.1 written straight onto kept-alive sockets (`node:net`, or `node:tls`
 * for https): each request is one write of its whole text and a read of one
 * reply (its status line and headers, then a body of `Content-Length` bytes,
 * chunked, or up to the connection's close). No `fetch` (a Web API call
 * through the WebClient costs about 700 us of CPU more on it: `bench/wire.ts`) nor
 * `node:http`'s request machinery (its agent, outgoing and incoming messages).
 *
 * One exchange at a time on a socket, a bounded pool of sockets per server, an
 * idle socket dropped before the server's keep-alive hint runs out. Used by the
 * store's requester (lib/store/upstash-requester.ts) and the Slack transport
 * (lib/ratelimit/slack-transport.ts); each gives its requests their own fuse.
 */
import { isIP, connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

/** A reply this transport cannot read (too large, not HTTP/1.1, a length it cannot parse): the status, when it got that far. */
export class ReplyError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'ReplyError';
  }
}

/** Where a pool connects: plain TCP, or TLS (ALPN http/1.1, resuming the last session the server gave, as `node:https`'s agent does). */
export function connector(url: URL): () => Socket {
  const secure = url.protocol === 'https:';
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const port = url.port === '' ? (secure ? 443 : 80) : Number(url.port);
  let session: Buffer | undefined;
  return (): Socket => {
    if (!secure) return netConnect({ host, port });
    const socket = tlsConnect({ host, port, ...(isIP(host) === 0 ? { servername: host } : {}), ALPNProtocols: ['http/1.1'], ...(session ? { session } : {}) });
    socket.on('session', (s: Buffer) => {
      session = s;
    });
    return socket;
  };
}

/** A reply's status line and headers larger than this are refused (Upstash's and Slack's are a few hundred bytes). */
const MAX_HEAD_BYTES = 64 * 1024;

/** Replies larger than this are refused: a takeover of the largest stored body (4 MB, sealed, base64 twice) is about 7.1 MB. */
export const MAX_REPLY_BYTES = 16 * 1024 * 1024;

/** `socket hang up`, as `node:http` names a connection that closed before its reply was whole. */
export function hangUp(): Error {
  return Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
}

/** How an exchange ended: an error, or the reply's status, headers (names in lower case) and body. */
export type Done = (error: Error | undefined, status: number, body: Buffer, headers: ReadonlyMap<string, string>) => void;

/** The body's length: a number of bytes, chunked, or to the connection's close. */
const CHUNKED = -1;
const TO_CLOSE = -2;

/**
 * One request and the reading of its reply: the status line and headers, then
 * a body of `Content-Length` bytes, chunked, or up to the connection's close.
 */
export class Exchange {
  socket: Socket | undefined;
  /** Ended (answered, failed or abandoned): nothing more is read for it. */
  over = false;
  /** The server closes the connection after this reply. */
  closes = false;
  /** The server's keep-alive hint: it forgets an idle connection after this many ms. */
  keepAliveMs: number | undefined;
  #head: Buffer | undefined;
  #status = 0;
  /** The reply's headers, names in lower case; a repeated one's values joined with `, ` (as `Headers.get` reads them). */
  readonly headers = new Map<string, string>();
  #length = TO_CLOSE;
  #body: Buffer[] = [];
  #size = 0;
  /** Chunked: bytes not yet decoded; what is left of the chunk being read (-1: its CRLF); past the last chunk. */
  #raw: Buffer | undefined;
  #chunkLeft = 0;
  #trailer = false;

  constructor(
    readonly text: string,
    private readonly done: Done,
  ) {}

  end(error: Error | undefined): void {
    if (this.over) return;
    this.over = true;
    this.done(error, this.#status, error ? Buffer.alloc(0) : this.#body.length === 1 ? this.#body[0]! : Buffer.concat(this.#body, this.#size), this.headers);
  }

  /** Reads `chunk`; true once the reply is whole. Throws on a reply it cannot read. */
  read(chunk: Buffer): boolean {
    if (this.#status === 0) {
      const buffer = this.#head ? Buffer.concat([this.#head, chunk]) : chunk;
      const at = buffer.indexOf('\r\n\r\n');
      if (at < 0) {
        if (buffer.length > MAX_HEAD_BYTES) throw new ReplyError('a reply head too large', 0);
        this.#head = buffer;
        return false;
      }
      this.#head = undefined;
      this.#parseHead(buffer.toString('latin1', 0, at));
      chunk = buffer.subarray(at + 4);
      if (this.#length === 0) return true;
    }
    if (this.#length === CHUNKED) return this.#chunked(chunk);
    this.#keep(chunk);
    return this.#length >= 0 && this.#size >= this.#length;
  }

  /** The connection closed: whole if the reply's body was to end there. */
  wholeAtClose(): boolean {
    return this.#status !== 0 && this.#length === TO_CLOSE;
  }

  #keep(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.#size += chunk.length;
    if (this.#size > MAX_REPLY_BYTES) throw new ReplyError('reply too large', this.#status);
    this.#body.push(chunk);
  }

  #parseHead(head: string): void {
    const lines = head.split('\r\n');
    const status = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '');
    if (!status) throw new ReplyError('a reply that is not HTTP/1.1', 0);
    this.#status = Number(status[1]);
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i]!;
      const colon = line.indexOf(':');
      if (colon < 0) continue;
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      const seen = this.headers.get(name);
      this.headers.set(name, seen === undefined ? value : `${seen}, ${value}`);
      if (name === 'content-length') {
        this.#length = /^\d+$/.test(value) ? Number(value) : Number.NaN;
      } else if (name === 'transfer-encoding') {
        if (/chunked/i.test(value)) this.#length = CHUNKED;
      } else if (name === 'connection') {
        if (/close/i.test(value)) this.closes = true;
      } else if (name === 'keep-alive') {
        const timeout = /timeout=(\d+)/i.exec(value);
        if (timeout) this.keepAliveMs = Number(timeout[1]) * 1000;
      }
    }
    if (Number.isNaN(this.#length)) throw new ReplyError('a reply whose length cannot be read', this.#status);
    if (this.#length > MAX_REPLY_BYTES) throw new ReplyError('reply too large', this.#status);
    if (this.#status === 204 || this.#status === 304) this.#length = 0;
    if (this.#length === TO_CLOSE) this.closes = true;
  }

  #chunked(chunk: Buffer): boolean {
    let raw = this.#raw && this.#raw.length > 0 ? Buffer.concat([this.#raw, chunk]) : chunk;
    for (;;) {
      if (this.#trailer) {
        // Past the last chunk: trailers (none expected), then an empty line.
        const at = raw.indexOf('\r\n');
        if (at < 0) break;
        raw = raw.subarray(at + 2);
        if (at === 0) return true;
        continue;
      }
      if (this.#chunkLeft > 0) {
        const take = Math.min(this.#chunkLeft, raw.length);
        this.#keep(raw.subarray(0, take));
        this.#chunkLeft -= take;
        raw = raw.subarray(take);
        if (this.#chunkLeft > 0) break;
        this.#chunkLeft = -1;
      }
      if (this.#chunkLeft === -1) {
        if (raw.length < 2) break;
        raw = raw.subarray(2);
        this.#chunkLeft = 0;
      }
      const at = raw.indexOf('\r\n');
      if (at < 0) break;
      const size = Number.parseInt(raw.toString('latin1', 0, at).split(';')[0]!.trim(), 16);
      if (!Number.isSafeInteger(size) || size < 0) throw new ReplyError('a chunked reply that cannot be read', this.#status);
      raw = raw.subarray(at + 2);
      if (size === 0) this.#trailer = true;
      else this.#chunkLeft = size;
    }
    this.#raw = raw;
    return false;
  }
}

/** Sockets to one server, each carrying one exchange at a time; exchanges wait their turn when every socket is busy. */
export class SocketPool {
  /** Idle sockets, the last freed on top, each with when the server's keep-alive hint says to stop trusting it. */
  #idle: Array<{ socket: Socket; until: number }> = [];
  #open = 0;
  #queue: Exchange[] = [];
  /** The exchange each busy socket carries. */
  #current = new Map<Socket, Exchange>();

  constructor(
    private readonly connect: () => Socket,
    private readonly max: number,
    /** How long an idle socket is trusted when the server gave no keep-alive hint. @default no bound */
    private readonly idleMs = Number.POSITIVE_INFINITY,
  ) {}

  send(exchange: Exchange): void {
    const now = Date.now();
    while (this.#idle.length > 0) {
      const { socket, until } = this.#idle.pop()!;
      // Past the server's keep-alive hint (less a second), it may close as the request is written: not that one.
      if (now < until && !socket.destroyed) {
        this.#write(socket, exchange);
        return;
      }
      socket.destroy();
    }
    if (this.#open < this.max) this.#write(this.#create(), exchange);
    else this.#queue.push(exchange);
  }

  /** An exchange given up (its fuse fired): out of the queue, or its socket closed (a reply half read is of no use to the next). */
  abandon(exchange: Exchange, error: Error): void {
    if (exchange.over) return;
    const waiting = this.#queue.indexOf(exchange);
    if (waiting >= 0) this.#queue.splice(waiting, 1);
    const socket = exchange.socket;
    exchange.end(error);
    socket?.destroy();
  }

  #create(): Socket {
    const socket = this.connect();
    this.#open += 1;
    socket.setNoDelay(true);
    socket.setKeepAlive(true, 1000);
    socket.on('data', (chunk: Buffer) => this.#data(socket, chunk));
    const gone = (error?: Error) => {
      const exchange = this.#current.get(socket);
      if (!exchange) return;
      this.#current.delete(socket);
      exchange.socket = undefined;
      exchange.end(!error && exchange.wholeAtClose() ? undefined : (error ?? hangUp()));
    };
    socket.on('error', gone);
    socket.on('end', () => {
      gone();
      socket.destroy();
    });
    socket.once('close', () => {
      gone();
      this.#open -= 1;
      const at = this.#idle.findIndex((i) => i.socket === socket);
      if (at >= 0) this.#idle.splice(at, 1);
      const next = this.#queue.shift();
      if (next) this.send(next);
    });
    return socket;
  }

  #data(socket: Socket, chunk: Buffer): void {
    const exchange = this.#current.get(socket);
    if (!exchange) {
      // Nothing was asked on this socket: whatever it says, it is not trusted with the next request.
      socket.destroy();
      return;
    }
    let whole: boolean;
    try {
      whole = exchange.read(chunk);
    } catch (error) {
      this.#current.delete(socket);
      exchange.end(error as Error);
      socket.destroy();
      return;
    }
    if (!whole) return;
    this.#current.delete(socket);
    exchange.socket = undefined;
    exchange.end(undefined);
    if (exchange.closes) {
      socket.destroy();
      return;
    }
    const next = this.#queue.shift();
    if (next) {
      this.#write(socket, next);
      return;
    }
    // An idle socket keeps no process alive (as `node:http`'s agent keeps its free sockets).
    socket.unref();
    this.#idle.push({ socket, until: exchange.keepAliveMs === undefined ? Date.now() + this.idleMs : Date.now() + exchange.keepAliveMs - 1000 });
  }

  #write(socket: Socket, exchange: Exchange): void {
    socket.ref();
    exchange.socket = socket;
    this.#current.set(socket, exchange);
    socket.write(exchange.text);
  }
}
