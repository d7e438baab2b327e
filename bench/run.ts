// npm run bench — speed as ratios against a reference run in the same process.
import { mkdirSync, writeFileSync } from 'node:fs';
import { Bench } from 'tinybench';
import { calibrate, type Mechanism, type Method } from '../src/calibrate/calibrate.js';
import { comonotoneCoupling } from '../src/coupling/comonotone.js';
import { fromWeights } from '../src/distribution/discrete.js';
import { isFeasible, smallestFeasibleScale } from '../src/numerics/smallestScale.js';
import { theorem1Problem } from '../src/conditions/theorem1.js';
import { BUILTIN_IDS, builtinScenario } from '../src/scenarios/builtin.js';
import { floatCoupling } from '../test/oracle.js';

type Row = { group: string; case: string; reference: string; meanMs: number; referenceMs: number; ratio: number };
const rows: Row[] = [];
const time = { time: 300, warmupTime: 50 };

/** Deterministic pseudo-random weights for benchmark inputs only (not a privacy path). */
function lcg(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}
function randomDist(k: number, seed: number) {
  const r = lcg(seed);
  const values = Array.from({ length: k }, (_, i) => i + r() * 0.5);
  const weights = Array.from({ length: k }, () => Number((0.001 + r()).toFixed(6)));
  return { values, weights };
}

async function pair(group: string, name: string, refName: string, fn: () => unknown, ref: () => unknown) {
  const b = new Bench(time);
  b.add(name, fn).add(refName, ref);
  await b.run();
  const [a, r] = b.tasks.map((t) => (t.result as { latency: { mean: number } }).latency.mean);
  rows.push({ group, case: name, reference: refName, meanMs: a, referenceMs: r, ratio: a / r });
}

// 1. Exact BigInt coupling vs the naive float walk (which is wrong: it invents dust atoms).
for (const k of [100, 1000, 10000]) {
  const p = randomDist(k, 1), q = randomDist(k, 2);
  const dp = fromWeights(p.values, p.weights), dq = fromWeights(q.values, q.weights);
  const tot = (w: number[]) => w.reduce((a, b) => a + b, 0);
  const pn = { values: p.values, weights: p.weights.map((w) => w / tot(p.weights)) };
  const qn = { values: q.values, weights: q.weights.map((w) => w / tot(q.weights)) };
  await pair('coupling', `exact π*, K=${k}`, 'float walk', () => comonotoneCoupling(dp, dq), () => floatCoupling(pn, qn));
}

// 2. Certified Brent search vs plain bisection of the same certified condition (60 halvings).
function bisection(problem: ReturnType<typeof theorem1Problem>) {
  let lo = problem.lower, hi = problem.upper * (1 + 1e-9);
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (isFeasible(problem.evaluate(mid))) hi = mid;
    else lo = mid;
  }
  return hi;
}
for (const id of BUILTIN_IDS) {
  const s = builtinScenario(id);
  const c = comonotoneCoupling(s.priors[0].conditionals[s.pairs![0][0]], s.priors[0].conditionals[s.pairs![0][1]]);
  await pair('theorem 1 search', id, 'bisection ×60', () => smallestFeasibleScale(theorem1Problem(c, 2, 1)), () => bisection(theorem1Problem(c, 2, 1)));
}

// 3. Whole calibrations of each built-in scenario (couplings cached) against Theorem 1 Laplace.
const combos: [Mechanism, Method][] = [['laplace', 'pierquin'], ['laplace', 'wasserstein-inf'], ['gaussian', 'theorem'], ['gaussian', 'pierquin'], ['exponential', 'theorem']];
for (const id of BUILTIN_IDS) {
  const s = builtinScenario(id);
  for (const [mechanism, method] of combos) {
    await pair('calibrate', `${id} ${mechanism}/${method}`, 'laplace/theorem', () => calibrate(s, { mechanism, method, alpha: 2, epsilon: 1 }), () => calibrate(s, { mechanism: 'laplace', method: 'theorem', alpha: 2, epsilon: 1 }));
  }
}

const fmt = (x: number) => (x < 0.01 ? x.toExponential(2) : x.toFixed(3));
const head = ['group', 'case', 'mean ms', 'reference', 'ref ms', 'ratio'];
const table = rows.map((r) => [r.group, r.case, fmt(r.meanMs), r.reference, fmt(r.referenceMs), r.ratio.toFixed(2)]);
const w = head.map((h, i) => Math.max(h.length, ...table.map((t) => t[i].length)));
console.log([head, w.map((n) => '-'.repeat(n)), ...table].map((r) => r.map((c, i) => c.padEnd(w[i])).join('  ')).join('\n'));
mkdirSync('bench-results', { recursive: true });
writeFileSync('bench-results/bench.json', JSON.stringify({ node: process.version, date: new Date().toISOString(), rows }, null, 2));
console.log('\nwritten: bench-results/bench.json');
