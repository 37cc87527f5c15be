/**
 * A response_url on loopback, as Slack's: it records each message POSTed to it and answers `status`
 * (Slack answers 404 once one has expired, after 30 minutes, or been used 5 times:
 * https://docs.slack.dev/interactivity/handling-user-interaction#message_responses).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ResponseUrl {
  url: string;
  posts: Array<{ text?: string } & Record<string, unknown>>;
  status: number;
  server: Server;
}

export async function startResponseUrl(): Promise<ResponseUrl> {
  const state: ResponseUrl = { url: '', posts: [], status: 200, server: undefined as unknown as Server };
  state.server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      state.posts.push(JSON.parse(body) as ResponseUrl['posts'][number]);
      res.writeHead(state.status).end(state.status === 200 ? 'ok' : 'expired_url');
    });
  });
  await new Promise<void>((resolve) => state.server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(state.server.address() as AddressInfo).port}/commands/1`;
  return state;
}
