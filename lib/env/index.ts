export { httpUrl, readEnum, readInt, readRaw, readRequired, readUrl, shownUrl } from './read.js';
export type { Env } from './read.js';
