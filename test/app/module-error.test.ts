import { describe, expect, it } from 'vitest';
import { fromFrame, parseFailureOf } from '../../app/module-error.js';

const FILE = '/srv/bots/bot.ts';

describe('parseFailureOf: where a bot module does not parse', () => {
  it("Node's type stripping (a production install): the place from the error's stack, the column from its caret", () => {
    // As Node 26 throws it for `return r.text +;` on line 2 (ERR_INVALID_TYPESCRIPT_SYNTAX).
    const error = Object.assign(new SyntaxError('Expression expected'), { code: 'ERR_INVALID_TYPESCRIPT_SYNTAX' });
    error.stack = `${FILE}:2\nexport function takeTurn(r: any): string {\n  return r.text +;\n                 ^\n}\n\nSyntaxError: Expression expected`;
    // Node's frame: `file:line`, the line before as context, the failing line, the caret under its column.
    expect(parseFailureOf(error, FILE)).toEqual({ at: `${FILE}:2:18`, what: 'Expression expected' });
  });

  it("tsx (esbuild): the place from its message, its 0-based column made 1-based, not 'Transform failed with 1 error:'", () => {
    const error = Object.assign(new Error(`Transform failed with 1 error:\n${FILE}:2:17: ERROR: Unexpected ";"`), { name: 'TransformError' });
    expect(parseFailureOf(error, FILE)).toEqual({ at: `${FILE}:2:18`, what: 'Unexpected ";"' });
  });

  it("a .mjs SyntaxError (no place of its own): the place from `node --check`'s output", () => {
    const checked = `/srv/bots/bot.mjs:3\n  return r.text +;\n                 ^\n\nSyntaxError: Unexpected token ';'\n    at checkSyntax (node:internal/main/check_syntax:84:5)\n`;
    expect(parseFailureOf(new SyntaxError("Unexpected token ';'"), '/srv/bots/bot.mjs', () => checked)).toEqual({
      at: '/srv/bots/bot.mjs:3:18',
      what: "Unexpected token ';'",
    });
  });

  it('an error that is not a parse failure is left as it is', () => {
    expect(parseFailureOf(new Error('no API key'), FILE, () => '')).toBeUndefined();
    expect(parseFailureOf(Object.assign(new Error('x'), { code: 'ERR_MODULE_NOT_FOUND' }), FILE, () => '')).toBeUndefined();
  });

  it('a frame without a caret still names the line', () => {
    expect(fromFrame(`${FILE}:7\ncode`, FILE, 'bad')).toEqual({ at: `${FILE}:7`, what: 'bad' });
  });
});
