export { bearerMatches } from './bearer.js';
