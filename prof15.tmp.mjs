import { calibrate } from './dist/calibrate/calibrate.js';
import { builtinScenario } from './dist/scenarios/builtin.js';
const alphas = Array.from({ length: 40 }, (_, i) => Number((1.1 + 0.1 * i).toFixed(1)));
const s = builtinScenario('heart');
const t0=performance.now();
for (const alpha of alphas) for (const epsilon of [0.5, 1]) calibrate(s, { mechanism:'gaussian', method:'exact', alpha, epsilon });
console.log((performance.now()-t0).toFixed(0));
