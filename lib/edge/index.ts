export { createEdgeRouter } from './router.js';
export type { EdgeContext, EdgeRouter, EdgeRouterOptions, Route } from './router.js';
export { parseEdgeSettings } from './settings.js';
export type { EdgeSettings } from './settings.js';
export { cloudAnswered, firstStep, hubAnswered, hubFailure, legTimeout, probeSaysUp, refusalStatus } from './decide.js';
export type { FirstStep, LegResult } from './decide.js';
export { CopyView } from './copy-view.js';
