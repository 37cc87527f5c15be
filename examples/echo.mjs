// The smallest bot: it says back what it was told.
//   AUTOHUB_TURN=examples/echo.mjs npm start
//
// `request.text` has the bot's own mention taken out; what the function
// returns is posted in the thread (a string, or an async iterable of chunks,
// streamed as they come, or either with `blocks` under the answer: here, feedback
// buttons). Types: `autohub/bot` (lib/bot/index.ts); Slack's AI-app features: docs/ai-apps.md.

/** Thumbs up and down under each answer: a click reaches `onFeedback` below, once. */
export const FEEDBACK_BLOCKS = [
  {
    type: 'context_actions',
    elements: [
      {
        type: 'feedback_buttons',
        action_id: 'echo_feedback',
        positive_button: { text: { type: 'plain_text', text: '👍' }, value: 'good', accessibility_label: 'This answer helped' },
        negative_button: { text: { type: 'plain_text', text: '👎' }, value: 'bad', accessibility_label: 'This answer did not help' },
      },
    ],
  },
];

/** @type {import('autohub/bot').TakeTurn} */
export function takeTurn(request) {
  const text = request.text.trim();
  const files =
    request.files.length > 0
      ? ` (and ${request.files.length} file${request.files.length === 1 ? '' : 's'}: ${request.files.map((f) => f.name).join(', ')})`
      : '';
  const answer = text === '' && files === '' ? 'You mentioned me, but said nothing.' : `You said: ${text}${files}`;
  return { text: answer, blocks: FEEDBACK_BLOCKS };
}

/** Shown under the thread while a turn runs (optional; the default is "is thinking..."). */
export const status = 'is listening...';

/** Offered when someone opens the bot's split view (an assistant thread). */
export const prompts = [
  { title: 'Say hello', message: 'Hello!' },
  { title: 'Echo a question', message: 'What time is it?' },
];

/** @type {NonNullable<import('autohub/bot').TurnModule['onFeedback']>} */
export function onFeedback(feedback, { log }) {
  // Heard once per click, whichever copy Slack's click reached (or both).
  log.info('echo.feedback', { positive: feedback.positive, eventId: feedback.eventId });
}
