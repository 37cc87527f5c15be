export { httpUrl, readEnum, readInt, readRaw, readRequired, readUrl } from './read.js';
export type { Env } from './read.js';
