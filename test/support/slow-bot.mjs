// A bot for the playground's tests: its answer streams in ten pieces, a quarter
// of a second apart, so a test can act while it is mid-answer; it offers
// feedback buttons, and says which copy wrote it.

/** @type {import('../../lib/bot/index.js').TakeTurn} */
export function takeTurn(request, ctx) {
  const words = ['Counting', ' to', ' ten:', ' one', ' two', ' three', ' four', ' five', ' six', ` seven (${request.text.trim()})`];
  async function* pieces() {
    for (const [i, word] of words.entries()) {
      if (i > 0) await new Promise((r) => setTimeout(r, 250));
      if (ctx.signal.aborted) return;
      yield word;
    }
    yield ' - the end.';
  }
  return {
    text: pieces(),
    blocks: [
      {
        type: 'context_actions',
        elements: [
          {
            type: 'feedback_buttons',
            action_id: 'feedback',
            positive_button: { text: { type: 'plain_text', text: 'Good answer' }, value: 'positive' },
            negative_button: { text: { type: 'plain_text', text: 'Bad answer' }, value: 'negative' },
          },
        ],
      },
    ],
  };
}
