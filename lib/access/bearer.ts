/**
 * Whether an `Authorization` header carries the bearer token, compared in
 * constant time (Web-standard code: the edge runs it in workerd too). No
 * token configured: nothing matches.
 */
export function bearerMatches(header: string | null | undefined, token: string | null | undefined): boolean {
  if (!token || !header) return false;
  const given = header.startsWith('Bearer ') ? header.slice(7) : '';
  let diff = given.length ^ token.length;
  for (let i = 0; i < token.length; i++) diff |= token.charCodeAt(i) ^ (given.charCodeAt(i) || 0);
  return diff === 0;
}
