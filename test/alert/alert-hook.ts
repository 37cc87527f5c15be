/** A loopback webhook for the alert tests: records each POST, answers as the test scripts it (a status, or no answer at all). */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface AlertHook {
  /** The hook's URL, with a token in its path and query as a real webhook has. */
  url: string;
  /** Every POST received: its path, headers and parsed body. */
  posts: { path: string; headers: IncomingMessage['headers']; body: Record<string, unknown> }[];
  /** The next answers, in order; after them, 200. `'hang'`: hold the request and never answer. */
  answers: (number | 'hang')[];
  /** Requests held open now (`'hang'`). */
  held(): number;
  /** Cut the held requests (their sender sees a reset). */
  release(): void;
  close(): Promise<void>;
}

export const HOOK_TOKEN = 'T0SECRET/B0SECRET/hooksecret123456';

export async function startAlertHook(): Promise<AlertHook> {
  const held = new Set<ServerResponse>();
  const hook: Omit<AlertHook, 'url'> & { url: string } = {
    url: '',
    posts: [],
    answers: [],
    held: () => held.size,
    release: () => {
      for (const r of held) r.destroy();
    },
    close: async () => {
      for (const r of held) r.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      hook.posts.push({ path: req.url ?? '', headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> });
      const answer = hook.answers.shift() ?? 200;
      if (answer === 'hang') {
        held.add(res);
        res.on('close', () => held.delete(res));
        return;
      }
      res.writeHead(answer, { 'content-type': 'text/plain' }).end(answer === 200 ? 'ok' : 'no');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  hook.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/services/${HOOK_TOKEN}?key=querysecret987654`;
  return hook;
}
