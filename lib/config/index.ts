export { parseAppConfig, parseStoreConfig, secretsOf, DEFAULT_REFUSAL_LOG } from './app-config.js';
export type { AppConfig } from './app-config.js';
/** A copy's role and the store's settings belong to the store; named here too, as the config yields them. */
export type { Role, UpstashSettings } from '../store/index.js';
export { exportEnvFile, loadEnv } from './load-env.js';
export { httpUrl, readEnum, readInt, readRaw, readRequired, readUrl } from '../env/index.js';
export type { Env } from '../env/index.js';
