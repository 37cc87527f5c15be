/**
 * A drill or test run stopped by a signal leaves no redis-server behind: before, the copies were killed and the
 * private redis-server kept running, holding its port (the drill's Ctrl-C left one a run).
 */
import { spawn } from 'node:child_process';
import { createConnection } from 'node:net';
import { describe, expect, it } from 'vitest';
import { eventually } from '../support/copies.js';

/** Whether something listens on the loopback port. */
const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

describe('a private redis-server', () => {
  it('is killed with the process that started it when that process gets SIGTERM', async () => {
    const script =
      "const { startRedis } = await import('./drill/sim/redis-server.ts'); const r = await startRedis(); console.log(r.port); setInterval(() => {}, 1000);";
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const port = Number(await eventually(() => /^(\d+)\n/.exec(out)?.[1], 'the redis-server to start', 45_000));
    expect(await listening(port)).toBe(true);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(143);
    await eventually(async () => !(await listening(port)), 'the redis-server to be gone');
  });
});
