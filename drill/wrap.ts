/** Text that fits a terminal's width: the drill's output keeps every line within `TERMINAL_WIDTH` columns. Pure. */

/** The widest line the drill writes to a terminal (a laptop's terminal half a screen wide). */
export const TERMINAL_WIDTH = 100;

/** `text` cut to `width` characters, its last one `…` when cut. */
export function clip(text: string, width: number): string {
  if (text.length <= width) return text;
  return width <= 0 ? '' : `${text.slice(0, width - 1)}…`;
}

/**
 * `text` broken at spaces into lines of at most `width` characters, each line
 * after the first begun with `indent`; a word longer than a line is clipped.
 */
export function wrap(text: string, width = TERMINAL_WIDTH, indent = '  '): string[] {
  const lines: string[] = [];
  // The text's own leading spaces (a list's item) stay on its first line.
  const own = /^ */.exec(text)![0];
  let line = own;
  for (const word of text.slice(own.length).split(' ')) {
    const lead = lines.length === 0 ? '' : indent;
    const room = width - lead.length;
    if (line === own && lines.length === 0) line = own + clip(word, room - own.length);
    else if (line === '') line = clip(word, room);
    else if (line.length + 1 + word.length <= room) line += ` ${word}`;
    else {
      lines.push(lead + line);
      line = clip(word, width - indent.length);
    }
  }
  lines.push((lines.length === 0 ? '' : indent) + line);
  return lines;
}
