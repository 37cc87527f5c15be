/**
 * The bot contract's names are declared once in the whole tree (`TurnModule` was declared in three blocks,
 * `TurnRequest` in two, the runner had a `TurnContext` of its own), and lib/turn's barrel names only what
 * other rooms import from it (it exported 89 names, most of them internals). Read from the sources.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ROOMS = ['app', 'bench', 'drill', 'examples', 'lib', 'scripts', 'test', 'try'];

/** Every source file of the tree (not dist/, not node_modules), with its text. */
function sources(): Array<{ path: string; text: string }> {
  return ROOMS.flatMap((room) =>
    (readdirSync(join(ROOT, room), { recursive: true }) as string[])
      .filter((f) => /\.(ts|mts|mjs|js)$/.test(f) && !f.includes('node_modules'))
      .map((f) => ({ path: join(room, f), text: readFileSync(join(ROOT, room, f), 'utf8') })),
  );
}

/** The names an `export { ... }` / `export type { ... }` list in `text` gives. */
function exportedNames(text: string): string[] {
  return [...text.matchAll(/export (?:type )?\{([^}]*)\} from/g)].flatMap((m) =>
    m[1]!
      .split(',')
      .map((n) => n.trim().replace(/^type /, ''))
      .filter(Boolean),
  );
}

/** Where `name` is declared: an interface, a type alias, a class, an enum, a function (not an import list's `type Name,`). */
function declarations(name: string, files: ReturnType<typeof sources>): string[] {
  const declared = new RegExp(
    `^\\s*(?:export\\s+)?(?:declare\\s+)?(?:(?:interface|class|enum)\\s+${name}\\b|(?:async\\s+)?function\\*?\\s+${name}\\b|type\\s+${name}\\s*(?:<[^>]*>)?\\s*=)`,
    'm',
  );
  return files.filter((f) => declared.test(f.text)).map((f) => f.path);
}

describe('the bot contract (lib/bot/index.ts, autohub/bot)', () => {
  const files = sources();
  const contract = exportedNames(readFileSync(join(ROOT, 'lib/bot/index.ts'), 'utf8'));

  it('exports the names the docs promise', () => {
    expect(contract).toEqual(
      expect.arrayContaining(['TurnModule', 'TurnRequest', 'TurnContext', 'TakeTurn', 'RetryableError', 'NonRetryableError', 'RetryAfterError']),
    );
  });

  it.each(exportedNames(readFileSync(join(ROOT, 'lib/bot/index.ts'), 'utf8')))('%s is declared once in the tree', (name) => {
    expect(declarations(name, files)).toHaveLength(1);
  });

  it('finds a second declaration (the check itself: a copy in a test fixture counts)', () => {
    const copy = [...files, { path: 'test/support/copy.ts', text: "export type TaskStatus = 'pending' | 'complete';\n" }];
    expect(declarations('TaskStatus', copy)).toEqual(['lib/turn/tasks.ts', 'test/support/copy.ts']);
    expect(declarations('TurnModule', [{ path: 'x.ts', text: 'import {\n  type TurnModule,\n} from "autohub/bot";\n' }])).toEqual([]);
  });
});

describe("lib/turn's barrel", () => {
  const files = sources();
  const barrel = exportedNames(readFileSync(join(ROOT, 'lib/turn/index.ts'), 'utf8'));
  /** The names other rooms (not lib/turn itself, not the tests) import from lib/turn/index.js. */
  const imported = new Set(
    files
      .filter((f) => !f.path.startsWith('lib/turn/') && !f.path.startsWith('test/'))
      .flatMap((f) =>
        [...f.text.matchAll(/(?:import|export) (?:type )?\{([^}]*)\} from '[./]*(?:lib\/)?turn\/index\.js'/g)].flatMap((m) =>
          m[1]!
            .split(',')
            .map((n) => n.trim().replace(/^type /, ''))
            .filter(Boolean),
        ),
      ),
  );

  it.each(barrel)('exports %s because another room imports it from there', (name) => {
    expect(imported.has(name)).toBe(true);
  });

  it("exports none of the bot contract's types: they are autohub/bot's", () => {
    const contract = new Set(exportedNames(readFileSync(join(ROOT, 'lib/bot/index.ts'), 'utf8')));
    expect(barrel.filter((n) => contract.has(n))).toEqual([]);
  });
});
