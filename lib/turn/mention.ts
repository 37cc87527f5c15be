/** The bot's own mention removed from what a person wrote. Pure. (Placeholder until h6's version lands.) */
export function stripMention(text: string, botUserId: string | undefined): string {
  if (!botUserId) return text.trim();
  return text.replace(new RegExp(`<@${botUserId}(\\|[^>]*)?>`, 'g'), '').replace(/\s{2,}/g, ' ').trim();
}
