import { fromWeights } from './dist/distribution/discrete.js';
import { mixtureOf } from './dist/divergence/mixture.js';
import { laplaceGapRule } from './dist/mechanisms/laplace/gapRule.js';
function lcg(seed){let s=seed>>>0;return()=>{s=(Math.imul(s,1664525)+1013904223)>>>0;return s/2**32;};}
function randomDist(k,seed){const r=lcg(seed);return {values:Array.from({length:k},(_, i)=>i+r()*0.5),weights:Array.from({length:k},()=>Number((0.001+r()).toFixed(6)))};}
const N=100000;
const big=(seed)=>{const d=randomDist(N,seed);return mixtureOf(fromWeights(d.values,d.weights));};
const P=big(3),Q=big(4);
for (const rt of [1e-10,1e-10,1e-8,1e-6,1e-4]) for (const b of [0.257, 4, 87]) {
 let t=performance.now(); const r=laplaceGapRule(P,Q,2,b,rt,true); console.log(rt,b,(performance.now()-t).toFixed(0),r[0].nodes,r[0].value,r[0].error);
}
