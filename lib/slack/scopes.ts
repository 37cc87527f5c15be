/**
 * The bot scopes each Web API method and event subscription needs, for the
 * manifest's test: the manifest asks for these and nothing else.
 * A method needing one of several scopes (by conversation type) lists all.
 */
export const METHOD_SCOPES: Readonly<Record<string, readonly string[]>> = {
  'auth.test': [],
  'chat.postMessage': ['chat:write'],
  // A streamed reply, and completing one whose copy died or whose stream Slack closed.
  'chat.startStream': ['chat:write'],
  'chat.appendStream': ['chat:write'],
  'chat.stopStream': ['chat:write'],
  'chat.update': ['chat:write'],
  // ctx.ask: "not yours to answer" and "already answered", to the person who clicked (https://docs.slack.dev/reference/methods/chat.postEphemeral).
  'chat.postEphemeral': ['chat:write'],
  // The thinking status under a thread while the turn runs, in DMs, channels and threads. Slack's changelog (2026-03-05): it accepts
  // chat:write; assistant:write is being phased out and needs the assistant view declared in the manifest.
  'assistant.threads.setStatus': ['chat:write'],
  // A DM's (agent view) or an assistant thread's (assistant view) suggested prompts, and the thread's title: their
  // pages name assistant:write only (https://docs.slack.dev/reference/methods/assistant.threads.setSuggestedPrompts,
  // ...setTitle), which needs the manifest's agent_view or assistant_view.
  'assistant.threads.setSuggestedPrompts': ['assistant:write'],
  'assistant.threads.setTitle': ['assistant:write'],
  // The taker-over's thread check, in whatever kind of conversation the mention came from.
  'conversations.replies': ['channels:history', 'groups:history', 'im:history', 'mpim:history'],
  'views.publish': [],
  // The catch-up sweep: the bot's conversations, and their history since the outage began.
  'users.conversations': ['channels:read', 'groups:read', 'im:read', 'mpim:read'],
  'conversations.history': ['channels:history', 'groups:history', 'im:history', 'mpim:history'],
};

export const EVENT_SCOPES: Readonly<Record<string, readonly string[]>> = {
  app_mention: ['app_mentions:read'],
  'message.im': ['im:history'],
  // The App Home tab, and (tab "messages") a DM with the app opened, in the Agent messaging experience.
  app_home_opened: [],
  // No scope listed (https://docs.slack.dev/reference/events/app_context_changed): "The agent_view feature must be enabled in order to receive this event."
  app_context_changed: [],
  // "No scopes required!" (https://docs.slack.dev/reference/events/assistant_thread_started, .../assistant_thread_context_changed);
  // Slack sends them to apps with the assistant view (an app that has one keeps them; manifest.json now declares agent_view).
  assistant_thread_started: [],
  assistant_thread_context_changed: [],
};

/** Slash commands need this one. */
export const COMMAND_SCOPE = 'commands';
