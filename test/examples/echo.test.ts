/** examples/echo.mjs: loaded through AUTOHUB_TURN's loader, as `npm start` loads it, it says back what it was told. */
import { describe, expect, it } from 'vitest';
import { loadTurnModule } from '../../app/turn-module.js';
import type { TurnFile, TurnRequest } from '../../lib/bot/index.js';

const request = (text: string, files: TurnFile[] = []): TurnRequest => ({
  text,
  user: 'U0ALICE',
  channel: 'C1',
  threadTs: '1.1',
  ts: '1.1',
  eventId: 'Ev1',
  via: 'dm',
  late: false,
  files,
  copy: { role: 'cloud', instance: 'cloud-test' },
});
const file = (name: string): TurnFile => ({ id: name, name, mimetype: 'text/plain', size: 1, download: async () => new ArrayBuffer(0) });

describe('examples/echo.mjs', () => {
  it('echoes the text, names the files, and answers a bare mention', async () => {
    const { takeTurn } = await loadTurnModule('examples/echo.mjs');
    const ctx = {} as never;
    const said = async (r: TurnRequest) => ((await takeTurn(r, ctx)) as { text: string }).text;
    expect(await said(request('what time is it?'))).toBe('You said: what time is it?');
    expect(await said(request('see these', [file('a.txt'), file('b.txt')]))).toBe('You said: see these (and 2 files: a.txt, b.txt)');
    expect(await said(request(''))).toBe('You mentioned me, but said nothing.');
  });

  it('ends each answer with feedback buttons and hears a click, with a status and prompts for the split view', async () => {
    const mod = await loadTurnModule('examples/echo.mjs');
    const reply = (await mod.takeTurn(request('hi'), {} as never)) as unknown as { blocks: Array<{ type: string; elements: Array<{ type: string }> }> };
    expect(reply.blocks[0]).toMatchObject({ type: 'context_actions', elements: [{ type: 'feedback_buttons' }] });
    expect(mod.status).toBe('is listening...');
    expect(mod.prompts).toHaveLength(2);
    const lines: unknown[] = [];
    const log = { info: (event: string, fields: unknown) => lines.push([event, fields]) };
    const feedback = { value: 'good', positive: true, user: 'U1', channel: 'C1', messageTs: '2.2', threadTs: '1.1', eventId: 'Ev1', actionId: 'echo_feedback' };
    await mod.onFeedback?.(feedback, { log, client: {} } as never);
    expect(lines).toEqual([['echo.feedback', { positive: true, eventId: 'Ev1' }]]);
  });
});
