/** Who may use the playground: its own page on loopback, nobody else (try/play-guard.ts). A table at one port. */
import { describe, expect, it } from 'vitest';
import { refusal, type PlayRequest } from '../../try/play-guard.js';

const PORT = 3030;
const ok: PlayRequest = { method: 'POST', host: '127.0.0.1:3030', origin: 'http://127.0.0.1:3030', contentType: 'application/json' };

describe('refusal', () => {
  it.each<[string, Partial<PlayRequest>]>([
    ["the page's own JSON post", {}],
    ['the page under localhost', { host: 'localhost:3030', origin: 'http://localhost:3030' }],
    ['a GET with no Origin (the page loading, curl)', { method: 'GET', origin: undefined, contentType: undefined }],
    ['a JSON post with no Origin (curl, a test)', { origin: undefined }],
    ['a charset on the JSON type', { contentType: 'application/json; charset=utf-8' }],
  ])('lets through %s', (_, change) => {
    expect(refusal({ ...ok, ...change }, PORT)).toBeUndefined();
  });

  it.each<[string, Partial<PlayRequest>, number, RegExp]>([
    ['another web page (its Origin)', { origin: 'https://evil.example' }, 403, /Origin "https:\/\/evil\.example"/],
    ['another page on loopback, another port', { origin: 'http://127.0.0.1:8080' }, 403, /Origin "http:\/\/127\.0\.0\.1:8080"/],
    ['an opaque origin (a sandboxed frame, a file)', { origin: 'null' }, 403, /Origin "null"/],
    ['a DNS-rebinding name in Host', { host: 'evil.example:3030', origin: undefined }, 403, /Host "evil\.example:3030"/],
    ['our name on another port in Host', { host: '127.0.0.1:9999' }, 403, /Host "127\.0\.0\.1:9999"/],
    ['no Host at all', { host: undefined }, 403, /Host ""/],
    ['a text/plain post (no preflight needed), even without an Origin', { origin: undefined, contentType: 'text/plain' }, 415, /text\/plain/],
    ['a form post', { origin: undefined, contentType: 'application/x-www-form-urlencoded' }, 415, /x-www-form-urlencoded/],
  ])('refuses %s', (_, change, status, reason) => {
    const r = refusal({ ...ok, ...change }, PORT);
    expect(r?.status).toBe(status);
    expect(r?.reason).toMatch(reason);
  });
});
