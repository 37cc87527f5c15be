/**
 * What `@slack/web-api` (node_modules, as installed) says each method the fake answers takes, checked by
 * `tsc` (npm run typecheck), not copied: every name below must be a property of the method's request type
 * in the SDK's .d.ts files (a union's members together), every method must be one the SDK's WebClient has,
 * and `required` must name exactly the arguments the SDK requires in every one of its request shapes. So a
 * name mistyped here, a method the SDK does not know, or an argument the SDK requires that this list leaves
 * out (or one it does not require, listed), fails the typecheck. test/sim/sdk-types.test.ts then holds the fake's table (drill/sim/slack-methods.ts)
 * to this list: an argument the fake accepts that is not here fails there.
 */
import type { types as SlackTypes } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { mentionEvent } from '../../drill/sim/slack-events.js';

/** The WebClient member at a dotted method name (`chat.postMessage`), or never when the SDK has none. */
type MethodAt<P extends string, T = WebClient> = P extends `${infer H}.${infer R}`
  ? H extends keyof T
    ? MethodAt<R, T[H]>
    : never
  : P extends keyof T
    ? T[P]
    : never;

/** The request type of a method: its first parameter, without `undefined` (optional for some). */
type ArgsOf<P extends string> = MethodAt<P> extends (...args: infer A) => unknown ? NonNullable<A[0]> : never;

/** Every property any request shape has (distributes over a union: `text` in one shape, `blocks` in another). */
type AnyKey<T> = T extends unknown ? keyof T & string : never;

/** The properties each request shape requires (not optional, not `token`, which the client adds). */
type RequiredIn<T> = T extends unknown ? { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T] & string : never;
/** The shapes of a union that require `K`. */
type ShapesRequiring<T, K> = T extends unknown ? (K extends RequiredIn<T> ? T : never) : never;
/** Required in every shape: what a call must always send (`token` the client adds). */
type AlwaysRequired<T> = Exclude<{ [K in RequiredIn<T>]: [Exclude<T, ShapesRequiring<T, K>>] extends [never] ? K : never }[RequiredIn<T>], 'token'>;

/** The args of `P` as the SDK types them: each name one the SDK has, `required` naming each it always requires. */
function sdkArgs<P extends string, K extends AnyKey<ArgsOf<P>>, R extends K & AlwaysRequired<ArgsOf<P>>>(
  method: P & ([MethodAt<P>] extends [never] ? { notInTheSdk: P } : unknown),
  args: readonly K[],
  required: readonly R[] & ([Exclude<AlwaysRequired<ArgsOf<P>>, R>] extends [never] ? unknown : { sdkRequires: Exclude<AlwaysRequired<ArgsOf<P>>, R> }),
): { method: string; args: readonly string[]; required: readonly string[] } {
  return { method, args, required };
}

/** Per method the fake answers: the arguments it accepts, as the SDK's request types allow them. */
export const SDK_ARGS = [
  sdkArgs('auth.test', [], []),
  sdkArgs('chat.postEphemeral', ['channel', 'user', 'text'], ['channel', 'user']),
  sdkArgs('chat.postMessage', ['channel', 'thread_ts', 'text', 'markdown_text', 'blocks', 'metadata'], ['channel']),
  sdkArgs(
    'chat.startStream',
    ['channel', 'thread_ts', 'markdown_text', 'chunks', 'task_display_mode', 'recipient_user_id', 'recipient_team_id'],
    ['channel', 'thread_ts'],
  ),
  sdkArgs('chat.appendStream', ['channel', 'ts', 'markdown_text', 'chunks'], ['channel', 'ts']),
  sdkArgs('chat.stopStream', ['channel', 'ts', 'markdown_text', 'chunks', 'blocks', 'metadata'], ['channel', 'ts']),
  sdkArgs('chat.update', ['channel', 'ts', 'text', 'markdown_text', 'blocks', 'metadata'], ['channel', 'ts']),
  sdkArgs('assistant.threads.setStatus', ['channel_id', 'thread_ts', 'status', 'loading_messages'], ['channel_id', 'thread_ts', 'status']),
  sdkArgs('assistant.threads.setSuggestedPrompts', ['channel_id', 'thread_ts', 'prompts', 'title'], ['channel_id', 'prompts']),
  sdkArgs('assistant.threads.setTitle', ['channel_id', 'thread_ts', 'title'], ['channel_id', 'thread_ts', 'title']),
  sdkArgs('conversations.replies', ['channel', 'ts', 'include_all_metadata', 'limit', 'cursor', 'oldest', 'latest', 'inclusive'], ['channel', 'ts']),
  sdkArgs('conversations.history', ['channel', 'oldest', 'latest', 'inclusive', 'limit', 'cursor', 'include_all_metadata'], ['channel']),
  sdkArgs('users.conversations', ['types', 'exclude_archived', 'limit', 'cursor'], []),
  sdkArgs('views.publish', ['user_id', 'view'], ['user_id', 'view']),
  sdkArgs('conversations.list', ['types', 'exclude_archived', 'limit', 'cursor'], []),
  sdkArgs('users.list', ['limit', 'cursor'], []),
];

/**
 * The fake's mention and message events (drill/sim/slack-events.ts) hold only fields @slack/types 3.2 (as Bolt re-exports it) gives an
 * AppMentionEvent or a GenericMessageEvent, but `app_id`, which a bot's message carries
 * (https://docs.slack.dev/reference/objects/message-object) and the types leave out: a field the SDK does
 * not know fails the typecheck here.
 */
type SlackEventKey = keyof SlackTypes.AppMentionEvent | keyof SlackTypes.GenericMessageEvent | 'app_id';
type UntypedEventKey = Exclude<keyof ReturnType<typeof mentionEvent>, SlackEventKey>;
export const EVENT_FIELDS_TYPED: [UntypedEventKey] extends [never] ? true : { notInSlackTypes: UntypedEventKey } = true;
