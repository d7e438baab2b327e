import { exactRenyiBoth } from './dist/divergence/exactRenyi.js';
import { builtinScenario } from './dist/scenarios/builtin.js';
const s=builtinScenario('heart'); const [hp,hq]=Object.values(s.priors[0].conditionals);
let t=performance.now();
for(let k=0;k<300;k++) exactRenyiBoth(hp,hq,{family:'gaussian',scale:1.2532*(1+k*1e-5)},3,{rtol:1e-10});
console.log('avg', ((performance.now()-t)/300).toFixed(2));
