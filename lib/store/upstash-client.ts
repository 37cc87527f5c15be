/**
 * How this project builds an @upstash/redis client: the SDK's commands over
 * our own requester (lib/store/upstash-requester.ts), so every HTTP request
 * gets a fresh fuse of `attemptMs` and no static signal can be configured
 * (a fired static signal turns later replies into synthetic ones: seed 003).
 * The client makes one request per command and no retries of its own; the
 * store owns attempts and their budget. The store makes two: one with the
 * claim's short fuse, one with the longer fuse of every other command, each
 * with its own sockets (a claim never queues behind a slow renewal).
 */
import { Redis } from '@upstash/redis';
import type { UpstashSettings } from './roles.js';
import { httpRequester } from './upstash-requester.js';

export type StoreClient = Pick<Redis, 'eval' | 'evalsha' | 'get' | 'set' | 'pipeline' | 'ping' | 'lrange' | 'hgetall' | 'hset' | 'zcount' | 'lrem' | 'scan'>;

export function createUpstashClient(settings: UpstashSettings, attemptMs: number, onCommands?: (count: number) => void): StoreClient {
  const redis = new Redis(httpRequester({ url: settings.url, token: settings.token, attemptMs, ...(onCommands ? { onCommands } : {}) }));
  // A requester-built client takes no options; replies are read as Redis sent them.
  (redis as unknown as { opts: object }).opts = { automaticDeserialization: false, enableTelemetry: false };
  return redis;
}
