export { serveFetchHandler } from './serve.js';
