/**
 * A copy never dies of a request: an oversized body sent chunked gets its 413 each time, and a request whose
 * handling throws gets 500 while the next one is served.
 */
import { describe, expect, it } from 'vitest';
import { signedHeaders } from '../../lib/slack/index.js';
import { SECRET } from '../support/copies.js';
import { useCopy, useFakeWebApi } from '../support/fixtures.js';
import { postChunked } from '../support/post-chunked.js';

describe('a copy against requests that would have ended it', () => {
  const api = useFakeWebApi();
  const hub = useCopy({ role: 'hub', api });

  it('answers 413 to four 6 MB chunked bodies and serves its health after them', async () => {
    const body = Buffer.from(JSON.stringify({ pad: 'x'.repeat(6 * 1024 * 1024) }));
    const headers = { 'content-type': 'application/json', ...(await signedHeaders(SECRET, body, Date.now())) };
    const statuses: Array<number | string> = [];
    for (let i = 0; i < 4; i++) statuses.push(await postChunked(hub.eventsUrl, headers, body));
    expect(statuses).toEqual([413, 413, 413, 413]);
    expect((await fetch(hub.healthUrl)).status).toBe(200);
  });

  it('a request whose handling throws gets 500, is logged as receiver.unexpected, and the next is served', async () => {
    const report = hub.health.report.bind(hub.health);
    let throwOnce = true;
    hub.health.report = () => {
      if (throwOnce) {
        throwOnce = false;
        throw new Error('health report failed');
      }
      return report();
    };
    try {
      expect((await fetch(hub.healthUrl)).status).toBe(500);
      expect(hub.lines.some((line) => line.event === 'receiver.unexpected')).toBe(true);
      expect((await fetch(hub.healthUrl)).status).toBe(200);
    } finally {
      hub.health.report = report;
    }
  });
});
