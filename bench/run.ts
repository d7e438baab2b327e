// npm run bench — speed as ratios against a reference run in the same process (tinybench),
// plus the noise each method needs on the built-in scenarios. Writes bench-results/bench.json.
import { noiseOf } from '../src/mechanisms/kernels.js';
import { mkdirSync, writeFileSync } from 'node:fs';
import { Bench } from 'tinybench';
import { calibrate, type Mechanism, type Method } from '../src/calibrate/calibrate.js';
import { comonotoneCoupling } from '../src/coupling/comonotone.js';
import { fromWeights, type Discrete } from '../src/distribution/discrete.js';
import { exactRenyi } from '../src/divergence/exactRenyi.js';
import { mixtureLogDensityPlain } from '../src/mechanisms/kernels.js';
import { mixtureOf } from '../src/divergence/mixture.js';
import type { NoiseFamily } from '../src/mechanisms/kernels.js';
import { isFeasible, smallestFeasibleScale } from '../src/numerics/smallestScale.js';
import { theorem1Problem } from '../src/conditions/theorem1.js';
import { BUILTIN_IDS, builtinScenario } from '../src/scenarios/builtin.js';
import { floatCoupling } from '../test/oracle.js';
import { markovRows } from './markov.js';
import { newSourceRows } from './newSources.js';

type Row = { group: string; case: string; reference: string; meanMs: number; referenceMs: number; ratio: number; note?: string };
const rows: Row[] = [];
const quick = { time: 300, warmupTime: 50 };
const heavy = { time: 0, iterations: 3, warmupIterations: 1, warmupTime: 0 };

/** Deterministic pseudo-random benchmark inputs (not a privacy path). */
function lcg(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}
function randomDist(k: number, seed: number) {
  const r = lcg(seed);
  return { values: Array.from({ length: k }, (_, i) => i + r() * 0.5), weights: Array.from({ length: k }, () => Number((0.001 + r()).toFixed(6))) };
}
const toDiscrete = (d: { values: number[]; weights: number[] }): Discrete => fromWeights(d.values, d.weights);

async function pair(
  group: string,
  name: string,
  refName: string,
  fn: () => unknown,
  ref: () => unknown,
  opts: ConstructorParameters<typeof Bench>[0] = quick,
  note?: string,
) {
  const b = new Bench(opts);
  b.add(name, fn).add(refName, ref);
  await b.run();
  const [a, r] = b.tasks.map((t) => (t.result as { latency: { mean: number } }).latency.mean);
  rows.push({ group, case: name, reference: refName, meanMs: a, referenceMs: r, ratio: a / r, ...(note ? { note } : {}) });
  process.stderr.write('.');
}

// 1. Exact BigInt coupling vs the naive float walk (which is wrong: it invents dust atoms).
for (const k of [100, 1000, 10000]) {
  const p = randomDist(k, 1),
    q = randomDist(k, 2);
  const [dp, dq] = [toDiscrete(p), toDiscrete(q)];
  const norm = (d: { values: number[]; weights: number[] }) => ({ values: d.values, weights: d.weights.map((w) => w / d.weights.reduce((a, b) => a + b, 0)) });
  const [pn, qn] = [norm(p), norm(q)];
  await pair(
    'coupling',
    `exact π*, K=${k}`,
    'float walk',
    () => comonotoneCoupling(dp, dq),
    () => floatCoupling(pn, qn),
  );
}

// 2. Certified Brent search vs plain bisection of the same certified condition (60 halvings).
function bisection(problem: ReturnType<typeof theorem1Problem>) {
  let lo = problem.lower,
    hi = problem.upper * (1 + 1e-9);
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
  await pair(
    'theorem 1 search',
    id,
    'bisection ×60',
    () => smallestFeasibleScale(theorem1Problem(c, 2, 1)),
    () => bisection(theorem1Problem(c, 2, 1)),
  );
}

// 3. One exact D_α (α = 2, scale 1) with K atoms per side: fast evaluators vs the plain O(N·K) one.
//    At K = 10⁴ the plain evaluator would take minutes, so it is timed on the fast run's own
//    nodes, 1 in 100, and scaled by 100 (its cost is exactly linear in the node count).
for (const family of ['laplace', 'gaussian'] as NoiseFamily[]) {
  for (const k of [100, 1000, 10000]) {
    const [p, q] = [toDiscrete(randomDist(k, 1)), toDiscrete(randomDist(k, 2))];
    const noise = noiseOf(family, 1);
    if (k < 10000) {
      await pair(
        'exact D_α',
        `${family}, K=${k}`,
        'plain evaluator',
        () => exactRenyi(p, q, noise, 2),
        () => exactRenyi(p, q, noise, 2, { evaluator: 'plain' }),
        k === 100 ? quick : heavy,
      );
    } else {
      const nodes = exactRenyi(p, q, noise, 2).nodes;
      const sample = new Float64Array(Math.ceil(nodes / 100)).map((_, i) => -10 + ((k + 20) * i) / Math.ceil(nodes / 100));
      const [mp, mq] = [mixtureOf(p), mixtureOf(q)];
      // Steady state: ten timed runs after three warm-up runs (three timed runs mostly measure the compiler here).
      const b = new Bench({ time: 0, iterations: 10, warmupIterations: 3, warmupTime: 0 });
      b.add('fast', () => exactRenyi(p, q, noise, 2)).add('plain 1%', () => {
        mixtureLogDensityPlain(mp, noise, sample);
        mixtureLogDensityPlain(mq, noise, sample);
      });
      await b.run();
      const [a, r] = b.tasks.map((t) => (t.result as { latency: { mean: number } }).latency.mean);
      rows.push({
        group: 'exact D_α',
        case: `${family}, K=${k}`,
        reference: 'plain evaluator (×100 of 1%)',
        meanMs: a,
        referenceMs: 100 * r,
        ratio: a / (100 * r),
        note: 'reference extrapolated from 1% of the nodes',
      });
    }
  }
}

// 4. Exact calibration of each built-in scenario against the Theorem 1/2 calibration.
for (const id of BUILTIN_IDS) {
  const s = builtinScenario(id);
  for (const mechanism of ['laplace', 'gaussian'] as Mechanism[]) {
    await pair(
      'exact calibration',
      `${id} ${mechanism}`,
      'theorem',
      () => calibrate(s, { mechanism, method: 'exact', alpha: 2, epsilon: 0.5 }),
      () => calibrate(s, { mechanism, method: 'theorem', alpha: 2, epsilon: 0.5 }),
      heavy,
    );
  }
}

// 4′. An (ε, δ) target (ε = 1, δ = 1e-6, `best`) on heart against the calibration at the order it
//     finds alone: the grid's other orders cost what is left (most are passed over).
{
  const { calibrateEpsDelta } = await import('../src/calibrate/epsDelta.js');
  const heart = builtinScenario('heart');
  for (const mechanism of ['laplace', 'gaussian'] as Mechanism[]) {
    const r = calibrateEpsDelta(heart, { mechanism, method: 'best', epsilon: 1, delta: 1e-6 });
    await pair(
      '(ε, δ) target',
      `heart ${mechanism}, ε = 1, δ = 1e-6, best (found α = ${r.alpha})`,
      'best at that α alone',
      () => calibrateEpsDelta(heart, { mechanism, method: 'best', epsilon: 1, delta: 1e-6 }),
      () => calibrate(heart, { mechanism, method: 'best', alpha: r.alpha, epsilon: r.renyiEpsilon }),
      heavy,
    );
  }
}

// 5. The paper's Figure 1 grid: 4 scenarios × α 1.1..5 (0.1) × ε ∈ {0.5, 1} × {Laplace, Gaussian}.
const alphas = Array.from({ length: 40 }, (_, i) => Number((1.1 + 0.1 * i).toFixed(1)));
const grid = (method: Method) => () => {
  for (const id of BUILTIN_IDS) {
    const s = builtinScenario(id);
    for (const alpha of alphas)
      for (const epsilon of [0.5, 1]) for (const mechanism of ['laplace', 'gaussian'] as Mechanism[]) calibrate(s, { mechanism, method, alpha, epsilon });
  }
};
await pair('figure 1 grid (640 calibrations)', 'exact', 'theorem', grid('exact'), grid('theorem'), {
  time: 0,
  iterations: 1,
  warmupIterations: 0,
  warmupTime: 0,
});

// 5a. The same exact grid on every core, in one process: the 640 calibrations through a worker pool
//     (the compiled modules, needs `npm run build`) against one thread. Numbers identical (test/parallel.test.ts).
{
  const { availableParallelism } = await import('node:os');
  const dist = (m: string) => new URL(`../dist/${m}`, import.meta.url).href;
  const { withPool } = (await import(dist('calibrate/parallel.js'))) as typeof import('../src/calibrate/parallel.js');
  const { calibrate: calibrateDist } = (await import(dist('calibrate/calibrate.js'))) as typeof import('../src/calibrate/calibrate.js');
  const builtin = (await import(dist('scenarios/builtin.js'))) as typeof import('../src/scenarios/builtin.js');
  const jobs = builtin.BUILTIN_IDS.flatMap((id) => {
    const scenario = builtin.builtinScenario(id);
    return alphas.flatMap((alpha) =>
      [0.5, 1].flatMap((epsilon) =>
        (['laplace', 'gaussian'] as Mechanism[]).map((mechanism) => ({ scenario, settings: { mechanism, method: 'exact' as Method, alpha, epsilon } })),
      ),
    );
  });
  const cores = availableParallelism();
  await pair(
    'figure 1 grid (640 calibrations)',
    `exact, ${cores} threads: this one and workers (pool start included)`,
    'exact, one thread',
    () => withPool(cores, (pool) => pool.calibrateSettled(jobs)),
    () => {
      for (const j of jobs) calibrateDist(j.scenario, j.settings);
    },
    { time: 0, iterations: 2, warmupIterations: 1, warmupTime: 0 },
  );
}

// 5b. Worker threads, as a curator meets them: whole CLI processes (needs `npm run build`), with
//     --threads 2 against --threads 1, in this run (each process starts cold: fair to both).
//     Results are identical (test/parallel.test.ts).
{
  const { spawnSync } = await import('node:child_process');
  const { fileURLToPath } = await import('node:url');
  const { UCI_DIR } = await import('../test/uci.js');
  const { join } = await import('node:path');
  const root = fileURLToPath(new URL('..', import.meta.url));
  const adult = join(UCI_DIR, 'adult', 'adult.data');
  const cli = (runs: string[][], threads: number) => () => {
    for (const args of runs) {
      const r = spawnSync(process.execPath, ['dist/cli/main.js', 'calibrate', ...args, '--threads', String(threads), '--json'], {
        cwd: root,
        encoding: 'utf8',
      });
      if (r.status !== 0) throw new Error(`calibrate ${args.join(' ')}: ${r.stderr}`);
    }
  };
  const once = { time: 0, iterations: 1, warmupIterations: 0, warmupTime: 0 };
  const cases: [string, string[][]][] = [
    ['adult by native-country (820 pairs), best', [['--data', adult, '--query', 'education-num', '--secret-column', 'native-country']]],
    [
      'adult relationship, --prior bootstrap:100 --given sex, best',
      [
        [
          '--data',
          adult,
          '--query',
          'education-num',
          '--secret-column',
          'relationship',
          '--values',
          'Husband,Not-in-family',
          '--prior',
          'bootstrap:100',
          '--given',
          'sex',
        ],
      ],
    ],
    [
      'figure 1 exact grid (8 processes × 80 settings)',
      BUILTIN_IDS.flatMap((id) =>
        ['laplace', 'gaussian'].map((m) => ['--scenario', id, '--mechanism', m, '--method', 'exact', '--alpha', '1.1:5:0.1', '--epsilon', '0.5,1']),
      ),
    ],
  ];
  for (const [name, runs] of cases) await pair('worker threads (CLI processes)', `${name}: --threads 2`, '--threads 1', cli(runs, 2), cli(runs, 1), once);
  // A vector query's account: each (prior, pair, direction) whole on a worker; Husband's law is large
  // enough (K·L ≥ 10⁵) that helpers start at once.
  const vectorAccount = (threads: number) => () => {
    const args = ['account', '--data', adult, '--query', 'age,education-num', '--secret-column', 'relationship', '--values', 'Husband,Own-child,Wife'];
    const releases = ['--release', 'mechanism=laplace,scale=20', '--release', 'mechanism=laplace,scale=30', '--alpha', '2,5'];
    const r = spawnSync(process.execPath, ['dist/cli/main.js', ...args, ...releases, '--threads', String(threads), '--json'], { cwd: root, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`account: ${r.stderr}`);
  };
  // The curator's planning case: two Laplace releases of (age, education-num) over all six
  // relationship values (15 pairs, orders 2 and 5), against Theorem 1 on age alone; default threads.
  const run = (args: string[]) => () => {
    const r = spawnSync(process.execPath, ['dist/cli/main.js', ...args], { cwd: root, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${args[0]}: ${r.stderr}`);
  };
  // The reference of both: Theorem 1 on age alone, the same table, three runs each.
  const theoremOfAge = run([
    'calibrate',
    '--data',
    adult,
    '--query',
    'age',
    '--secret-column',
    'relationship',
    '--method',
    'theorem',
    '--alpha',
    '2',
    '--epsilon',
    '1',
    '--json',
  ]);
  const threeRuns = { time: 0, iterations: 3, warmupIterations: 0, warmupTime: 0 };
  const vectorQuery = ['--data', adult, '--query', 'age,education-num', '--secret-column', 'relationship'];
  await pair(
    'vector queries (d = 2), whole processes',
    'account: adult age,education-num, all 6 relationship values, 2 Laplace releases (b = 20, 30), α 2,5',
    'calibrate --method theorem of age on the same table',
    run(['account', ...vectorQuery, '--release', 'mechanism=laplace,scale=20', '--release', 'mechanism=laplace,scale=30', '--alpha', '2,5', '--json']),
    theoremOfAge,
    threeRuns,
  );
  // The speed issue's case: age and hours-per-week released separately (one Laplace draw per column:
  // exact on ℝ², docs/math.md §12), over all six relationship values.
  await pair(
    'vector queries (d = 2), whole processes',
    'account: adult age + hours-per-week released separately (b = 20, 30), all 6 relationship values, α 2,5 (exact on ℝ²)',
    'calibrate --method theorem of age on the same table',
    run([
      'account',
      '--data',
      adult,
      '--query',
      'age,hours-per-week',
      '--secret-column',
      'relationship',
      '--release',
      'mechanism=laplace,scale=20,columns=age',
      '--release',
      'mechanism=laplace,scale=30,columns=hours-per-week',
      '--alpha',
      '2,5',
      '--json',
    ]),
    theoremOfAge,
    threeRuns,
  );
  // The same query calibrated by `best` (theorem, coupled, pierquin, wasserstein-inf, exact: one W∞
  // and one base transport per pair, shared by the methods), against Theorem 1 on age alone.
  await pair(
    'vector queries (d = 2), whole processes',
    'calibrate --method best: adult age,education-num, all 6 relationship values, Laplace',
    'calibrate --method theorem of age on the same table',
    run(['calibrate', ...vectorQuery, '--method', 'best', '--alpha', '2', '--epsilon', '1', '--json']),
    theoremOfAge,
    threeRuns,
  );
  await pair(
    'worker threads (CLI processes)',
    'vector account (adult age,education-num, 3 relationship values, 2 releases, α 2,5): --threads 2',
    '--threads 1',
    vectorAccount(2),
    vectorAccount(1),
    once,
  );
}

// 5b′. The part worker threads can speed up: the calibration phase alone (table read and start-up
//      excluded), cold, each in a fresh process (needs `npm run build`): a pool of 2 (its start
//      included) against one thread, median of three alternating runs.
{
  const { spawnSync } = await import('node:child_process');
  const { UCI_DIR } = await import('../test/uci.js');
  const { join } = await import('node:path');
  const adult = join(UCI_DIR, 'adult', 'adult.data');
  const script = (o: Record<string, string>, mechanism: string, threads: number) => `
    const dist = (m) => new URL('./dist/' + m, 'file://${process.cwd()}/').href;
    const { loadScenario } = await import(dist('cli/input.js'));
    const { calibrate } = await import(dist('calibrate/calibrate.js'));
    const { withPool } = await import(dist('calibrate/parallel.js'));
    const { scenario } = await loadScenario(${JSON.stringify(o)});
    const settings = { mechanism: '${mechanism}', method: 'best', alpha: 2, epsilon: 1 };
    const t = performance.now();
    const r = ${threads} > 1 ? await withPool(${threads}, (pool) => pool.calibrate(scenario, settings)) : calibrate(scenario, settings);
    console.log(JSON.stringify({ ms: performance.now() - t, scale: r.scale }));`;
  const run = (o: Record<string, string>, mechanism: string, threads: number) => {
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script(o, mechanism, threads)], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`calibration phase: ${r.stderr}`);
    return JSON.parse(r.stdout.trim()) as { ms: number; scale: number };
  };
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[1];
  const medianRow = (name: string, ms: number[], refName: string, refMs: number[], note: string) => {
    rows.push({
      group: 'worker threads (calibration phase, cold process)',
      case: name,
      reference: refName,
      meanMs: median(ms),
      referenceMs: median(refMs),
      ratio: median(ms) / median(refMs),
      note,
    });
    process.stderr.write('.');
  };
  // The machine's own ceiling: two one-thread processes of the same calibration at once, against one alone.
  const { spawn } = await import('node:child_process');
  const concurrent = (o: Record<string, string>, mechanism: string) =>
    Promise.all(
      [0, 1].map(
        () =>
          new Promise<number>((resolve, reject) => {
            const c = spawn(process.execPath, ['--input-type=module', '-e', script(o, mechanism, 1)]);
            let out = '';
            c.stdout.on('data', (d) => (out += d));
            c.on('close', (code) =>
              code === 0 ? resolve((JSON.parse(out.trim()) as { ms: number }).ms) : reject(new Error(`calibration phase exited ${code}`)),
            );
          }),
      ),
    ).then((ms) => Math.max(...ms));
  const byCountry = { data: adult, query: 'education-num', secretColumn: 'native-country' };
  const bootstrap = {
    data: adult,
    query: 'education-num',
    secretColumn: 'relationship',
    values: 'Husband,Not-in-family',
    prior: 'bootstrap:100',
    given: 'sex',
  };
  for (const [name, o, mechanism] of [
    ['adult by native-country (820 pairs), Laplace best', byCountry, 'laplace'],
    ['adult relationship, bootstrap:100 --given sex, Laplace best', bootstrap, 'laplace'],
    ['adult by native-country (820 pairs), Gaussian best', byCountry, 'gaussian'],
  ] as const) {
    const two: number[] = [],
      one: number[] = [];
    for (let i = 0; i < 3; i++) {
      const [a, b] = [run(o, mechanism, 2), run(o, mechanism, 1)];
      if (a.scale !== b.scale) throw new Error(`${name}: the pool's scale ${a.scale} differs from one thread's ${b.scale}`);
      two.push(a.ms);
      one.push(b.ms);
    }
    medianRow(`${name}: pool of 2`, two, 'one thread', one, 'median of 3; table read and start-up excluded');
  }
  for (const [name, o, mechanism] of [
    ['adult by native-country, Laplace best', byCountry, 'laplace'],
    ['adult by native-country, Gaussian best', byCountry, 'gaussian'],
  ] as const) {
    const both: number[] = [],
      alone: number[] = [];
    for (let i = 0; i < 3; i++) {
      both.push(await concurrent(o, mechanism));
      alone.push(run(o, mechanism, 1).ms);
    }
    medianRow(
      `${name}: two one-thread processes at once (the slower)`,
      both,
      'one process alone',
      alone,
      'the machine’s ceiling for 2 threads: a speed-up of at most 2 / ratio',
    );
  }
}

// 5c. Exact calibration on a 10⁵-atom support (two secrets, float values and weights) against Theorem 1 on the same input.
//     A fresh scenario object per call: the π* coupling (cached per scenario) is paid by whichever method needs it.
{
  const big = (seed: number) => toDiscrete(randomDist(100_000, seed));
  const [a, b] = [big(3), big(4)];
  const fresh = () => ({ name: 'big', priors: [{ name: 'p', conditionals: { a, b } }] });
  await pair(
    'exact calibration, 10⁵ atoms per secret',
    'exact (Laplace, α = 2, ε = 1)',
    'theorem',
    () => calibrate(fresh(), { mechanism: 'laplace', method: 'exact', alpha: 2, epsilon: 1 }),
    () => calibrate(fresh(), { mechanism: 'laplace', method: 'theorem', alpha: 2, epsilon: 1 }),
    { time: 0, iterations: 2, warmupIterations: 1, warmupTime: 0 },
  );
  // Gaussian exact on 2·10⁴ of these atoms per secret (the trapezoidal rule near the answer; the
  // quiet-gap pass is left out where the atoms outnumber the grid's panels, as at the search's wide start).
  const [ga, gb] = [toDiscrete(randomDist(20_000, 3)), toDiscrete(randomDist(20_000, 4))];
  const gFresh = () => ({ name: 'big', priors: [{ name: 'p', conditionals: { a: ga, b: gb } }] });
  await pair(
    'exact calibration, 10⁵ atoms per secret',
    'Gaussian exact, 2·10⁴ atoms per secret (α = 2, ε = 1)',
    'theorem',
    () => calibrate(gFresh(), { mechanism: 'gaussian', method: 'exact', alpha: 2, epsilon: 1 }),
    () => calibrate(gFresh(), { mechanism: 'gaussian', method: 'theorem', alpha: 2, epsilon: 1 }),
    { time: 0, iterations: 1, warmupIterations: 0, warmupTime: 0 },
  );
  // One exact D_α on these laws at the calibrated scale: the one-pass gap rule against the adaptive quadrature.
  const { exactRenyiBoth } = await import('../src/divergence/exactRenyi.js');
  const { mixtureOf: mix } = await import('../src/divergence/mixture.js');
  const { laplaceGapRule } = await import('../src/mechanisms/laplace/gapRule.js');
  const bScale = calibrate(fresh(), { mechanism: 'laplace', method: 'exact', alpha: 2, epsilon: 1 }).scale;
  const [ma, mb] = [mix(a), mix(b)];
  await pair(
    'exact calibration, 10⁵ atoms per secret',
    `one D_α both directions at b = ${bScale.toPrecision(3)}: gap rule`,
    'adaptive Gauss–Kronrod',
    () => laplaceGapRule(ma, mb, 2, bScale, 1e-10, true),
    () => exactRenyiBoth(a, b, noiseOf('laplace', bScale), 2, { rtol: 1e-10, adaptive: true }),
    { time: 0, iterations: 1, warmupIterations: 0, warmupTime: 0 },
  );
}

// 5c′. `best` on 10⁶ atoms per secret, as a whole process (peak memory is the process's own): time
//      and peak RSS against Theorem 1 alone on the same generated input.
{
  const { spawnSync } = await import('node:child_process');
  const script = (method: string) => `
    import { calibrate } from './dist/calibrate/calibrate.js';
    import { fromWeights } from './dist/distribution/discrete.js';
    const r = (seed) => { let s = seed >>> 0; return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0), s / 2 ** 32); };
    const law = (seed) => { const u = r(seed); const v = Array.from({ length: 1e6 }, (_, i) => i + u() * 0.5); return fromWeights(v, v.map(() => Number((0.001 + u()).toFixed(6)))); };
    const s = { name: 'big', priors: [{ name: 'p', conditionals: { a: law(3), b: law(4) } }] };
    const t = performance.now();
    const res = calibrate(s, { mechanism: 'laplace', method: '${method}', alpha: 2, epsilon: 1 });
    console.log(JSON.stringify({ ms: performance.now() - t, rssMB: process.resourceUsage().maxRSS / 1024, winner: res.winner ?? res.method }));`;
  const run = (method: string) => {
    // The built package, as the CLI runs it (tsx's module wrappers cost the hot loops up to 1.5×).
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script(method)], { encoding: 'utf8', maxBuffer: 1 << 20 });
    if (r.status !== 0) throw new Error(`10⁶-atom ${method}: ${r.stderr}`);
    return JSON.parse(r.stdout.trim().split('\n').pop()!) as { ms: number; rssMB: number; winner: string };
  };
  const best = run('best'),
    theorem = run('theorem');
  rows.push({
    group: 'exact calibration, 10⁶ atoms per secret',
    case: `best (${best.winner} wins), peak RSS ${Math.round(best.rssMB)} MB`,
    reference: `theorem, peak RSS ${Math.round(theorem.rssMB)} MB`,
    meanMs: best.ms,
    referenceMs: theorem.ms,
    ratio: best.ms / theorem.ms,
    note: 'whole processes; RSS includes the generated input',
  });
  process.stderr.write('.');
}

// 5d. Vector queries (d = 2): the coupled calibration and the transport solve alone, against the
//     d = 1 comonotone path on the first coordinates of the same atoms, in this run.
{
  const { pointLaw } = await import('../src/distribution/points.js');
  const { optimalCoupling, distance } = await import('../src/coupling/points.js');
  const once = { time: 0, iterations: 1, warmupIterations: 0, warmupTime: 0 };
  for (const K of [500, 2000]) {
    const make = (seed: number, shift: number) => {
      const r = lcg(seed);
      const pts = Array.from({ length: K }, () => [Math.round(r() * 1000) / 100 + shift, Math.round(r() * 1000) / 100]);
      const counts = Array.from({ length: K }, () => 1 + Math.floor(r() * 9));
      return { v: pointLaw(pts, { counts }), s: toDiscrete({ values: pts.map((p) => p[0]), weights: counts }) };
    };
    const [p, q] = [make(1, 0), make(2, 0.5)];
    const vec = { name: 'v', priors: [{ name: 'p', conditionals: { a: p.v, b: q.v } }] };
    const one = { name: 's', priors: [{ name: 'p', conditionals: { a: p.s, b: q.s } }] };
    await pair(
      'vector queries (d = 2)',
      `coupled calibration, Gaussian, K=${K}`,
      'd = 1 comonotone coupled',
      () => calibrate(vec, { mechanism: 'gaussian', method: 'coupled', alpha: 2, epsilon: 1 }),
      () => calibrate(one, { mechanism: 'gaussian', method: 'coupled', alpha: 2, epsilon: 1 }),
      once,
    );
    if (K === 500)
      await pair(
        'vector queries (d = 2)',
        `transport solve alone, K=${K}`,
        'd = 1 comonotone coupling',
        () => optimalCoupling(p.v, q.v, (i, j) => distance(p.v, q.v, i, j, { kind: 'l2', weights: [1, 1] }) ** 2),
        () => comonotoneCoupling(p.s, q.s),
        once,
      );
  }
}

// 6. Samplers: throughput against the CSPRNG producing the bytes they consume (same run).
{
  const { drawRelease, gaussianNoise, laplaceNoise, sqrtCostNoise } = await import('../src/sampling/samplers.js');
  const { bufferedSource, webCryptoSource } = await import('../src/sampling/random.js');
  let consumed = 0;
  const counting = bufferedSource({
    fill(b: Uint8Array) {
      consumed += b.length;
      webCryptoSource.fill(b);
    },
  });
  const samplers: [string, Parameters<typeof drawRelease>[1], [number, number] | undefined][] = [
    ['Laplace', laplaceNoise(1), undefined],
    ['Gaussian', gaussianNoise(1), undefined],
    ['exp(−√|z|)', sqrtCostNoise(1), undefined],
    ['Laplace truncated to x ± 1', laplaceNoise(1), [2, 4]],
  ];
  for (const [name, noise, truncate] of samplers) {
    const N = 20000;
    consumed = 0;
    const t0 = performance.now();
    for (let i = 0; i < N; i++) drawRelease(3, noise, { random: counting, truncate });
    const ms = performance.now() - t0;
    const bytes = new Uint8Array(consumed);
    const t1 = performance.now();
    webCryptoSource.fill(bytes);
    const refMs = performance.now() - t1;
    rows.push({
      group: 'samplers (20000 draws)',
      case: `${name}: ${Math.round((N / ms) * 1000)} samples/s`,
      reference: `CSPRNG, ${consumed} bytes`,
      meanMs: ms,
      referenceMs: refMs,
      ratio: ms / refMs,
    });
    process.stderr.write('.');
  }
}

// 7. Histogram of a generated 10⁷-row CSV by one DuckDB aggregation, against SELECT count(*) on the same file.
{
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const { tableHistograms } = await import('../src/sources/histograms.js');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { rmSync } = await import('node:fs');
  const file = join(tmpdir(), `pufferfish-bench-${process.pid}.csv`);
  const inst = await DuckDBInstance.create(':memory:');
  const con = await inst.connect();
  const N = 10_000_000;
  await con.run(
    `COPY (SELECT (i % 97)::INTEGER AS age, CASE WHEN i % 3 = 0 THEN 'a' WHEN i % 3 = 1 THEN 'b' ELSE 'c' END AS grp, ((i * 7919) % 20)::INTEGER AS score FROM range(${N}) t(i)) TO '${file}' (HEADER, DELIMITER ',')`,
  );
  const t0 = performance.now();
  const h = await tableHistograms({ kind: 'csv', location: file }, { query: 'score', secretColumn: 'grp' });
  const ms = performance.now() - t0;
  const t1 = performance.now();
  await con.runAndReadAll(`SELECT count(*) FROM read_csv('${file}')`);
  const refMs = performance.now() - t1;
  if (h.rows !== N) throw new Error(`histogram saw ${h.rows} rows`);
  rows.push({
    group: 'table histogram (10⁷-row CSV)',
    case: `${Math.round(N / (ms / 1000) / 1e6)}M rows/s`,
    reference: 'SELECT count(*)',
    meanMs: ms,
    referenceMs: refMs,
    ratio: ms / refMs,
  });
  con.closeSync();
  inst.closeSync();
  rmSync(file);
  process.stderr.write('.');
}

// Start-up: importing the core entry and a CLI calibration, as whole processes, against a bare
// `node -e 0` started in the same run (needs `npm run build`).
{
  const { spawnSync } = await import('node:child_process');
  const { fileURLToPath } = await import('node:url');
  const root = fileURLToPath(new URL('..', import.meta.url));
  const spawn = (args: string[]) => () => {
    const r = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${args.join(' ')}: ${r.stderr}`);
  };
  const bare = spawn(['-e', '0']);
  const opts = { time: 0, iterations: 10, warmupIterations: 2, warmupTime: 0 };
  await pair('start-up', "import('pufferfish') (core)", 'node -e 0', spawn(['--input-type=module', '-e', "await import('./dist/index.js')"]), bare, opts);
  await pair('start-up', 'pufferfish calibrate --scenario heart', 'node -e 0', spawn(['dist/cli/main.js', 'calibrate', '--scenario', 'heart']), bare, opts);
  // The import alone, inside one process (no process start-up): the 0.1 s target.
  const t = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', "const t = performance.now(); await import('./dist/index.js'); console.log(performance.now() - t)"],
    { cwd: root, encoding: 'utf8' },
  );
  rows.push({
    group: 'start-up',
    case: 'core import, in-process',
    reference: '100 ms target',
    meanMs: Number(t.stdout),
    referenceMs: 100,
    ratio: Number(t.stdout) / 100,
  });
}

// Markov chains: Song's grid and the Seattle chain, against mqm-exact on the same chains (bench/markov.ts).
rows.push(...(await markovRows()));

// Window counts of a series and a statistic of a large table, as whole processes (bench/newSources.ts).
rows.push(...newSourceRows());

// Noise saved: scales and variances of coupled and exact relative to Theorem 1/2.
type Saved = { scenario: string; mechanism: Mechanism; alpha: number; epsilon: number; theorem: number; pierquin: number; coupled: number; exact: number };
const saved: Saved[] = [];
for (const id of BUILTIN_IDS) {
  const s = builtinScenario(id);
  for (const mechanism of ['laplace', 'gaussian'] as Mechanism[]) {
    for (const [alpha, epsilon] of [
      [2, 0.5],
      [2, 1],
      [5, 0.5],
    ]) {
      const sc = (method: Method) => calibrate(s, { mechanism, method, alpha, epsilon }).scale;
      saved.push({ scenario: id, mechanism, alpha, epsilon, theorem: sc('theorem'), pierquin: sc('pierquin'), coupled: sc('coupled'), exact: sc('exact') });
    }
  }
}
process.stderr.write('\n');

const fmt = (x: number) => (x === 0 ? '0' : x < 0.01 ? x.toExponential(2) : x.toFixed(3));
function print(head: string[], body: string[][]) {
  const w = head.map((h, i) => Math.max(h.length, ...body.map((t) => t[i].length)));
  console.log(
    [head, w.map((n) => '-'.repeat(n)), ...body]
      .map((r) =>
        r
          .map((c, i) => c.padEnd(w[i]))
          .join('  ')
          .trimEnd(),
      )
      .join('\n'),
  );
}
print(
  ['group', 'case', 'mean ms', 'reference', 'ref ms', 'ratio'],
  rows.map((r) => [r.group, r.case, fmt(r.meanMs), r.reference, fmt(r.referenceMs), r.ratio.toFixed(3)]),
);
console.log('\nNoise needed (scale: Laplace b, Gaussian σ) and what exact saves over Theorem 1/2:');
print(
  ['scenario', 'mechanism', 'α', 'ε', 'theorem', 'pierquin', 'coupled', 'exact', 'exact/theorem', 'variance ratio'],
  saved.map((s) => [
    s.scenario,
    s.mechanism,
    String(s.alpha),
    String(s.epsilon),
    fmt(s.theorem),
    fmt(s.pierquin),
    fmt(s.coupled),
    fmt(s.exact),
    (s.exact / s.theorem).toFixed(3),
    ((s.exact / s.theorem) ** 2).toFixed(3),
  ]),
);
mkdirSync('bench-results', { recursive: true });
writeFileSync('bench-results/bench.json', JSON.stringify({ node: process.version, date: new Date().toISOString(), rows, saved }, null, 2));
console.log('\nwritten: bench-results/bench.json');
