import { calibrate } from './dist/calibrate/calibrate.js';
import { BUILTIN_IDS, builtinScenario } from './dist/scenarios/builtin.js';
const alphas = Array.from({ length: 40 }, (_, i) => Number((1.1 + 0.1 * i).toFixed(1)));
for (const method of ['exact','theorem','exact']) {
 const t=performance.now(); const per={};
 for (const id of BUILTIN_IDS) { const s = builtinScenario(id); const t0=performance.now();
  for (const alpha of alphas) for (const epsilon of [0.5, 1]) for (const mechanism of ['laplace', 'gaussian']) calibrate(s, { mechanism, method, alpha, epsilon });
  per[id]=(performance.now()-t0).toFixed(0);}
 console.log(method,(performance.now()-t).toFixed(0), JSON.stringify(per));
}
