import { calibrate } from './dist/calibrate/calibrate.js';
import { fromWeights } from './dist/distribution/discrete.js';
import * as ex from './dist/divergence/exactRenyi.js';
function lcg(seed){let s=seed>>>0;return()=>{s=(Math.imul(s,1664525)+1013904223)>>>0;return s/2**32;};}
function randomDist(k,seed){const r=lcg(seed);return {values:Array.from({length:k},(_, i)=>i+r()*0.5),weights:Array.from({length:k},()=>Number((0.001+r()).toFixed(6)))};}
const N=+process.argv[2]||100000;
const big=(seed)=>{const d=randomDist(N,seed);return fromWeights(d.values,d.weights);};
const s={name:'big',priors:[{name:'p',conditionals:{a:big(3),b:big(4)}}]};
let t=performance.now();
const th=calibrate(s,{mechanism:'laplace',method:'theorem',alpha:2,epsilon:1});
console.log('theorem',performance.now()-t, JSON.stringify(th).slice(0,300));
for (const m of ['coupled']) { t=performance.now(); const r=calibrate(s,{mechanism:'laplace',method:m,alpha:2,epsilon:1}); console.log(m,performance.now()-t);}
t=performance.now();
const [p,q]=[s.priors[0].conditionals.a,s.priors[0].conditionals.b];
const e=ex.exactRenyiBoth(p,q,{family:'laplace',scale:1},2,{rtol:1e-10});
console.log('one both eval',performance.now()-t,e[0].nodes,e[0].value,e[0].error,e[1].value);
