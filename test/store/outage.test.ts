/**
 * A store that stops answering is named once (its host, what failed), again
 * once a minute while it lasts, and once when it answers again: not a line per
 * failed command. The fault is real: a loopback proxy in front of the REST
 * bridge that resets every connection while "down".
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../lib/log/index.js';
import { logReporter, UpstashStore } from '../../lib/store/index.js';
import { outageOnAnswer, outageOnFault } from '../../lib/store/outage.js';
import { useRedisBridge } from '../support/redis-fixture.js';

describe('outageOnFault / outageOnAnswer', () => {
  const fault = (reason: string) => ({ op: 'note', reason });

  it('names the first failure, is quiet for a minute, then names it again with the failures meanwhile', () => {
    let step = outageOnFault(null, fault('ECONNREFUSED'), 1_000);
    expect(step.line).toEqual({ event: 'store.unreachable', fields: { op: 'note', reason: 'ECONNREFUSED', sinceMs: 0, failures: 1 } });
    for (const at of [2_000, 30_000, 60_999]) {
      step = outageOnFault(step.state, fault('ECONNREFUSED'), at);
      expect(step.line).toBeUndefined();
    }
    step = outageOnFault(step.state, fault('timeout'), 61_000);
    expect(step.line).toEqual({ event: 'store.unreachable', fields: { op: 'note', reason: 'timeout', sinceMs: 60_000, failures: 4, still: true } });
    expect(outageOnAnswer(step.state, 70_000).line).toEqual({ event: 'store.reachable', fields: { downMs: 69_000, lastReason: 'timeout' } });
  });

  it('an answer with no outage says nothing', () => {
    expect(outageOnAnswer(null, 5).line).toBeUndefined();
  });
});

describe('an Upstash store that stops answering, in the logs', () => {
  const fx = useRedisBridge();
  let proxy: Server;
  let port = 0;
  let down = true;
  const sockets = new Set<Socket>();

  beforeAll(async () => {
    const target = new URL(fx.bridge.url);
    proxy = createServer((client) => {
      sockets.add(client);
      client.on('close', () => sockets.delete(client));
      if (down) return client.resetAndDestroy();
      const upstream = connect(Number(target.port), target.hostname);
      client.pipe(upstream).pipe(client);
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    port = (proxy.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => proxy.close(() => resolve()));
  });

  it('one store.unreachable line naming the host and what failed, again a minute later, store.reachable when it answers', async () => {
    const log = createMemoryLogger();
    let clock = 1_000_000;
    const host = `127.0.0.1:${port}`;
    const store = new UpstashStore({
      settings: { url: `http://${host}`, token: fx.bridge.token },
      reporter: logReporter(log, { host, now: () => clock }),
    });
    const named = () => log.lines.filter((l) => l.event === 'store.unreachable');
    for (let i = 0; i < 5; i++) await store.note('autohub:test:outage', 'v', 60);
    expect(log.lines.filter((l) => l.event === 'store.write_failed')).toHaveLength(5);
    expect(log.lines.filter((l) => l.event === 'store.write_failed').every((l) => l.level === 'debug')).toBe(true);
    expect(named()).toHaveLength(1);
    expect(named()[0]).toMatchObject({ level: 'error', host, op: 'note', failures: 1 });
    expect(String(named()[0]!.reason)).toMatch(/ECONNRESET|socket hang up|fetch failed|other side closed/);

    clock += 61_000;
    await store.note('autohub:test:outage', 'v', 60);
    expect(named()).toHaveLength(2);
    expect(named()[1]).toMatchObject({ host, failures: 5, sinceMs: 61_000, still: true });

    down = false;
    clock += 1_000;
    await store.note('autohub:test:outage', 'v', 60);
    expect(log.lines.filter((l) => l.event === 'store.reachable')).toEqual([expect.objectContaining({ host, downMs: 62_000 })]);
    expect(await store.read('autohub:test:outage')).toBe('v');
    expect(named()).toHaveLength(2);
  });
});
