import { fromWeights } from './dist/distribution/discrete.js';
import * as ex from './dist/divergence/exactRenyi.js';
import { calibrate } from './dist/calibrate/calibrate.js';
function lcg(seed){let s=seed>>>0;return()=>{s=(Math.imul(s,1664525)+1013904223)>>>0;return s/2**32;};}
function randomDist(k,seed){const r=lcg(seed);return {values:Array.from({length:k},(_, i)=>i+r()*0.5),weights:Array.from({length:k},()=>Number((0.001+r()).toFixed(6)))};}
const N=+process.argv[2]||100000;
const big=(seed)=>{const d=randomDist(N,seed);return fromWeights(d.values,d.weights);};
const p=big(3),q=big(4);
for (const sc of [232, 10, 1, 0.1]) for (const a of [2, 0.5, 8]) {
let t=performance.now();
const e=ex.exactRenyiBoth(p,q,{family:'laplace',scale:sc},a,{rtol:1e-10});
const t1=performance.now()-t;
console.log(sc,a,'one both eval',t1.toFixed(0),e[0].nodes,e[0].value,e[0].error,e[1].value);
}
const s={name:'big',priors:[{name:'p',conditionals:{a:p,b:q}}]};
for (const m of ['theorem','coupled','exact']) { const t=performance.now(); const r=calibrate(s,{mechanism:'laplace',method:m,alpha:2,epsilon:1}); console.log(m,(performance.now()-t).toFixed(0), r.scale);}
