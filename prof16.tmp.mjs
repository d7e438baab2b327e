import { fromWeights } from './dist/distribution/discrete.js';
import { exactRenyi, exactRenyiBoth } from './dist/divergence/exactRenyi.js';
import { gaussianKernel } from './dist/mechanisms/gaussian/kernel.js';
import { builtinScenario } from './dist/scenarios/builtin.js';
function lcg(seed){let s=seed>>>0;return()=>{s=(Math.imul(s,1664525)+1013904223)>>>0;return s/2**32;};}
function randomDist(k,seed){const r=lcg(seed);return {values:Array.from({length:k},(_, i)=>i+r()*0.5),weights:Array.from({length:k},()=>Number((0.001+r()).toFixed(6)))};}
const orig=gaussianKernel.panelErrors; let log=[];
gaussianKernel.panelErrors=(fs,s,a,b,pl,en)=>{const r=orig(fs,s,a,b,pl,en); const w=a.map((x,i)=>(b[i]-x)/s); log.push(`${a.length}p w[${Math.min(...w).toFixed(2)},${Math.max(...w).toFixed(2)}]`); return r;};
const K=10000;
const p=fromWeights(...Object.values(randomDist(K,1))), q=fromWeights(...Object.values(randomDist(K,2)));
let t=performance.now(); let e=exactRenyi(p,q,{family:'gaussian',scale:1},2);
console.log('K=1e4', (performance.now()-t).toFixed(0), e.nodes, e.error, log.join(' | ')); log=[];
const s=builtinScenario('heart'); const [hp,hq]=Object.values(s.priors[0].conditionals);
t=performance.now(); const e2=exactRenyiBoth(hp,hq,{family:'gaussian',scale:1.2532},3,{rtol:1e-10});
console.log('heart', (performance.now()-t).toFixed(1), e2[0].nodes, e2[0].error, log.join(' | '));
