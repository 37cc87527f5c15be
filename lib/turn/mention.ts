/**
 * The bot's own mention taken out of what a person wrote, so a turn sees
 * "what is the weather" and not "<@U0BOT> what is the weather". Pure.
 *
 * Slack writes a user mention as `<@U123>` or, in older clients and some
 * APIs, `<@U123|name>`. Only this bot's mention goes; other people's stay, as
 * they are part of what was said.
 */
export function stripMention(text: string, botUserId: string | undefined): string {
  if (!botUserId) return text.trim();
  const id = botUserId.replace(/[^A-Za-z0-9]/g, '');
  // The mention, with the spaces on one side of it, so "hi <@BOT> there" keeps one space.
  return text.replace(new RegExp(`\\s*<@${id}(?:\\|[^>]*)?>\\s*`, 'g'), ' ').trim();
}
