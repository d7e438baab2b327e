import { fromWeights } from './dist/distribution/discrete.js';
import { exactRenyi } from './dist/divergence/exactRenyi.js';
import { gaussianKernel } from './dist/mechanisms/gaussian/kernel.js';
function lcg(seed){let s=seed>>>0;return()=>{s=(Math.imul(s,1664525)+1013904223)>>>0;return s/2**32;};}
function randomDist(k,seed){const r=lcg(seed);return {values:Array.from({length:k},(_, i)=>i+r()*0.5),weights:Array.from({length:k},()=>Number((0.001+r()).toFixed(6)))};}
const K=10000;
const p=fromWeights(...Object.values(randomDist(K,1))), q=fromWeights(...Object.values(randomDist(K,2)));
const orig=gaussianKernel.panelErrors; let calls=0, panels=0, tt=0;
gaussianKernel.panelErrors=(...a)=>{calls++; panels+=a[2].length; const t=performance.now(); const r=orig(...a); tt+=performance.now()-t; return r;};
const origE=gaussianKernel.mixtureLogDensity; let te=0, ne=0;
gaussianKernel.mixtureLogDensity=(...a)=>{const t=performance.now(); const r=origE(...a); te+=performance.now()-t; ne+=a[2].length; return r;};
for (let k=0;k<3;k++){ calls=0;panels=0;tt=0;te=0;ne=0;
const t=performance.now(); const e=exactRenyi(p,q,{family:'gaussian',scale:1},2);
console.log('total',(performance.now()-t).toFixed(0),'nodes',e.nodes,'rounds',calls,'panels',panels,'cert ms',tt.toFixed(0),'eval ms',te.toFixed(0),'evaluated',ne, e.value, e.error);}
