import { fromWeights } from './dist/distribution/discrete.js';
import { comonotoneCoupling } from './dist/coupling/comonotone.js';
import { calibrate } from './dist/calibrate/calibrate.js';
function lcg(seed){let s=seed>>>0;return()=>{s=(Math.imul(s,1664525)+1013904223)>>>0;return s/2**32;};}
function randomDist(k,seed){const r=lcg(seed);return {values:Array.from({length:k},(_, i)=>i+r()*0.5),weights:Array.from({length:k},()=>Number((0.001+r()).toFixed(6)))};}
const big=(seed)=>{const d=randomDist(100000,seed);return fromWeights(d.values,d.weights);};
const p=big(3),q=big(4);
for(let k=0;k<3;k++){const t=performance.now(); comonotoneCoupling(p,q); console.log('coupling',(performance.now()-t).toFixed(0));}
const mk=()=>({name:'big',priors:[{name:'p',conditionals:{a:p,b:q}}]});
for (const m of ['theorem','exact','theorem','exact']) { const t=performance.now(); calibrate(mk(),{mechanism:'laplace',method:m,alpha:2,epsilon:1}); console.log(m,(performance.now()-t).toFixed(0)); }
