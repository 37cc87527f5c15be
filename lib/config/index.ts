export { parseAppConfig, parseStoreConfig, secretsOf, DEFAULT_REFUSAL_LOG } from './app-config.js';
export type { AppConfig, Role, UpstashSettings } from './app-config.js';
export { loadEnv } from './load-env.js';
export { httpUrl, readEnum, readInt, readRaw, readRequired, readUrl } from '../env/index.js';
export type { Env } from '../env/index.js';
