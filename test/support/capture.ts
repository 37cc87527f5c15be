/** A console stand-in that keeps what a command-line tool printed. */
export function capture() {
  const lines: string[] = [];
  const errors: string[] = [];
  const out = { log: (s: string) => lines.push(s), error: (s: string) => errors.push(s) } as unknown as Console;
  return { lines, errors, out };
}
