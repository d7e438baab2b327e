import { calibrate } from './dist/calibrate/calibrate.js';
import { BUILTIN_IDS, builtinScenario } from './dist/scenarios/builtin.js';
const alphas = Array.from({ length: 40 }, (_, i) => Number((1.1 + 0.1 * i).toFixed(1)));
for (const id of BUILTIN_IDS) { const s = builtinScenario(id);
 const pr = s.priors[0]; const cs=Object.values(pr.conditionals); 
 for (const mechanism of ['laplace', 'gaussian']) { const t0=performance.now();
  for (const alpha of alphas) for (const epsilon of [0.5, 1]) calibrate(s, { mechanism, method:'exact', alpha, epsilon });
  console.log(id, mechanism, (performance.now()-t0).toFixed(0), s.priors.length, cs.length, cs.map(c=>c.values.length).join(','));}
}
