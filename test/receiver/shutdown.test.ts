import { Agent, request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { spawnHub } from '../support/child-app.js';
import { eventually, SECRET } from '../support/copies.js';
import { useFakeWebApi } from '../support/fixtures.js';

function get(url: string, agent: Agent | false): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('graceful shutdown of `npm start`', () => {
  const api = useFakeWebApi();

  it('SIGTERM mid-turn: health turns 503, new connections are refused, the turn posts, exit 0', async () => {
    // The reply's first write is held until the test lets it go: the turn is mid-post when SIGTERM comes.
    api.holdPosts(Number.POSITIVE_INFINITY);
    const app = await spawnHub({ webApiUrl: api.url, secret: SECRET });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      expect(await get(`${app.url}/slack/health`, agent)).toBe(200);
      const acked = await deliver(`${app.url}/slack/events`, mentionEnvelope({ eventId: 'Ev-drain', ts: '1700000000.000800' }), {
        signingSecret: SECRET,
      });
      expect(acked.status).toBe(200);
      await eventually(() => api.held > 0, 'the turn to start posting');

      app.child.kill('SIGTERM');
      await eventually(() => app.output().includes('"app.stopping"'), 'the app to start draining');
      expect(await get(`${app.url}/slack/health`, agent)).toBe(503);
      // A fresh connection (no agent) is dropped at once.
      await expect(get(`${app.url}/slack/health`, false)).rejects.toThrow(/socket hang up|ECONNRESET|ECONNREFUSED/);
      // The draining copy's turn goes on: its post lands, and only then does the copy exit.
      api.releasePosts();

      expect(await app.exited).toBe(0);
      expect(app.output()).toContain('"turn.replied"');
      expect(api.posts()).toHaveLength(1);
    } finally {
      api.releasePosts();
      agent.destroy();
      app.child.kill('SIGKILL');
    }
  });
});
