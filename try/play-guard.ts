/**
 * Who may talk to the playground: only its own page, on loopback. Pure.
 *
 * Listening on 127.0.0.1 keeps other machines out, not other web pages: any
 * page the developer has open may send a `fetch` or a form to
 * http://127.0.0.1:3030/, and a `text/plain` POST needs no preflight, so it
 * would run the bot or kill the hub. A browser names the page a request comes
 * from in `Origin` (on every POST, same-origin too), and a DNS-rebinding page
 * reaches the port under its own name in `Host`. So a request is refused when
 * its Host is not this server's loopback name and port, when it carries an
 * Origin other than this server's, and, for a POST, when it is not JSON (a
 * cross-origin page cannot send `application/json` without a preflight, which
 * gets no CORS answer here). A client with no Origin (curl) is no web page.
 */

/** The names the page is served under. */
const LOOPBACK = ['127.0.0.1', 'localhost', '[::1]'];

export interface PlayRequest {
  method: string;
  host: string | undefined;
  origin: string | undefined;
  contentType: string | undefined;
}

export type Refusal = { status: 403 | 415; reason: string };

/** Why a request is refused, or undefined when it is the playground's own page (or a local client with no Origin). */
export function refusal(req: PlayRequest, port: number): Refusal | undefined {
  const ours = LOOPBACK.map((name) => `${name}:${port}`);
  if (req.host === undefined || !ours.includes(req.host.toLowerCase())) {
    return {
      status: 403,
      reason: `play: refused a request for Host ${JSON.stringify(req.host ?? '')}: the playground answers only http://127.0.0.1:${port}/ (another name is how a DNS-rebinding page reaches it)`,
    };
  }
  if (req.origin !== undefined && !ours.some((o) => req.origin!.toLowerCase() === `http://${o}`)) {
    return {
      status: 403,
      reason: `play: refused a request from Origin ${JSON.stringify(req.origin)}: only the playground's own page (http://127.0.0.1:${port}) may use it, not another web page`,
    };
  }
  if (req.method === 'POST' && !(req.contentType ?? '').toLowerCase().startsWith('application/json')) {
    return { status: 415, reason: `play: refused a POST of ${JSON.stringify(req.contentType ?? 'no type')}: the page posts application/json` };
  }
  return undefined;
}
