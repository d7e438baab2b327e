import { fromWeights } from './dist/distribution/discrete.js';
import * as ex from './dist/divergence/exactRenyi.js';
import { calibrate } from './dist/calibrate/calibrate.js';
import * as gr from './dist/mechanisms/laplace/gapRule.js';
import { laplaceKernel } from './dist/mechanisms/laplace/kernel.js';
function lcg(seed){let s=seed>>>0;return()=>{s=(Math.imul(s,1664525)+1013904223)>>>0;return s/2**32;};}
function randomDist(k,seed){const r=lcg(seed);return {values:Array.from({length:k},(_, i)=>i+r()*0.5),weights:Array.from({length:k},()=>Number((0.001+r()).toFixed(6)))};}
const N=+process.argv[2]||100000;
const big=(seed)=>{const d=randomDist(N,seed);return fromWeights(d.values,d.weights);};
const p=big(3),q=big(4);
const orig=laplaceKernel.renyiOnePass;
laplaceKernel.renyiOnePass=(P,Q,a,s,rt,both)=>{const t=performance.now();const r=orig(P,Q,a,s,rt,both);console.log('eval',s.toPrecision(8),(performance.now()-t).toFixed(0),r&&r[0].nodes, r&&r[0].value);return r;};
const s={name:'big',priors:[{name:'p',conditionals:{a:p,b:q}}]};
for (const m of ['exact']) { const t=performance.now(); const r=calibrate(s,{mechanism:'laplace',method:m,alpha:2,epsilon:1}); console.log(m,(performance.now()-t).toFixed(0), r.scale);}
