/**
 * The files shared with a message, as a turn sees them: names, types and
 * sizes from the event, the bytes on demand with the bot token. Slack serves
 * a file's `url_private_download` (or `url_private`) to
 * `Authorization: Bearer <bot token>` when the app has `files:read`.
 *
 * Nothing is downloaded unless the turn asks: a model that only needs the
 * names costs no request.
 */
import type { TurnFile } from './types.js';

export interface TurnFilesOptions {
  /** The bot token (xoxb-...). */
  token: string;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
}

interface SlackFile {
  id?: unknown;
  name?: unknown;
  title?: unknown;
  mimetype?: unknown;
  size?: unknown;
  url_private?: unknown;
  url_private_download?: unknown;
}

export function turnFiles(event: unknown, o: TurnFilesOptions): TurnFile[] {
  const files = (event as { files?: unknown } | null | undefined)?.files;
  if (!Array.isArray(files)) return [];
  const fetchFn = o.fetch ?? globalThis.fetch;
  return files.flatMap((raw: unknown): TurnFile[] => {
    const f = (typeof raw === 'object' && raw !== null ? raw : {}) as SlackFile;
    if (typeof f.id !== 'string') return [];
    const id = f.id;
    const name = typeof f.name === 'string' ? f.name : typeof f.title === 'string' ? f.title : id;
    const mimetype = typeof f.mimetype === 'string' ? f.mimetype : undefined;
    const url = typeof f.url_private_download === 'string' ? f.url_private_download : typeof f.url_private === 'string' ? f.url_private : undefined;
    return [
      {
        id,
        name,
        mimetype,
        size: typeof f.size === 'number' ? f.size : undefined,
        download: () => download(fetchFn, o.token, { id, name, mimetype, url }),
      },
    ];
  });
}

async function download(
  fetchFn: typeof fetch,
  token: string,
  f: { id: string; name: string; mimetype: string | undefined; url: string | undefined },
): Promise<ArrayBuffer> {
  // A file the event does not link (Slack Connect, or hidden by the plan's limits) needs files.info first.
  if (!f.url) throw new Error(`file ${f.id} (${f.name}) has no download URL in the event: read it with files.info`);
  const response = await fetchFn(f.url, { headers: { authorization: `Bearer ${token}` } });
  if (!response.ok) {
    await response.body?.cancel();
    throw new Error(
      `file ${f.id} (${f.name}) could not be downloaded: HTTP ${response.status}${response.status === 403 || response.status === 401 ? ' (does the app have the files:read scope?)' : ''}`,
    );
  }
  // Without files:read Slack has been seen to answer with its sign-in page, 200: not the file.
  const type = response.headers.get('content-type') ?? '';
  if (type.startsWith('text/html') && f.mimetype !== undefined && !f.mimetype.startsWith('text/html')) {
    await response.body?.cancel();
    throw new Error(`file ${f.id} (${f.name}) came back as a web page, not a ${f.mimetype}: does the app have the files:read scope?`);
  }
  return response.arrayBuffer();
}
