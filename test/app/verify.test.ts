import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runVerify } from '../../app/cli/verify.js';
import { capture } from '../support/capture.js';
import { HEALTH_TOKEN, SECRET } from '../support/copies.js';
import { useRedisBridge } from '../support/redis-fixture.js';
import { startSystem, type System } from '../support/system.js';

describe('npm run verify against hub, cloud and edge on loopback', () => {
  const fx = useRedisBridge();
  let sys: System;

  beforeAll(async () => {
    sys = await startSystem(fx);
  });
  afterAll(async () => {
    await sys?.close();
  });

  it('is green when everything is up, says which copy served each delivery, and posts nothing to Slack', async () => {
    const c = capture();
    const code = await runVerify(
      ['--edge', sys.edgeUrl, '--hub', sys.hub.url, '--cloud', sys.cloud.url],
      { SLACK_SIGNING_SECRET: SECRET, AUTOHUB_HEALTH_TOKEN: HEALTH_TOKEN },
      c.out,
    );
    expect(c.errors).toEqual([]);
    expect(code).toBe(0);
    const text = c.lines.join('\n');
    expect(text).toMatch(/first delivery through the edge +200 +route hub +served by hub \(hub-test\) +claim claimed/);
    expect(text).toMatch(/its retry .* +200 +route hub +served by hub \(hub-test\) +claim duplicate/);
    expect(text).toMatch(/retry of the hub's delivery, to the cloud copy +200 .*served by cloud \(cloud-test\) +claim duplicate/);
    expect(text).toMatch(/first delivery straight to the cloud copy +200 .*claim claimed/);
    expect(text).toMatch(/cloud +200 +ok +store upstash ok/);
    expect(sys.api.posts()).toHaveLength(0);
    expect(sys.api.calls.filter((x) => x.method === 'auth.test')).toHaveLength(0);
  });

  it('is a usage error without the signing secret or the edge', async () => {
    const c = capture();
    expect(await runVerify(['--edge', sys.edgeUrl], {}, c.out)).toBe(2);
    expect(c.errors[0]).toMatch(/set SLACK_SIGNING_SECRET/);
    expect(await runVerify(['--hub', sys.hub.url], { SLACK_SIGNING_SECRET: SECRET, AUTOHUB_HEALTH_TOKEN: HEALTH_TOKEN }, c.out)).toBe(2);
    expect(c.errors[1]).toMatch(/--edge URL is required/);
  });

  it('is red, naming the cloud copy, when the cloud copy is down', async () => {
    const cloudUrl = sys.cloud.url;
    await sys.cloud.stop();
    const c = capture();
    const code = await runVerify(
      ['--edge', sys.edgeUrl, '--hub', sys.hub.url, '--cloud', cloudUrl],
      { SLACK_SIGNING_SECRET: SECRET, AUTOHUB_HEALTH_TOKEN: HEALTH_TOKEN },
      c.out,
    );
    expect(code).toBe(1);
    expect(c.errors.length).toBeGreaterThan(0);
    expect(c.errors.every((line) => line.startsWith('FAIL cloud: '))).toBe(true);
    expect(c.errors.join('\n')).toMatch(/FAIL cloud: health answered unreachable/);
  });
});
