/**
 * A loopback HTTP server that speaks the Upstash REST protocol in front of a
 * real redis-server, so the real @upstash/redis client can be tested over
 * HTTP. It can be switched to each fault the claim store must survive.
 *
 * Protocol: POST / with ["set","k","v","nx"]; POST /pipeline with an array of
 * those; `Authorization: Bearer <token>`; `{result}` or 400 `{error}`; with
 * `Upstash-Encoding: base64` every string in a result is base64.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RedisReplyError, RespClient } from './resp-client.js';

export type BridgeMode =
  | 'normal'
  | 'hang' /** never answers */
  | 'hang-after-headers' /** sends 200 headers, then nothing */
  | 'refuse' /** drops the connection */
  | 'error-500'
  | 'aborted' /** 200 {"result":"Aborted"}, the synthetic reply of a fired static signal */
  | 'empty-object' /** 200 {} */
  | 'garbage' /** 200 with a body that is not JSON */
  /**
   * Every request refused as a database over its monthly request limit does:
   * `ERR max requests limit exceeded`
   * (https://upstash.com/docs/redis/troubleshooting/max_requests_limit), as a
   * 400 `{error}` like any command error of the REST API.
   */
  | 'quota';

export interface UpstashBridge {
  url: string;
  token: string;
  mode: BridgeMode;
  /** Requests seen, in every mode. */
  requests: number;
  /** When each request arrived (ms since the epoch), for round-trip counts. */
  requestTimes: number[];
  /** Commands run against Redis, as Upstash bills them: one per command, each in a pipeline, a script as one. */
  commands: number;
  /** Commands by name (lower case), for the cost bench. */
  byCommand: Map<string, number>;
  /**
   * How `OK` is sent under `Upstash-Encoding: base64`: the REST docs exempt
   * "the OK response" without saying whether that holds inside an array.
   * `encoded` (default) encodes every string; `plain` leaves every `OK` as it is.
   */
  okEncoding: 'encoded' | 'plain';
  /** Extra latency added before a normal answer, in ms. */
  delayMs: number;
  /** The next N requests run against Redis, then lose their reply (the connection drops). */
  dropReplies: number;
  /** Told of each command as it runs (its name and arguments), to count a turn's own. */
  onCommand?: (command: readonly (string | number)[]) => void;
  close(): Promise<void>;
}

function encode(value: unknown, base64: boolean, okPlain = false): unknown {
  if (!base64) return value;
  if (typeof value === 'string') return okPlain && value === 'OK' ? value : Buffer.from(value).toString('base64');
  if (Array.isArray(value)) return value.map((v) => encode(v, base64, okPlain));
  return value;
}

function isBase64(req: IncomingMessage): boolean {
  return String(req.headers['upstash-encoding'] ?? '').toLowerCase() === 'base64';
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

function isCommand(value: unknown): value is (string | number)[] {
  return Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string' || typeof v === 'number');
}

export async function startUpstashBridge(options: { redisPort: number; token?: string }): Promise<UpstashBridge> {
  const redis = await RespClient.open(options.redisPort);
  const token = options.token ?? 'bridge-token';

  const run = async (command: (string | number)[]) => {
    bridge.commands += 1;
    const name = String(command[0]).toLowerCase();
    bridge.byCommand.set(name, (bridge.byCommand.get(name) ?? 0) + 1);
    bridge.onCommand?.(command);
    try {
      return { result: await redis.command(command) };
    } catch (error) {
      if (error instanceof RedisReplyError) return { error: error.message };
      throw error;
    }
  };

  const answer = async (req: IncomingMessage, res: ServerResponse) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    switch (bridge.mode) {
      case 'hang':
        return;
      case 'hang-after-headers':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.flushHeaders();
        return;
      case 'refuse':
        req.socket.destroy();
        return;
      case 'error-500':
        return send(500, { error: 'internal error' });
      case 'aborted':
        // Encoded like any string result, so the client reads the word itself.
        return send(200, { result: encode('Aborted', isBase64(req)) });
      case 'quota':
        return send(400, {
          error:
            'ERR max requests limit exceeded. Limit: 500000, Usage: 500000. See https://upstash.com/docs/redis/troubleshooting/max_requests_limit for details',
        });
      case 'empty-object':
        return send(200, {});
      case 'garbage':
        res.writeHead(200, { 'content-type': 'text/html' });
        return res.end('<html>502 Bad Gateway</html>');
      case 'normal':
        break;
    }
    if (req.headers.authorization !== `Bearer ${token}`) return send(401, { error: 'Unauthorized' });
    const base64 = isBase64(req);
    let body: unknown;
    try {
      body = await readJson(req);
    } catch {
      return send(400, { error: 'ERR body is not JSON' });
    }
    if (bridge.delayMs > 0) await new Promise((r) => setTimeout(r, bridge.delayMs));
    const path = (req.url ?? '/').split('?')[0];
    try {
      if (path === '/' && isCommand(body)) {
        const reply = await run(body);
        if (bridge.dropReplies > 0) {
          bridge.dropReplies -= 1;
          req.socket.destroy();
          return;
        }
        if ('error' in reply) return send(400, reply);
        return send(200, { result: encode(reply.result, base64, bridge.okEncoding === 'plain') });
      }
      if (path === '/pipeline' && Array.isArray(body) && body.every(isCommand)) {
        const replies = await Promise.all(body.map(run));
        return send(
          200,
          replies.map((r) => ('error' in r ? r : { result: encode(r.result, base64, bridge.okEncoding === 'plain') })),
        );
      }
      return send(400, { error: `ERR unsupported request to ${path}` });
    } catch (error) {
      return send(500, { error: `ERR redis unreachable: ${(error as Error).message}` });
    }
  };

  const server: Server = createServer((req, res) => {
    bridge.requests += 1;
    bridge.requestTimes.push(Date.now());
    answer(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const bridge: UpstashBridge = {
    url: `http://127.0.0.1:${port}`,
    token,
    mode: 'normal',
    requests: 0,
    requestTimes: [],
    commands: 0,
    byCommand: new Map(),
    okEncoding: 'encoded',
    delayMs: 0,
    dropReplies: 0,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      redis.close();
    },
  };
  return bridge;
}
