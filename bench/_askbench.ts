import { askCost } from '/work/h-wait/bench/ask-cost.js';
import { scheduleCost } from '/work/h-wait/bench/schedule-cost.js';
console.log(JSON.stringify(await askCost()));
if (process.argv[2] === 'sched') console.log(JSON.stringify(await scheduleCost()));
