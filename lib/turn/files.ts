/** Files shared with a message (placeholder until h6's version lands). */
import type { TurnFile } from './types.js';
export function turnFiles(_event: unknown, _o: { token: string; fetch?: typeof fetch }): TurnFile[] {
  return [];
}
