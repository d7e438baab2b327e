import { fromWeights } from './dist/distribution/discrete.js';
import { mixtureOf } from './dist/divergence/mixture.js';
import { laplaceGapRule } from './dist/mechanisms/laplace/gapRule.js';
import { laplaceSweeps } from './dist/mechanisms/laplace/kernel.js';
function lcg(seed){let s=seed>>>0;return()=>{s=(Math.imul(s,1664525)+1013904223)>>>0;return s/2**32;};}
function randomDist(k,seed){const r=lcg(seed);return {values:Array.from({length:k},(_, i)=>i+r()*0.5),weights:Array.from({length:k},()=>Number((0.001+r()).toFixed(6)))};}
const N=100000;
const big=(seed)=>{const d=randomDist(N,seed);return mixtureOf(fromWeights(d.values,d.weights));};
const P=big(3),Q=big(4);
for (let k=0;k<5;k++){ let t=performance.now(); laplaceSweeps(P,87+k); laplaceSweeps(Q,87+k); const ts=performance.now()-t; t=performance.now(); laplaceGapRule(P,Q,2,87+k+0.5,1e-10,true); console.log('sweeps',ts.toFixed(1),'gaprule',(performance.now()-t).toFixed(1)); }
console.log(typeof P.x, P.x.constructor.name, P.logw.constructor.name);
