import { calibrate } from './dist/calibrate/calibrate.js';
import { builtinScenario } from './dist/scenarios/builtin.js';
import * as ex from './dist/divergence/exactRenyi.js';
import { gaussianKernel } from './dist/mechanisms/gaussian/kernel.js';
const s = builtinScenario('heart');
let scales=[];
const orig=gaussianKernel.domain; gaussianKernel.domain=(f,d)=>{scales.push(d.scale);return orig(f,d);};
for (const [alpha,epsilon] of [[1.1,0.5],[2,0.5],[5,1]]) { scales=[]; const t=performance.now();
 const r=calibrate(s,{mechanism:'gaussian',method:'exact',alpha,epsilon});
 console.log(alpha,epsilon,(performance.now()-t).toFixed(0),'ms',r.scale, 'domain calls',scales.length, [...new Set(scales)].map(x=>x.toPrecision(5)).join(' '));}
