// A bot to watch in `npm run play`: it thinks for 3 s (its status and loading
// messages show), shows its work as tasks, and streams its answer over about
// 10 s (time to press Stop, or to kill the hub and watch the cloud copy finish
// it), with feedback buttons under it. Write "ask" and it asks you first.
//   npm run play -- --turn examples/playground.mjs

export { onFeedback } from './echo.mjs';

/** Shown under the thread while the turn runs; Slack rotates the loading messages. */
export const status = 'is thinking it over...';
export const loadingMessages = ['Reading your message...', 'Finding my fingers...', 'Counting them twice...'];

/** Two buttons under the answer, sent with its last write (chat.stopStream's blocks); a click reaches onFeedback. */
const FEEDBACK_BLOCKS = [
  {
    type: 'context_actions',
    elements: [
      {
        type: 'feedback_buttons',
        action_id: 'playground_feedback',
        positive_button: { text: { type: 'plain_text', text: 'Good answer' }, value: 'good' },
        negative_button: { text: { type: 'plain_text', text: 'Bad answer' }, value: 'bad' },
      },
    ],
  },
];

const NUMBERS = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];

/** A pause that ends early when the turn is stopped (Stop pressed, or another copy took it over). */
const pause = (ms, signal) =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => resolve(clearTimeout(timer)), { once: true });
  });

/** @type {import('autohub/bot').TakeTurn} */
export async function takeTurn(request, ctx) {
  let pace = 'slowly';
  if (/\bask\b/i.test(request.text)) {
    // Parked until you click: the turn then runs again from the top, and this returns your choice.
    const answer = await ctx.ask({ text: 'Shall I count *slowly* or *quickly*?', choices: ['Slowly', 'Quickly'] });
    if (answer.timedOut) return 'No answer: I counted nothing.';
    pace = answer.choice.toLowerCase();
  }
  async function* counting() {
    await pause(3000, ctx.signal);
    yield { type: 'task_update', id: 'read', title: 'Read your message', status: 'complete' };
    yield { type: 'task_update', id: 'count', title: 'Count to ten', status: 'in_progress' };
    yield `Counting ${pace} to ten:`;
    for (const n of NUMBERS) {
      await pause(pace === 'slowly' ? 900 : 150, ctx.signal);
      if (ctx.signal.aborted) return;
      yield ` ${n}`;
    }
    yield { type: 'task_update', id: 'count', title: 'Count to ten', status: 'complete', output: 'ten, and none twice' };
    yield '. Done.';
  }
  return { text: counting(), blocks: FEEDBACK_BLOCKS };
}
