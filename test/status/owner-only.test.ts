/** `/autohub` and the App Home say only "ok" or "degraded" to anyone but the owners (no instance, version or store error). */
import { beforeAll, describe, expect, it } from 'vitest';
import { commandForm, deliver } from '../../drill/sim/slack-events.js';
import { CLOSED_URL } from '../support/fake-copy.js';
import { SECRET } from '../support/copies.js';
import { useCopy, useFakeWebApi } from '../support/fixtures.js';
import { openHome } from './app-home.js';

const OWNER = 'U0OWNER';
const MEMBER = 'U0MEMBER';

describe('a copy whose store is unreachable, asked by a member and by the owner', () => {
  const api = useFakeWebApi();
  // An Upstash URL nobody listens on: the store's error names the address, which only the owner may read.
  const hub = useCopy({
    role: 'hub',
    api,
    env: { UPSTASH_REDIS_REST_URL: CLOSED_URL, UPSTASH_REDIS_REST_TOKEN: 'upstash-token', AUTOHUB_OWNER: OWNER },
  });
  beforeAll(() => {
    expect(hub.health.report().body.status).toBe('degraded');
  });

  const ask = async (user: string, text: string, trigger: string) => {
    const form = new URLSearchParams(commandForm({ text, triggerId: trigger }));
    form.set('user_id', user);
    const response = await deliver(hub.eventsUrl, form.toString(), { signingSecret: SECRET });
    expect(response.status).toBe(200);
    return (await response.json()) as { text: string; blocks?: unknown[] };
  };

  it.each(['', 'status'])('a member typing `/autohub %s` is told only "autohub: degraded"', async (text) => {
    const answer = await ask(MEMBER, text, `member-${text || 'plain'}`);
    expect(answer.text).toBe('autohub: degraded');
    expect(answer.blocks).toBeUndefined();
  });

  it("the owner is told which copy, its version and the store's error", async () => {
    const answer = await ask(OWNER, '', 'owner-plain');
    expect(answer.text).toContain('`hub-test`');
    expect(answer.text).toMatch(/\(v\d+\.\d+\.\d+\)/);
    expect(answer.text).toContain('unreachable (');
  });

  it('the App Home shows a member the state word only', async () => {
    const view = (await openHome(hub, api, { user: MEMBER, eventId: 'Ev-home-member', eventTs: '1700000300.000400' })).params.view!;
    expect(view).toContain('autohub: degraded');
    expect(view).not.toContain('hub-test');
  });
});
