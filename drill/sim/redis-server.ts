/**
 * A private redis-server on a free loopback port, owned by one test file or
 * one drill run, so that pausing or killing it never touches the machine's
 * shared Redis.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from './free-port.js';
import { reapOnSignal } from './reap.js';
import { RespClient } from './resp-client.js';

export interface PrivateRedis {
  port: number;
  /** SIGSTOP: the server keeps its sockets open and answers nothing. */
  pause(): void;
  /** SIGCONT after a pause. */
  resume(): void;
  /** Stop it for good (SIGKILL). */
  stop(): Promise<void>;
}

async function waitForPing(port: number, deadline: number): Promise<void> {
  for (;;) {
    try {
      const client = await RespClient.open(port);
      try {
        if ((await client.command(['PING'])) === 'PONG') return;
      } finally {
        client.close();
      }
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not answer PING`, { cause: error });
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}

export async function startRedis(binary = 'redis-server'): Promise<PrivateRedis> {
  const port = await freePort();
  const child: ChildProcess = spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'yes'], {
    stdio: 'ignore',
  });
  reapOnSignal(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const spawnError = new Promise<never>((_, reject) => child.once('error', reject));
  // 30 s: a loaded machine's start (CI's two cores, each busy) is slow, not broken.
  await Promise.race([waitForPing(port, Date.now() + 30_000), spawnError]);
  return {
    port,
    pause: () => void child.kill('SIGSTOP'),
    resume: () => void child.kill('SIGCONT'),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGCONT');
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
}
