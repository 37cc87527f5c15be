import { benchCost } from './cost.js';
await benchCost({ idleSeconds: 20, mentions: 30 });
