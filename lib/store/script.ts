/**
 * A Redis script with its KEYS and ARGV named once, for the Lua and its
 * caller alike (as upstash/ratelimit-js names them at the top of each of its
 * scripts). The Lua opens with a local per name (`local claimKey = KEYS[1]`,
 * `local ttl = tonumber(ARGV[3])`), built from the same lists the caller's
 * `layout` reads, and the caller passes each value by name: a key or an
 * argument cannot be passed in another's place, nor one forgotten.
 *
 * Pure (no I/O, no Node module): the Worker's inbox and the copies' store
 * both build their commands with it.
 */

/** How a named argument reaches the Lua: as the string Redis passes, or through `tonumber` (nil when not a number). */
export type ArgKind = 'string' | 'number';

export interface ScriptSpec<K extends string, A extends string> {
  /** KEYS, in order, by the name of the local each is read into. */
  keys: readonly K[];
  /** ARGV, in order (an object's own order), by the name of the local each is read into, and how. */
  args: { readonly [N in A]: ArgKind };
  /**
   * Further KEYS after the named ones (a list of leases, of aliases). The Lua
   * reads them from index `<restKeys>From`, a local the header sets.
   */
  restKeys?: string;
  /** Further ARGV after the named ones, read likewise from `<restArgs>From`. */
  restArgs?: string;
  /** The Lua after the header of locals. */
  body: string;
}

/** KEYS and ARGV by name, as a caller gives them. */
export interface ScriptInput<K extends string, A extends string> {
  keys: { readonly [N in K]: string };
  args: { readonly [N in A]: string | number };
  restKeys?: readonly string[];
  restArgs?: readonly (string | number)[];
}

/** What a caller gives `script` (`InputOf<typeof CLAIM_SCRIPT>`). */
export type InputOf<S> = S extends Script<infer K, infer A> ? ScriptInput<K, A> : never;

/** KEYS and ARGV as Redis takes them (EVAL, EVALSHA). */
export interface ScriptCall {
  keys: string[];
  args: (string | number)[];
}

export interface Script<K extends string, A extends string> {
  /** The whole Lua: the header of locals, then the body. */
  readonly source: string;
  readonly keys: readonly K[];
  readonly args: readonly A[];
  /** The values given by name, in the order the script reads them. */
  layout(input: ScriptInput<K, A>): ScriptCall;
}

const LUA_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function header(keys: readonly string[], args: readonly [string, ArgKind][], restKeys?: string, restArgs?: string): string {
  const lines = keys.map((name, i) => `local ${name} = KEYS[${i + 1}]`);
  if (restKeys !== undefined) lines.push(`local ${restKeys}From = ${keys.length + 1}`);
  for (const [i, [name, kind]] of args.entries()) lines.push(kind === 'number' ? `local ${name} = tonumber(ARGV[${i + 1}])` : `local ${name} = ARGV[${i + 1}]`);
  if (restArgs !== undefined) lines.push(`local ${restArgs}From = ${args.length + 1}`);
  return lines.join('\n');
}

/**
 * One script, declared once. A name that is not a Lua identifier, or one
 * used twice, is a bug in the declaration: thrown at load.
 */
export function defineScript<const K extends string, const A extends string>(spec: ScriptSpec<K, A>): Script<K, A> {
  const args = Object.entries(spec.args) as [A, ArgKind][];
  const names = [...spec.keys, ...args.map(([n]) => n), ...[spec.restKeys, spec.restArgs].flatMap((r) => (r === undefined ? [] : [`${r}From`]))];
  for (const name of names) if (!LUA_NAME.test(name)) throw new TypeError(`script name "${name}" is not a Lua identifier`);
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice !== undefined) throw new TypeError(`script name "${twice}" is declared twice`);
  const argNames = args.map(([n]) => n);
  return {
    source: `${header(spec.keys, args, spec.restKeys, spec.restArgs)}\n${spec.body}`,
    keys: spec.keys,
    args: argNames,
    layout(input) {
      return {
        keys: [...spec.keys.map((k) => input.keys[k]), ...(input.restKeys ?? [])],
        args: [...argNames.map((a) => input.args[a]), ...(input.restArgs ?? [])],
      };
    },
  };
}
