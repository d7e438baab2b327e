import { fromWeights } from './dist/distribution/discrete.js';
import * as ex from './dist/divergence/exactRenyi.js';
function lcg(seed){let s=seed>>>0;return()=>{s=(Math.imul(s,1664525)+1013904223)>>>0;return s/2**32;};}
function randomDist(k,seed){const r=lcg(seed);return {values:Array.from({length:k},(_, i)=>i+r()*0.5),weights:Array.from({length:k},()=>Number((0.001+r()).toFixed(6)))};}
const N=+process.argv[2]||1000;
const big=(seed)=>{const d=randomDist(N,seed);return fromWeights(d.values,d.weights);};
const p=big(3),q=big(4);
for (const sc of [+process.argv[3]||2.32, 0.1, 1]) for (const a of [2, 0.5, 8]) {
const e=ex.exactRenyi(p,q,{family:'laplace',scale:sc},a,{rtol:1e-10});
const o=ex.exactRenyi(p,q,{family:'laplace',scale:sc},a,{rtol:1e-10, evaluator:'plain'});
console.log(sc,a,e.value,e.error,o.value,o.error,(e.value-o.value)/(e.error+o.error));
}
