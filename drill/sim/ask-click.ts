/** A signed block_actions click on a question's button (https://docs.slack.dev/reference/interaction-payloads/block_actions-payload). */
export function clickForm(o: {
  triggerId: string;
  user: string;
  channel: string;
  messageTs: string;
  threadTs: string;
  actionId: string;
  value: string;
}): string {
  const payload = {
    type: 'block_actions',
    user: { id: o.user, team_id: 'T0AUTOHUB' },
    api_app_id: 'A0AUTOHUB',
    team: { id: 'T0AUTOHUB', domain: 'autohub' },
    container: { type: 'message', message_ts: o.messageTs, channel_id: o.channel, is_ephemeral: false, thread_ts: o.threadTs },
    trigger_id: o.triggerId,
    channel: { id: o.channel, name: 'general' },
    message: { type: 'message', ts: o.messageTs, thread_ts: o.threadTs, user: 'UAUTOHUB', bot_id: 'BAUTOHUB', text: 'a question' },
    response_url: 'https://hooks.slack.invalid/actions/1',
    actions: [{ type: 'button', action_id: o.actionId, block_id: o.actionId.split(':').slice(0, 2).join(':'), value: o.value, action_ts: '1.000200' }],
  };
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}
