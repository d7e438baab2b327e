import { fromWeights } from './dist/distribution/discrete.js';
import { calibrate } from './dist/calibrate/calibrate.js';
function lcg(seed){let s=seed>>>0;return()=>{s=(Math.imul(s,1664525)+1013904223)>>>0;return s/2**32;};}
function randomDist(k,seed){const r=lcg(seed);return {values:Array.from({length:k},(_, i)=>i+r()*0.5),weights:Array.from({length:k},()=>Number((0.001+r()).toFixed(6)))};}
const N=+process.argv[2]; const method=process.argv[3]||'best';
const big=(seed)=>{const d=randomDist(N,seed);return fromWeights(d.values,d.weights);};
const p=big(3),q=big(4);
const s={name:'big',priors:[{name:'p',conditionals:{a:p,b:q}}]};
const t=performance.now();
const r=calibrate(s,{mechanism:'laplace',method,alpha:2,epsilon:1});
console.log(method, N, (performance.now()-t).toFixed(0),'ms', r.scale, r.method ?? '', 'rss MB', (process.memoryUsage().rss/1e6).toFixed(0));
