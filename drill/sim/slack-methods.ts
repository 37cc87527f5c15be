/**
 * Every Slack Web API method autohub calls, as Slack's own method pages
 * describe it: the arguments autohub sends (and Slack accepts), the limits,
 * the errors, the rate-limit tier, and the page each row was read from. The
 * fake Web API (fake-web-api.ts) answers from this table, and
 * test/sim/slack-methods.test.ts keeps the two in step.
 *
 * Read 2026-12-01 at docs.slack.dev (the method pages and their "Errors"
 * lists). Where a page is silent, the row says so in `silent`, and what the
 * fake does there is our reading, named as such.
 */

/** One argument autohub sends. */
export interface ArgSpec {
  /** Slack refuses the call without it. */
  required?: boolean;
  /** The error Slack answers when a required argument is missing (the page's own code for it). @default 'invalid_arguments' */
  missing?: string;
  /** Sent empty, it is still given (setStatus's `status: ''` clears the status). */
  mayBeEmpty?: boolean;
}

/** A text limit: past `max` characters Slack answers `error`, or, with `truncate`, cuts the text and accepts the call. */
export interface TextLimit {
  arg: string;
  max: number;
  error?: string;
  truncate?: boolean;
  /** Where the page states it. */
  source: string;
}

/** Cursor paging of a list method. */
export interface Paging {
  defaultLimit: number;
  maxLimit: number;
}

export interface MethodRow {
  method: string;
  /** The Slack doc page this row follows. */
  doc: string;
  /** Where autohub calls it. */
  calledFrom: readonly string[];
  /** Slack's rate-limit tier, as the page labels it. */
  tier: 'Tier 1' | 'Tier 2' | 'Tier 3' | 'Tier 4' | 'Special';
  /** The arguments autohub sends; every one of them is one Slack's page lists. */
  args: Readonly<Record<string, ArgSpec>>;
  limits: readonly TextLimit[];
  paging?: Paging;
  /**
   * Errors the page lists that autohub can meet, each with when Slack gives
   * it. The fake gives every one of these (the test provokes each).
   */
  errors: Readonly<Record<string, string>>;
  /** Errors the page lists that the fake does not simulate (workspace settings, files, blocks autohub never sends). */
  notSimulated: readonly string[];
  /** What the page does not say, and what the fake does there. */
  silent: readonly string[];
}

const DOCS = 'https://docs.slack.dev/reference/methods/';
/** Slack's limit on `markdown_text`, the same on every method that takes it. */
export const MARKDOWN_TEXT_MAX = 12_000;
/** chat.update's `text` limit (its `msg_too_long`). */
export const UPDATE_TEXT_MAX = 4_000;
/** chat.postMessage truncates `text` past this. */
export const POST_TEXT_MAX = 40_000;
/** assistant.threads.setStatus: "A two minute timeout applies, which will cause the status to be removed if no message has been sent." */
export const STATUS_TIMEOUT_MS = 120_000;
/** assistant.threads.setStatus: "Maximum of 10 messages". */
export const LOADING_MESSAGES_MAX = 10;
/** assistant.threads.setSuggestedPrompts: "up to four suggested prompts". */
export const PROMPTS_MAX = 4;

const markdownLimit = (method: string): TextLimit => ({
  arg: 'markdown_text',
  max: MARKDOWN_TEXT_MAX,
  error: 'msg_too_long',
  source: `${DOCS}${method}: "Limit this field to 12,000 characters."`,
});

/**
 * What the stream methods' pages leave unsaid about `chunks` (chat.startStream, chat.appendStream,
 * chat.stopStream; the chunk objects are @slack/types' chunk.ts: markdown_text {text}, task_update
 * {id, title, status: pending|in_progress|complete|error, details?, output?, sources?}, plan_update {title}).
 */
const CHUNKS_SILENT = [
  'The pages list invalid_chunks without saying what makes chunks invalid: the fake refuses a `chunks` that is not a JSON array, or holds a chunk of another type, a task_update without an id, a title or one of its four statuses, a plan_update without a title, a blocks chunk whose `blocks` is empty or past 50 (@slack/types 3.2 BlocksChunk: "Maximum of 50 blocks").',
  "A task_update's `details`, `output` and `sources` are not said to replace or add to what the card shows; Slack's own SDK sends them as deltas (python-slack-sdk 3.40.0's example: a second `details` of \"\\n- Pretending this was obvious\"): the fake adds each update's to the card's.",
  'No page gives a limit on how many chunks a call holds, on a task title, details or output, or on how many tasks a message shows: the fake sets none; a markdown_text chunk counts toward the message text as `markdown_text` does.',
  'A task_update of an id already shown changes that task (its status, its details) in place: the fake keeps each task by id in its last state.',
];

/** invalid_blocks, as the fake gives it on chat.postMessage and chat.update. */
const BLOCKS_INVALID =
  '`blocks` not a JSON array, more than 50 blocks, markdown blocks past 12,000 characters together, or a markdown, task_card or plan block without its required fields (see `silent`)';

/**
 * Blocks autohub sends in a posted reply: https://docs.slack.dev/block-kit ("up to 50 blocks in each message"),
 * https://docs.slack.dev/reference/block-kit/blocks/markdown-block, .../task-card-block, .../plan-block.
 */
const BLOCKS_SILENT = [
  'The pages give "up to 50 blocks in each message" and a 12,000-character limit on the markdown blocks of one payload, but not the error past either: the fake answers invalid_blocks.',
  'task_card wants `task_id` and `title`, `status` one of pending, in_progress, complete, error (optional); plan wants a `title`, `tasks` a sequence of task cards: the fake refuses other shapes as invalid_blocks. No page limits how many tasks a plan holds, or a task title, details or output: the fake sets none.',
  "The fake keeps a message's tasks by task_id from its task_card and plan blocks (tasksOf); other block types pass as given.",
];

/** The stream methods' own refusals, shared by append and stop. */
const STREAM_ERRORS = {
  message_not_found: 'no message has this ts',
  message_not_in_streaming_state: 'the stream was stopped, or Slack closed it (about 5 minutes after it began)',
  message_not_owned_by_app: 'the message was posted by someone else: another app, or a person',
  streaming_mode_mismatch: 'the stream began with `markdown_text` and this call sends `chunks`, or the other way round',
  cannot_provide_both_markdown_text_and_chunks: 'both `markdown_text` and `chunks` in one call',
} as const;

const NOT_SIMULATED_POSTING = [
  'as_user_not_supported',
  'is_archived',
  'invalid_blocks',
  'invalid_metadata_format',
  'invalid_metadata_schema',
  'metadata_too_large',
  'message_limit_exceeded',
  'messages_tab_disabled',
  'not_in_channel',
  'rate_limited',
  'restricted_action',
  'restricted_action_read_only_channel',
  'restricted_action_thread_locked',
  'team_not_found',
] as const;

export const SLACK_METHODS: readonly MethodRow[] = [
  {
    method: 'auth.test',
    doc: `${DOCS}auth.test`,
    calledFrom: ['app/authorize.ts', 'lib/catchup/read-back.ts', 'lib/ratelimit/audit.ts (sweep, by fetch)'],
    tier: 'Special',
    args: {},
    limits: [],
    errors: {},
    notSimulated: [],
    silent: ['The page lists no method-specific errors and names no tier ("Special rate limits apply").'],
  },
  {
    method: 'chat.postEphemeral',
    doc: `${DOCS}chat.postEphemeral`,
    calledFrom: ['app/listeners/ask.ts (a click on a question: not yours to answer, or answered already)'],
    tier: 'Tier 4',
    args: {
      channel: { required: true, missing: 'channel_not_found' },
      // Required in @slack/web-api 8.2's ChatPostEphemeralArguments ("id of the user who will receive the ephemeral message").
      user: { required: true },
      text: {},
    },
    limits: [],
    errors: {},
    notSimulated: ['channel_not_found', 'user_not_in_channel', 'is_archived', 'msg_too_long', 'no_text'],
    silent: ['The fake answers every call ok; autohub only logs a refusal (`ask.tell_failed`).'],
  },
  {
    method: 'chat.postMessage',
    doc: `${DOCS}chat.postMessage`,
    calledFrom: ['lib/turn/writer.ts (the reply, posted)', 'lib/turn/handle.ts (the retrying and dead notes)', 'app/listeners/announce.ts (owner DM)'],
    // "Special": about one message a second per channel, bursts allowed (the page's "Rate limits" section).
    tier: 'Special',
    args: {
      channel: { required: true, missing: 'channel_not_found' },
      thread_ts: {},
      text: {},
      markdown_text: {},
      // A reply's tasks (task_card, plan) and its text (a markdown block) beside the bot's own blocks (lib/turn/task-blocks.ts).
      blocks: {},
      metadata: {},
    },
    limits: [
      {
        arg: 'text',
        max: POST_TEXT_MAX,
        truncate: true,
        source: `${DOCS}chat.postMessage ("Truncating content": Slack truncates messages of more than 40,000 characters; it advises 4,000) and https://api.slack.com/changelog/2018-04-truncating-really-long-messages`,
      },
      markdownLimit('chat.postMessage'),
    ],
    errors: {
      channel_not_found: '`channel` missing or not a conversation the bot can post in',
      no_text: 'none of `text`, `markdown_text`, `blocks` or `attachments`',
      markdown_text_conflict: '`markdown_text` sent together with `text` or `blocks`',
      msg_too_long: '`markdown_text` over 12,000 characters (see `silent`)',
      invalid_blocks: BLOCKS_INVALID,
    },
    notSimulated: [...NOT_SIMULATED_POSTING.filter((e) => e !== 'invalid_blocks'), 'cannot_reply_to_message', 'too_many_attachments'],
    silent: [
      ...BLOCKS_SILENT,
      'The errors list has no msg_too_long and the page does not say what a `markdown_text` past 12,000 characters gets: the fake answers msg_too_long, the code chat.update uses for its own limit.',
      'A `text` past 40,000 characters is truncated and the post accepted (no error); the fake keeps the first 40,000.',
    ],
  },
  {
    method: 'chat.startStream',
    doc: `${DOCS}chat.startStream`,
    calledFrom: ['lib/turn/writer.ts (the reply, streamed)'],
    tier: 'Tier 2',
    args: {
      channel: { required: true, missing: 'channel_not_found' },
      // Required in @slack/web-api 8.2's ChatStartStreamArguments (it extends ThreadTS), though the page marks it optional: see `silent`.
      thread_ts: { required: true },
      markdown_text: {},
      // "Array of streaming chunks": markdown_text, task_update and plan_update chunks (lib/turn/tasks.ts).
      chunks: {},
      // "Acceptable values: timeline plan", "Default: timeline".
      task_display_mode: {},
      recipient_user_id: {},
      recipient_team_id: {},
    },
    limits: [markdownLimit('chat.startStream')],
    errors: {
      invalid_chunks: '`chunks` is not an array of chunks Slack knows (see `silent`)',
      invalid_arguments: '`task_display_mode` other than timeline or plan (see `silent`)',
      channel_not_found: '`channel` missing or unknown',
      missing_recipient_user_id: 'outside a DM without `recipient_user_id` ("Required when streaming to channels")',
      missing_recipient_team_id: 'outside a DM without `recipient_team_id` ("Required when streaming to channels")',
      channel_type_not_supported: 'streaming is not offered in this kind of conversation (see `silent`)',
      no_text: '`markdown_text` sent empty (see `silent`)',
      msg_too_long: '`markdown_text` over 12,000 characters (see `silent`)',
    },
    notSimulated: [...NOT_SIMULATED_POSTING, 'user_not_found', 'restricted_action_non_threadable_channel'],
    silent: [
      'The page does not say which conversation types answer channel_type_not_supported: the fake refuses streams only in the channels a test names (`refuseStreamsIn`).',
      'The page lists no_text but does not say whether an empty `markdown_text` is "no text": the fake reads it so (a stream may start with no text argument at all).',
      'The errors list has no msg_too_long for a `markdown_text` past 12,000 characters: the fake answers msg_too_long.',
      ...CHUNKS_SILENT,
      'The page lists `task_display_mode` with its two values but no error for a third: the fake answers invalid_arguments.',
      '`thread_ts` is marked optional on the page, which says streamed messages "should always be replies to a user request"; @slack/web-api 8.2 types it required (ChatStartStreamArguments extends ThreadTS, test/sim/sdk-args.ts). The fake follows the SDK: a stream without it is invalid_arguments (the page names no error of its own for it); autohub posts a top-level answer instead (lib/turn/writer.ts).',
    ],
  },
  {
    method: 'chat.appendStream',
    doc: `${DOCS}chat.appendStream`,
    calledFrom: ['lib/turn/writer.ts (the reply, streamed)'],
    // Per app per workspace, not per stream.
    tier: 'Tier 4',
    args: {
      channel: { required: true, missing: 'channel_not_found' },
      ts: { required: true, missing: 'message_not_found' },
      markdown_text: { required: true, missing: 'markdown_text_or_chunks_required' },
      chunks: {},
    },
    limits: [markdownLimit('chat.appendStream')],
    errors: {
      ...STREAM_ERRORS,
      invalid_chunks: '`chunks` is not an array of chunks Slack knows (see `silent`)',
      stopped_by_user: 'the person pressed Stop: "no further appends are accepted"',
      markdown_text_or_chunks_required: 'neither `markdown_text` nor `chunks`',
      channel_not_found: '`channel` missing or unknown',
      msg_too_long: '`markdown_text` over 12,000 characters (see `silent`)',
    },
    notSimulated: [...NOT_SIMULATED_POSTING, 'channel_type_not_supported'],
    silent: [
      ...CHUNKS_SILENT,
      'The errors list has no msg_too_long for a `markdown_text` past 12,000 characters: the fake answers msg_too_long.',
      'channel_type_not_supported is listed, but a stream cannot have begun where streams are refused: the fake gives it at the start only.',
      'Nothing says whether the 12,000 characters are per call or per message: the fake limits each call only.',
    ],
  },
  {
    method: 'chat.stopStream',
    doc: `${DOCS}chat.stopStream`,
    calledFrom: ['lib/turn/writer.ts (the reply, streamed)'],
    tier: 'Tier 2',
    args: {
      channel: { required: true, missing: 'channel_not_found' },
      ts: { required: true, missing: 'message_not_found' },
      markdown_text: {},
      // "markdown text chunk objects, task update chunk objects, plan update chunks, or blocks chunks".
      chunks: {},
      // The feedback buttons under an answer (lib/turn/open-stream.ts); web-api's ChatStopStreamArguments: appended to the end of the message.
      blocks: {},
      metadata: {},
    },
    limits: [markdownLimit('chat.stopStream')],
    errors: {
      ...STREAM_ERRORS,
      invalid_chunks: '`chunks` is not an array of chunks Slack knows (see `silent`)',
      invalid_blocks: BLOCKS_INVALID,
      stopped_by_user: 'the person pressed Stop before the stop (see `silent`)',
      channel_not_found: '`channel` missing or unknown',
      msg_too_long: '`markdown_text` over 12,000 characters (see `silent`)',
    },
    notSimulated: [...NOT_SIMULATED_POSTING.filter((e) => e !== 'invalid_blocks'), 'cannot_reply_to_message', 'channel_type_not_supported'],
    silent: [
      ...CHUNKS_SILENT,
      '`blocks` is not on the page\'s arguments list; web-api 8.2 types it (ChatStopStreamArguments: "Block formatted elements will be appended to the end of the message"): the fake takes it as chat.postMessage\'s, at most 50 (invalid_blocks past it, see BLOCKS_SILENT), and shows it after the streamed text.',
      "The page's errors list has no stopped_by_user (chat.appendStream's has): what a stop gets after the person pressed Stop is not documented. The fake answers stopped_by_user, as an append then gets.",
      'The errors list has no msg_too_long for a `markdown_text` past 12,000 characters: the fake answers msg_too_long.',
      'Metadata is accepted here (and on chat.update), not on chat.startStream or chat.appendStream, which list no `metadata` argument.',
    ],
  },
  {
    method: 'chat.update',
    doc: `${DOCS}chat.update`,
    calledFrom: ['lib/turn/writer.ts (completing an expired or taken-over stream; its tasks after a Stop press, or after Slack closed it)'],
    tier: 'Tier 3',
    args: {
      channel: { required: true, missing: 'channel_not_found' },
      ts: { required: true, missing: 'message_not_found' },
      text: {},
      markdown_text: {},
      // "If the text argument is provided and blocks are not provided, the blocks will be removed": a reply's tasks go as blocks.
      blocks: {},
      metadata: {},
    },
    limits: [
      {
        arg: 'text',
        max: UPDATE_TEXT_MAX,
        error: 'msg_too_long',
        source: `${DOCS}chat.update: "msg_too_long: Message text is too long. The text field cannot exceed 4,000 characters."`,
      },
      markdownLimit('chat.update'),
    ],
    errors: {
      msg_too_long: '`text` over 4,000 characters, or `markdown_text` over 12,000 (see `silent`)',
      streaming_state_conflict: 'the message is still streaming: "currently streaming text and cannot be edited"',
      cant_update_message: "the message is not this app's (another app's, or a person's)",
      message_not_found: 'no message has this ts',
      markdown_text_conflict: '`markdown_text` together with `text` or `blocks`',
      no_text: 'none of `text`, `markdown_text`, `blocks` or `attachments`',
      channel_not_found: '`channel` missing or unknown',
      invalid_blocks: BLOCKS_INVALID,
    },
    notSimulated: ['as_user_not_supported', 'edit_window_closed', 'is_inactive', 'invalid_metadata_format', 'metadata_too_large', 'update_failed'],
    silent: [
      "chat.update's errors list has no message_not_owned_by_app: updating another app's message is cant_update_message there, and the fake answers that.",
      'The errors list names msg_too_long only for `text`; a `markdown_text` past 12,000 characters gets msg_too_long from the fake too.',
      'Sending `text` to a streamed message replaces its markdown with mrkdwn text (platform-facts); the fake keeps the text as sent.',
      'The `blocks` argument: "If the text argument is provided and blocks are not provided, the blocks will be removed"; the page does not say so of `markdown_text`: the fake removes them too (a stream\'s tasks with them), as a markdown_text is shown as a markdown block.',
      ...BLOCKS_SILENT,
    ],
  },
  // Slack's AI-app methods: the thinking status, an assistant thread's prompts and title.
  {
    method: 'assistant.threads.setStatus',
    doc: `${DOCS}assistant.threads.setStatus`,
    calledFrom: ['lib/turn/status.ts (the thinking status while a turn runs, in DMs, channels and threads)'],
    tier: 'Special',
    args: {
      channel_id: { required: true, missing: 'channel_not_found' },
      thread_ts: { required: true, missing: 'invalid_thread_ts' },
      status: { required: true, mayBeEmpty: true },
      loading_messages: {},
    },
    limits: [],
    errors: {
      channel_not_found: '`channel_id` missing or invalid',
      invalid_thread_ts: '`thread_ts` missing or invalid',
    },
    notSimulated: ['method_not_supported_for_channel_type', 'reserved_username'],
    silent: [
      'The status clears itself "after a two minute timeout ... if no message has been sent" (the page): the fake keeps each status STATUS_TIMEOUT_MS, and a message this app posts in the thread clears it.',
      '`status: ""` clears the status (Bolt\'s setStatus helpers and Slack\'s AI-app guide); the page marks it required and says nothing of empty: the fake takes empty as "clear".',
      '`loading_messages`: "Maximum of 10 messages", with no error code for more: the fake answers invalid_arguments past 10.',
    ],
  },
  {
    method: 'assistant.threads.setSuggestedPrompts',
    doc: `${DOCS}assistant.threads.setSuggestedPrompts`,
    calledFrom: [
      "app/listeners/assistant.ts (app_home_opened, tab messages: the bot's `prompts`, once an opening, no thread_ts; assistant_thread_started: once a thread)",
    ],
    tier: 'Tier 4',
    args: {
      channel_id: { required: true, missing: 'channel_not_found' },
      thread_ts: {},
      prompts: { required: true },
      title: {},
    },
    limits: [],
    errors: { channel_not_found: '`channel_id` missing or invalid' },
    notSimulated: ['invalid_thread_ts', 'message_not_found'],
    silent: [
      '"Use this method to set up to four suggested prompts", with no error code for more: the fake answers invalid_arguments past 4, and for a prompt without a `title` or a `message`.',
      '`thread_ts`: "should only be used in the legacy assistant messaging experience. Including it in a call for an agent app will cause the call to silently fail"; without it "the prompts will be set for the latest message in the channel". web-api 8.2 types it as required. The fake keeps the prompts by thread, or by the channel alone (promptsOf(channel, \'\')) without one; it cannot tell an agent app from an assistant one, so it does not fail the call with one.',
    ],
  },
  {
    method: 'assistant.threads.setTitle',
    doc: `${DOCS}assistant.threads.setTitle`,
    calledFrom: ["lib/turn/ai-turn.ts (an assistant thread's title after its first answer)"],
    tier: 'Tier 4',
    args: {
      channel_id: { required: true, missing: 'channel_not_found' },
      thread_ts: { required: true, missing: 'invalid_thread_ts' },
      title: { required: true },
    },
    limits: [],
    errors: {
      channel_not_found: '`channel_id` missing or invalid',
      invalid_thread_ts: '`thread_ts` missing or invalid',
    },
    notSimulated: ['access_denied', 'accesslimited'],
    silent: ['The page gives no length limit for `title`: the fake takes any, and keeps the last one per thread.'],
  },
  {
    method: 'conversations.replies',
    doc: `${DOCS}conversations.replies`,
    calledFrom: ['lib/turn/thread.ts (checkThread: the thread check before a retry or a takeover)', 'lib/turn/history.ts (ctx.history())'],
    // Tier 3 for internal and Marketplace apps; 1 a minute (and `limit` at most 15) for other commercially distributed apps since 2025.
    tier: 'Tier 3',
    args: {
      channel: { required: true, missing: 'channel_not_found' },
      ts: { required: true, missing: 'thread_not_found' },
      include_all_metadata: {},
      limit: {},
      cursor: {},
    },
    limits: [],
    paging: { defaultLimit: 1000, maxLimit: 1000 },
    errors: {
      channel_not_found: '`channel` missing or unknown',
      thread_not_found: '`ts` missing or not a message in the channel',
      invalid_cursor: '`cursor` not one this method gave',
    },
    notSimulated: ['invalid_ts_latest', 'invalid_ts_oldest', 'method_not_supported_for_channel_type'],
    silent: [
      'The page gives `limit` a default of 1,000 and no maximum for internal apps: the fake caps a page at 1,000 and pages with `next_cursor` however long the thread.',
      'The parent message comes first on the first page (the page: "If no replies, just the single message referenced by ts will return").',
      'The fake knows a parent only if it was told of it (`addMessage`); a thread whose parent it does not know is served from its replies alone, not refused.',
    ],
  },
  {
    method: 'conversations.history',
    doc: `${DOCS}conversations.history`,
    calledFrom: ['lib/catchup/sweeper.ts (the catch-up sweep)', "lib/turn/thread.ts (a taker-over's check of a schedule's top-level answer)"],
    tier: 'Tier 3',
    args: {
      channel: { required: true, missing: 'channel_not_found' },
      oldest: {},
      latest: {},
      inclusive: {},
      limit: {},
      cursor: {},
      include_all_metadata: {},
    },
    limits: [],
    paging: { defaultLimit: 100, maxLimit: 999 },
    errors: {
      channel_not_found: '`channel` missing or unknown',
      invalid_cursor: '`cursor` not one this method gave',
    },
    notSimulated: ['channel_is_limited_access', 'invalid_ts_latest', 'invalid_ts_oldest', 'not_in_channel'],
    silent: [
      'A parent with replies carries `thread_ts`, `reply_count`, `reply_users`, `reply_users_count` and `latest_reply` (the message object reference); the page does not list them itself.',
      'Thread replies are not listed (only parents, and replies also sent to the channel).',
    ],
  },
  {
    method: 'users.conversations',
    doc: `${DOCS}users.conversations`,
    calledFrom: ['lib/catchup/sweeper.ts (the catch-up sweep)', "lib/turn/thread.ts (the bot's DM with a DM schedule's person)"],
    tier: 'Tier 3',
    args: { types: {}, exclude_archived: {}, limit: {}, cursor: {} },
    limits: [],
    paging: { defaultLimit: 100, maxLimit: 999 },
    errors: { invalid_cursor: '`cursor` not one this method gave' },
    notSimulated: ['invalid_limit', 'invalid_types', 'method_not_supported_for_channel_type', 'missing_argument'],
    silent: ['A `limit` past 999 is invalid_limit on Slack; the fake caps it at 999 (autohub sends 200).'],
  },
  {
    method: 'views.publish',
    doc: `${DOCS}views.publish`,
    calledFrom: ['app/listeners/home.ts (the App Home tab)'],
    tier: 'Tier 4',
    args: { user_id: { required: true }, view: { required: true } },
    limits: [],
    errors: {},
    notSimulated: ['hash_conflict', 'not_enabled', 'view_too_large', 'duplicate_external_id'],
    silent: ['The page lists no code for a missing `user_id` or `view`: the fake answers invalid_arguments.'],
  },
  {
    method: 'conversations.list',
    doc: `${DOCS}conversations.list`,
    calledFrom: ['lib/ratelimit/audit.ts (the read-only sweep, by fetch, limit 1)'],
    tier: 'Tier 2',
    args: { limit: {}, exclude_archived: {} },
    limits: [],
    paging: { defaultLimit: 100, maxLimit: 1000 },
    errors: {},
    notSimulated: ['invalid_cursor', 'invalid_limit', 'invalid_types'],
    silent: ['The fake holds no channel list here: it answers an empty page.'],
  },
  {
    method: 'users.list',
    doc: `${DOCS}users.list`,
    calledFrom: ['lib/ratelimit/audit.ts (the read-only sweep, by fetch, limit 1)'],
    tier: 'Tier 2',
    args: { limit: {} },
    limits: [],
    paging: { defaultLimit: 0, maxLimit: 1000 },
    errors: {},
    notSimulated: ['invalid_cursor', 'limit_required'],
    silent: ['The fake holds no members: it answers an empty page.'],
  },
];

const BY_METHOD = new Map(SLACK_METHODS.map((row) => [row.method, row]));

export function methodRow(method: string): MethodRow | undefined {
  return BY_METHOD.get(method);
}

/**
 * What Slack answers a call before doing anything: a missing required
 * argument, or a text over its limit. Undefined when the call may go on;
 * `truncate` names the arguments Slack cuts (and how far). Pure.
 */
export function refusal(method: string, params: Readonly<Record<string, string>>): { error: string } | { truncate: Record<string, number> } | undefined {
  const row = BY_METHOD.get(method);
  if (!row) return undefined;
  for (const [arg, spec] of Object.entries(row.args)) {
    if (spec.required && (params[arg] === undefined || (params[arg] === '' && !spec.mayBeEmpty))) {
      // chat.appendStream: `chunks` stands in for `markdown_text` (its page's markdown_text_or_chunks_required).
      if (arg === 'markdown_text' && params.chunks !== undefined) continue;
      return { error: spec.missing ?? 'invalid_arguments' };
    }
  }
  const truncate: Record<string, number> = {};
  for (const limit of row.limits) {
    const value = params[limit.arg];
    if (value === undefined || [...value].length <= limit.max) continue;
    if (limit.truncate) truncate[limit.arg] = limit.max;
    else return { error: limit.error ?? 'msg_too_long' };
  }
  return Object.keys(truncate).length ? { truncate } : undefined;
}

/** Arguments a call carries that its row does not list (Slack ignores unknown arguments; the fake records them). */
export function unknownArgs(method: string, params: Readonly<Record<string, string>>): string[] {
  const row = BY_METHOD.get(method);
  if (!row) return [];
  // `token` travels in the Authorization header from the WebClient, but a form post may carry it.
  return Object.keys(params).filter((k) => k !== 'token' && !(k in row.args));
}
