/** One turn at a time per conversation, across the copies. */
export { conversationOf } from './key.js';
export { CONCURRENCY_MODES, parseConcurrency } from './concurrency.js';
export type { Concurrency } from './concurrency.js';
export { ConversationGate } from './gate.js';
export type { Admission, ConversationGateOptions } from './gate.js';
export { conversationAdmit } from './admit.js';
