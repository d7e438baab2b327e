import { createHash } from 'node:crypto';
import { md5Hex, unitWeights } from '../src/sources/unitWeights.js';
let bad = 0;
for (const s of ['', 'a', 'abc', 'é漢字🙂', 'x'.repeat(55), 'x'.repeat(56), 'x'.repeat(64), 'y'.repeat(1000), '3:1:household 7'])
  if (md5Hex(s) !== createHash('md5').update(s).digest('hex')) { bad++; console.log('bad', s.length); }
console.log('bad', bad);
const counts = new Array(20).fill(0); const n = 200000;
for (let i = 0; i < n; i++) counts[unitWeights(String(i), { draws: 1, seed: 5 })[0]]++;
console.log(counts.slice(0, 8).map((c, k) => [c, Math.round(n * Math.exp(-1) / [1,1,2,6,24,120,720,5040][k])]));
