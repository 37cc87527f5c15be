/**
 * A turn sees the files shared with its message (name, type, size)
 * and downloads them with the bot token. A loopback server stands in for
 * Slack's file host (files.slack.com): it serves a file only to the right
 * bearer token, as `url_private` does.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { turnFiles } from '../../lib/turn/files.js';

const TOKEN = 'xoxb-files-test';
let server: Server;
let base: string;
const seen: Array<{ url: string; authorization: string | undefined }> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', authorization: req.headers.authorization });
    if (req.url === '/gone') return void res.writeHead(404).end('not found');
    if (req.url === '/signin') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>sign in</html>');
    if (req.headers.authorization !== `Bearer ${TOKEN}`) return void res.writeHead(403).end('forbidden');
    res.writeHead(200, { 'content-type': 'application/pdf' }).end(Buffer.from(`bytes of ${req.url}`));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const file = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  name: `${id}.pdf`,
  mimetype: 'application/pdf',
  size: 1234,
  url_private: `${base}/private/${id}`,
  url_private_download: `${base}/download/${id}`,
  ...extra,
});
const text = (buffer: ArrayBuffer) => Buffer.from(buffer).toString('utf8');

describe('turnFiles', () => {
  it("lists each file's id, name, type and size, and downloads url_private_download with the bot token", async () => {
    const [a, b] = turnFiles({ files: [file('F1'), file('F2', { size: undefined })] }, { token: TOKEN });
    expect([a, b].map((f) => f && { id: f.id, name: f.name, mimetype: f.mimetype, size: f.size })).toEqual([
      { id: 'F1', name: 'F1.pdf', mimetype: 'application/pdf', size: 1234 },
      { id: 'F2', name: 'F2.pdf', mimetype: 'application/pdf', size: undefined },
    ]);
    expect(text(await a!.download())).toBe('bytes of /download/F1');
    expect(seen.at(-1)).toEqual({ url: '/download/F1', authorization: `Bearer ${TOKEN}` });
  });

  it('falls back to url_private when there is no download URL', async () => {
    const [f] = turnFiles({ files: [file('F3', { url_private_download: undefined })] }, { token: TOKEN });
    expect(text(await f!.download())).toBe('bytes of /private/F3');
  });

  it('a refusal (403: a wrong token) rejects with a clear error naming the file and the status', async () => {
    const [f] = turnFiles({ files: [file('F4')] }, { token: 'xoxb-wrong' });
    await expect(f!.download()).rejects.toThrow(/file F4 \(F4\.pdf\) could not be downloaded: HTTP 403 \(does the app have the files:read scope\?\)/);
  });

  it('a missing file (404) rejects', async () => {
    const [f] = turnFiles({ files: [file('F5', { url_private_download: `${base}/gone` })] }, { token: TOKEN });
    await expect(f!.download()).rejects.toThrow(/HTTP 404/);
  });

  it("a sign-in page instead of the file rejects, not handed to the turn as the file's bytes", async () => {
    const [f] = turnFiles({ files: [file('F6', { url_private_download: `${base}/signin` })] }, { token: TOKEN });
    await expect(f!.download()).rejects.toThrow(/came back as a web page/);
  });

  it('a file without any URL (hidden, or Slack Connect) is listed and its download says to use files.info', async () => {
    const [f] = turnFiles({ files: [{ id: 'F7', mode: 'hidden_by_limit' }] }, { token: TOKEN });
    expect(f).toMatchObject({ id: 'F7', name: 'F7', mimetype: undefined });
    await expect(f!.download()).rejects.toThrow(/no download URL .* files\.info/);
  });

  it('an event without files, or with junk in place of them, has none', () => {
    expect(turnFiles({ text: 'hi' }, { token: TOKEN })).toEqual([]);
    expect(turnFiles({ files: 'nope' }, { token: TOKEN })).toEqual([]);
    expect(turnFiles({ files: [null, 3, { name: 'no id' }] }, { token: TOKEN })).toEqual([]);
    expect(turnFiles(undefined, { token: TOKEN })).toEqual([]);
  });

  it('uses the injected fetch', async () => {
    const urls: string[] = [];
    const fake: typeof fetch = async (input) => {
      urls.push(String(input));
      return new Response('injected', { status: 200 });
    };
    const [f] = turnFiles({ files: [file('F8')] }, { token: TOKEN, fetch: fake });
    expect(text(await f!.download())).toBe('injected');
    expect(urls).toEqual([`${base}/download/F8`]);
  });
});
