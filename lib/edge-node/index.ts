export { serveFetchHandler } from './serve.js';
export type { ServeOptions } from './serve.js';
