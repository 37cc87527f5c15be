/**
 * The "is thinking..." status in a DM: where Slack refuses it, the copy that
 * was refused does not ask again in that conversation; another copy in the
 * same process keeps its own memory (one set per copy, like noStream).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { StatusBook } from '../../lib/turn/status.js';
import { eventually } from '../support/copies.js';
import { useFakeWebApi } from '../support/fixtures.js';
import { copyClients, turnHandle } from '../support/handles.js';

describe('the thinking status is remembered per copy where Slack refuses it', () => {
  const api = useFakeWebApi();
  afterEach(() => {
    api.calls.length = 0;
  });

  /** A copy's turn handles: its own client and its own status book, as app/parts.ts builds them. */
  function copy(instance: string) {
    const clients = copyClients(api.url);
    const book = new StatusBook();
    let n = 0;
    const answer = async () => {
      n += 1;
      const handle = turnHandle(clients, { copy: { role: 'hub', instance }, ai: { bot: {}, book } });
      const ts = `1700900000.${String(n).padStart(6, '0')}`;
      await handle.answer(
        {
          event: { type: 'message', channel: 'D0PERSON', channel_type: 'im', user: 'U0PERSON', text: 'hi', ts },
          body: { event_id: `Ev-status-${instance}-${n}`, team_id: 'T0AUTOHUB', api_app_id: 'A0AUTOHUB' },
          context: { botUserId: 'UAUTOHUB' },
        },
        () => 'hello',
      );
    };
    return { answer, book };
  }
  const asked = () => api.calls.filter((c) => c.method === 'assistant.threads.setStatus').length;

  it('a copy refused once asks no more in that DM; another copy still asks (before: one global set for every copy in the process)', async () => {
    api.script('assistant.threads.setStatus', { status: 200, body: { ok: false, error: 'channel_not_found' } });
    const hub = copy('hub-1');
    await hub.answer();
    await eventually(() => hub.book.refused.has('D0PERSON'), 'the refusal to be remembered');
    expect(asked()).toBe(1);
    await hub.answer();
    expect(asked()).toBe(1);
    const other = copy('hub-2');
    await other.answer();
    expect(asked()).toBe(2);
    // Both turns were answered all the same: the status is never a failure.
    expect(api.calls.filter((c) => c.method === 'chat.postMessage')).toHaveLength(3);
  });
});
