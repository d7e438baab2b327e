import { fromWeights } from './dist/distribution/discrete.js';
import { mixtureOf } from './dist/divergence/mixture.js';
import { laplaceGapRule } from './dist/mechanisms/laplace/gapRule.js';
function lcg(seed){let s=seed>>>0;return()=>{s=(Math.imul(s,1664525)+1013904223)>>>0;return s/2**32;};}
function randomDist(k,seed){const r=lcg(seed);return {values:Array.from({length:k},(_, i)=>i+r()*0.5),weights:Array.from({length:k},()=>Number((0.001+r()).toFixed(6)))};}
const N=100000;
const big=(seed)=>{const d=randomDist(N,seed);return mixtureOf(fromWeights(d.values,d.weights));};
const P=big(3),Q=big(4);
const b0=+process.argv[2]||87;
let tot=0;
for (let k=0;k<12;k++){ const t=performance.now(); laplaceGapRule(P,Q,2,b0*(1+k*1e-3),1e-10,true); const d=performance.now()-t; if(k>=2) tot+=d; }
console.log('avg', (tot/10).toFixed(1));
