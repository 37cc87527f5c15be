/** A click on one of the bot's own elements (try/play-click.ts): only what the message shows now, sent as Slack sends it. */
import { describe, expect, it } from 'vitest';
import { feedbackOf } from '../../lib/turn/feedback.js';
import { parseAction, questionBlocks } from '../../lib/ask/question.js';
import { partMetadata } from '../../lib/turn/parts.js';
import { blockActionsForm, findClicked } from '../../try/play-click.js';

const FEEDBACK = [
  {
    type: 'context_actions',
    elements: [
      {
        type: 'feedback_buttons',
        action_id: 'fb',
        positive_button: { text: { type: 'plain_text', text: 'Good' }, value: 'good' },
        negative_button: { text: { type: 'plain_text', text: 'Bad' }, value: 'bad' },
      },
    ],
  },
];
const QID = 'a'.repeat(20);
const QUESTION = questionBlocks(QID, 'Deploy?', ['Go ahead', 'Cancel']);

const form = (clicked: NonNullable<ReturnType<typeof findClicked>>, blocks: Record<string, unknown>[]) =>
  JSON.parse(
    new URLSearchParams(
      blockActionsForm({
        clicked,
        user: 'U0PERSON',
        channel: 'C0GENERAL',
        ts: '2.000001',
        thread: '1.000001',
        text: 'an answer',
        blocks,
        // As the fake holds it: the JSON string the copy sent.
        metadata: JSON.stringify(partMetadata('Ev1', 0, true)),
        triggerId: 't1',
        responseUrl: 'http://127.0.0.1:1/hooks/1',
        now: 2000,
      }),
    ).get('payload')!,
  ) as Record<string, unknown>;

describe('findClicked', () => {
  it("finds a feedback button by its element's action_id and the button's value", () => {
    expect(findClicked(FEEDBACK, { actionId: 'fb', value: 'bad' })).toMatchObject({ type: 'feedback_buttons', value: 'bad', label: 'Bad' });
  });
  it("finds a question's choice button", () => {
    expect(findClicked(QUESTION, { actionId: `autohub_ask:${QID}:1`, value: `${QID}:1` })).toMatchObject({ type: 'button', label: 'Cancel' });
  });
  it('finds nothing the message does not show: another value, another action, an answered question', () => {
    expect(findClicked(FEEDBACK, { actionId: 'fb', value: 'meh' })).toBeUndefined();
    expect(findClicked(FEEDBACK, { actionId: 'other', value: 'good' })).toBeUndefined();
    expect(
      findClicked([{ type: 'section', text: { type: 'mrkdwn', text: 'Deploy?' } }], { actionId: `autohub_ask:${QID}:0`, value: `${QID}:0` }),
    ).toBeUndefined();
  });
});

describe('blockActionsForm', () => {
  it('a feedback click reads, as the copies read it, as positive or not, with the event its message answered', () => {
    const clicked = findClicked(FEEDBACK, { actionId: 'fb', value: 'good' })!;
    expect(feedbackOf(form(clicked, FEEDBACK))).toMatchObject({ value: 'good', positive: true, user: 'U0PERSON', channel: 'C0GENERAL', eventId: 'Ev1' });
  });
  it("a choice click names the question's action, as ctx.ask's listener parses it", () => {
    const clicked = findClicked(QUESTION, { actionId: `autohub_ask:${QID}:0`, value: `${QID}:0` })!;
    const action = (form(clicked, QUESTION).actions as Array<Record<string, unknown>>)[0]!;
    expect(parseAction(action.action_id)).toEqual({ qid: QID, index: 0 });
    expect(action).toMatchObject({ type: 'button', block_id: `autohub_ask:${QID}`, value: `${QID}:0`, text: { type: 'plain_text', text: 'Go ahead' } });
  });
});
