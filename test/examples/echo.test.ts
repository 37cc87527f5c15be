/** examples/echo.mjs: loaded through AUTOHUB_TURN's loader, as `npm start` loads it, it says back what it was told. */
import { describe, expect, it } from 'vitest';
import { loadTurnModule } from '../../app/turn-module.js';
import type { TurnFile, TurnRequest } from '../../lib/turn/types.js';

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
    expect(await takeTurn(request('what time is it?'), ctx)).toBe('You said: what time is it?');
    expect(await takeTurn(request('see these', [file('a.txt'), file('b.txt')]), ctx)).toBe('You said: see these (and 2 files: a.txt, b.txt)');
    expect(await takeTurn(request(''), ctx)).toBe('You mentioned me, but said nothing.');
  });
});
