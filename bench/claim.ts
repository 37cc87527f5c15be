/**
 * Section `claim`: claim latency through the adapter (two bounds, fresh fuse
 * per command, nonce record) against a raw SET NX sent through the same REST
 * bridge by a bare @upstash/redis client, in the same run.
 */
import { Redis } from '@upstash/redis';
import { UpstashStore } from '../lib/store/index.js';
import { startRedis } from '../drill/sim/redis-server.js';
import { startUpstashBridge } from '../drill/sim/upstash-bridge.js';
import { fmt, printTable, summarize } from './stats.js';

export async function benchClaim(n = 2000): Promise<void> {
  const redis = await startRedis();
  const bridge = await startUpstashBridge({ redisPort: redis.port });
  try {
    const store = new UpstashStore({ settings: { url: bridge.url, token: bridge.token }, reporter: () => {} });
    const bare = new Redis({ url: bridge.url, token: bridge.token, enableTelemetry: false });
    const owner = { instance: 'bench', role: 'hub' } as const;
    // A mention's body as a lease keeps it (about 600 bytes).
    const body = JSON.stringify({ type: 'event_callback', event_id: 'Ev0', team_id: 'T1', event: { type: 'app_mention', text: 'x'.repeat(400) } });
    const time = async (fn: (i: number) => Promise<unknown>) => {
      for (let i = 0; i < 200; i++) await fn(-i - 1); // warm-up
      const samples: number[] = [];
      for (let i = 0; i < n; i++) {
        const t = performance.now();
        await fn(i);
        samples.push(performance.now() - t);
      }
      return summarize(samples);
    };
    // Two rounds of all three; the second is reported, so none is measured while the JIT is still warming.
    const round = async (r: number) => ({
      adapter: await time((i) => store.claim([`bench:adapter:${r}:${i}`], owner)),
      raw: await time((i) => bare.set(`bench:raw:${r}:${i}`, '1', { nx: true, ex: 3600 })),
      message: await time((i) => store.claim([`bench:ev:${r}:${i}`, `bench:msg:${r}:${i}`], owner)),
      leased: await time((i) => store.claim([`bench:lev:${r}:${i}`, `bench:lmsg:${r}:${i}`], owner, { leaseMs: 10_000, body })),
    });
    await round(0);
    const { adapter, raw, message, leased } = await round(1);
    printTable(`claim: ${n} sequential claims through the REST bridge to a private redis-server (ms)`, [
      ['path', 'p50', 'p99', 'mean', 'p50 ratio', 'p99 ratio'],
      ['raw SET NX, bare client (baseline)', fmt(raw.p50, 3), fmt(raw.p99, 3), fmt(raw.mean, 3), '1.00', '1.00'],
      ['adapter claim, one key', fmt(adapter.p50, 3), fmt(adapter.p99, 3), fmt(adapter.mean, 3), fmt(adapter.p50 / raw.p50), fmt(adapter.p99 / raw.p99)],
      [
        'adapter claim, event + message alias',
        fmt(message.p50, 3),
        fmt(message.p99, 3),
        fmt(message.mean, 3),
        fmt(message.p50 / raw.p50),
        fmt(message.p99 / raw.p99),
      ],
      ['the same with a lease (one script)', fmt(leased.p50, 3), fmt(leased.p99, 3), fmt(leased.mean, 3), fmt(leased.p50 / raw.p50), fmt(leased.p99 / raw.p99)],
    ]);
  } finally {
    await bridge.close();
    await redis.stop();
  }
}
