/**
 * The HTTP holes at a copy, on real sockets: a connection trickling its
 * request is closed by the header timeout, a signed body over the limit gets
 * its 413 every time (never a reset), and a client that goes away mid-body is
 * one debug line with a count, not a stack at error level.
 */
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { mentionEnvelope } from '../../drill/sim/slack-events.js';
import { serverTimeouts } from '../../lib/http/index.js';
import { createMemoryLogger } from '../../lib/log/index.js';
import { FailoverReceiver } from '../../lib/receiver/index.js';
import { TurnRunner } from '../../lib/runner/index.js';
import { HealthMonitor } from '../../lib/liveness/index.js';
import { LeaseKeeper } from '../../lib/lease/index.js';
import { signedHeaders } from '../../lib/slack/index.js';
import { MemoryStore } from '../../lib/store/index.js';
import { eventually, SECRET } from '../support/copies.js';
import { slowPost } from '../support/slow-post.js';
import { useCopy, useFakeWebApi } from '../support/fixtures.js';
import { bareHandles } from '../support/handles.js';

/** A bare receiver (no Bolt app: nothing here reaches a listener) with the timeouts given. */
async function startReceiver(timeouts: { headersTimeoutMs?: number; requestTimeoutMs?: number }) {
  const store = new MemoryStore();
  const log = createMemoryLogger({ level: 'debug' });
  const lease = { leaseMs: 10_000, renewMs: 3_000, reaperMs: 120_000 };
  const health = new HealthMonitor({ store, role: 'hub', instance: 'hub-test', version: '0' });
  const runner = new TurnRunner({
    store,
    keeper: new LeaseKeeper(store, lease, log, Date.now),
    role: 'hub',
    instance: 'hub-test',
    log,
    lease,
    retry: { attempts: 4, windowMs: 600_000, firstDelayMs: 2_000, factor: 4 },
    handleFor: bareHandles(log, { role: 'hub', instance: 'hub-test' }),
  });
  const receiver = new FailoverReceiver({ signingSecret: SECRET, runner, health, role: 'hub', instance: 'hub-test', log, timeouts });
  await receiver.start(0, '127.0.0.1');
  return { receiver, lines: log.lines, port: receiver.port, stop: () => receiver.stop() };
}

/** Open a raw connection and send `first`; resolves with what the server wrote before it closed the socket. */
function trickle(port: number, first: string, everyMs: number): Promise<{ answer: string; bytesSent: number }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    let bytesSent = 0;
    let timer: ReturnType<typeof setInterval> | undefined;
    socket.on('connect', () => {
      socket.write(first);
      bytesSent += first.length;
      // One header byte at a time: the request line and headers never end.
      timer = setInterval(() => {
        if (!socket.destroyed && socket.writable) {
          socket.write('x');
          bytesSent += 1;
        }
      }, everyMs);
    });
    socket.on('data', (d) => (answer += d.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ answer, bytesSent });
    });
    socket.setTimeout(30_000, () => reject(new Error('the server never closed the trickling connection')));
  });
}

describe('a copy closes a connection that trickles its headers', () => {
  it("the default bounds headers at 5 s and the body at the limit's worth, not Node's 300 s", () => {
    expect(serverTimeouts(1_048_576)).toEqual({ headersTimeoutMs: 5_000, requestTimeoutMs: 21_000 });
    expect(serverTimeouts(4096, { headersTimeoutMs: 300 }).requestTimeoutMs).toBeGreaterThanOrEqual(300);
  });

  it('a copy started with defaults applies them to its server', async () => {
    const copy = await startReceiver({});
    try {
      expect(copy.receiver.timeouts).toEqual({ headersTimeoutMs: 5_000, requestTimeoutMs: 21_000 });
    } finally {
      await copy.stop();
    }
  });

  it('a header arriving one byte at a time is answered 408 and the connection closed once the header timeout passes', async () => {
    const copy = await startReceiver({ headersTimeoutMs: 300 });
    try {
      const { answer, bytesSent } = await trickle(copy.port, 'POST /slack/events HTTP/1.1\r\nHost: x\r\nX-Slow: ', 50);
      expect(answer).toMatch(/^HTTP\/1\.1 408/);
      // Closed by the server while the client still had more to send.
      expect(bytesSent).toBeGreaterThan(0);
    } finally {
      await copy.stop();
    }
  });
});

describe('a copy closes a connection that trickles its body', () => {
  it('a body arriving one byte at a time is cut off once the request timeout passes: closed, and one debug line, no error', async () => {
    const copy = await startReceiver({ headersTimeoutMs: 200, requestTimeoutMs: 400 });
    try {
      const { answer } = await trickle(
        copy.port,
        'POST /slack/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{',
        50,
      );
      expect(answer).toMatch(/^HTTP\/1\.1 408/);
      await eventually(() => copy.lines.some((l) => l.event === 'delivery.aborted'), 'the aborted body to be counted');
      expect(copy.lines.filter((l) => l.level === 'error')).toEqual([]);
    } finally {
      await copy.stop();
    }
  });
});

describe('a signed body over the limit gets its 413 every time', () => {
  const api = useFakeWebApi();
  const copy = useCopy({ role: 'hub', api, store: new MemoryStore() });

  it.each([
    ['with its Content-Length', true],
    ['chunked, with no Content-Length', false],
  ])('20 signed 6 MB deliveries sent in pieces %s: 20 answers of 413, no reset, nothing run', async (_, declareLength) => {
    const body = Buffer.from(JSON.stringify({ ...mentionEnvelope({ eventId: 'Ev-huge', ts: '1700003000.000001' }), pad: 'x'.repeat(6 * 1024 * 1024) }));
    const statuses: Array<number | string> = [];
    for (let i = 0; i < 20; i++) {
      const headers = { 'content-type': 'application/json', ...(await signedHeaders(SECRET, body, Date.now())) };
      statuses.push(await slowPost(copy.eventsUrl, headers, body, { declareLength }));
    }
    expect(statuses).toEqual(Array(20).fill(413));
    expect(api.calls).toHaveLength(0);
  });
});

describe('a client that goes away mid-body', () => {
  it('is counted in one debug line each, with no error and no stack', async () => {
    const copy = await startReceiver({});
    try {
      for (let i = 0; i < 3; i++) {
        await new Promise<void>((resolve) => {
          const socket = connect(copy.port, '127.0.0.1', () => {
            socket.write('POST /slack/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"type":');
            setImmediate(() => socket.destroy());
          });
          socket.on('error', () => {});
          socket.on('close', () => resolve());
        });
        await eventually(() => copy.lines.filter((l) => l.event === 'delivery.aborted').length === i + 1, `abort ${i + 1} to be counted`);
      }
      const aborted = copy.lines.filter((l) => l.event === 'delivery.aborted');
      expect(aborted.map((l) => [l.level, l.count])).toEqual([
        ['debug', 1],
        ['debug', 2],
        ['debug', 3],
      ]);
      expect(copy.lines.filter((l) => l.level === 'error')).toEqual([]);
      expect(JSON.stringify(aborted)).not.toContain('stack');
    } finally {
      await copy.stop();
    }
  });
});
