/**
 * The bot token, checked once at start-up with auth.test: a token Slack refuses stops `npm start` in one
 * line naming SLACK_BOT_TOKEN (before: a well-formed fake token started and reported ok until the first
 * delivery); a Slack out of reach does not stop it.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { startFakeWebApi } from '../../drill/sim/fake-web-api.js';
import { checkToken, tokenCheckOf } from '../../lib/slack/token-check.js';
import { START_ARGS, START_ENV } from '../support/child-app.js';

describe('tokenCheckOf', () => {
  it.each(['invalid_auth', 'not_authed', 'token_revoked', 'token_expired', 'account_inactive', 'not_allowed_token_type'])('%s refuses the token', (error) => {
    expect(tokenCheckOf({ answer: { ok: false, error } })).toEqual({ kind: 'refused', error });
    // As the WebClient throws it.
    expect(tokenCheckOf({ thrown: { code: 'slack_webapi_platform_error', data: { ok: false, error } } })).toEqual({ kind: 'refused', error });
  });

  it.each([
    [{ thrown: { code: 'slack_webapi_request_error', message: 'fetch failed' } }, 'slack_webapi_request_error'],
    [{ thrown: { code: 'slack_webapi_http_error' } }, 'slack_webapi_http_error'],
    [{ answer: { ok: false, error: 'internal_error' } }, 'slack: internal_error'],
    [{ thrown: new Error('socket hang up') }, 'socket hang up'],
  ])('%j says nothing of the token: unknown (%s), and the copy starts', (outcome, reason) => {
    expect(tokenCheckOf(outcome)).toEqual({ kind: 'unknown', reason });
  });

  it('an accepted token names its team and bot user', () => {
    expect(tokenCheckOf({ answer: { ok: true, team: 'acme', user: 'autohub' } })).toEqual({ kind: 'accepted', team: 'acme', user: 'autohub' });
  });

  it('checkToken asks Slack once and never throws', async () => {
    let calls = 0;
    const refused = await checkToken('xoxb-1', {
      authTest: async () => {
        calls++;
        throw Object.assign(new Error('An API error occurred: token_revoked'), {
          code: 'slack_webapi_platform_error',
          data: { ok: false, error: 'token_revoked' },
        });
      },
    });
    expect(refused).toEqual({ kind: 'refused', error: 'token_revoked' });
    expect(calls).toBe(1);
  });
});

/** `npm start` (app/main.ts through tsx) against `apiUrl`: its stderr, and its exit code, or 'started' once it listens. */
function start(apiUrl: string): Promise<{ outcome: number | 'started'; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, START_ARGS, {
      env: {
        ...START_ENV,
        SLACK_BOT_TOKEN: 'xoxb-well-formed-but-fake',
        SLACK_API_URL: apiUrl,
        AUTOHUB_REFUSAL_LOG: 'off',
        AUTOHUB_JOURNAL: 'off',
        AUTOHUB_CATCHUP: 'off',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const take = (d: Buffer) => {
      output += d;
      if (output.includes('"app.started"')) {
        child.kill('SIGKILL');
        resolve({ outcome: 'started', output });
      }
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('exit', (code) => resolve({ outcome: code ?? 1, output }));
  });
}

describe('`npm start` with a bot token', () => {
  it('one Slack refuses (invalid_auth): stops with one line naming SLACK_BOT_TOKEN and why, exit 1, before it listens', async () => {
    const api = await startFakeWebApi();
    api.script('auth.test', { status: 200, body: { ok: false, error: 'invalid_auth' } });
    try {
      const { outcome, output } = await start(api.url);
      expect(outcome).toBe(1);
      expect(output.trim()).toBe(
        "autohub: SLACK_BOT_TOKEN is invalid: Slack's auth.test refused it (invalid_auth); expected the app's Bot User OAuth Token (xoxb-...) from OAuth & Permissions, reinstalled if it was revoked",
      );
      expect(output).not.toContain('xoxb-well-formed-but-fake');
    } finally {
      await api.close();
    }
  }, 20_000);

  it('with Slack out of reach it starts anyway, saying the token went unchecked', async () => {
    const { outcome, output } = await start('http://127.0.0.1:1/api/');
    expect(outcome).toBe('started');
    expect(output).toContain('"app.token_unchecked"');
  }, 20_000);
});
