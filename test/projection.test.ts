import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromCounts } from '../src/distribution/discrete.js';
import type { Scenario } from '../src/distribution/scenario.js';
import { calibrateMI } from '../src/mi/calibrate.js';
import { calibrateProjection, project, projection, projectionMI, type Projection } from '../src/mi/projection.js';
import { randomSketch } from '../src/sources/projection.js';
import { pointLaw, type PointLaw } from '../src/distribution/points.js';
import { runInProcess as inProcess } from './inProcess.js';

/**
 * I(M; S) of M = A·x + N(0, σ²I_k), x drawn from the secret's law, by direct numerical
 * integration of the Gaussian-mixture densities on a grid (an independent check: no bound,
 * no max-entropy argument): I = h(M) − Σ_s p(s) h(M | S = s).
 */
function integratedMI(laws: { p: number; atoms: number[][]; masses: number[] }[], A: Projection, sigma: number): number {
  const centres = laws.map((l) => l.atoms.map((x) => project(A, x)));
  const all = centres.flat();
  const lo = Array.from({ length: A.k }, (_, j) => Math.min(...all.map((c) => c[j])) - 9 * sigma);
  const hi = Array.from({ length: A.k }, (_, j) => Math.max(...all.map((c) => c[j])) + 9 * sigma);
  const n = A.k === 1 ? 6000 : 400;
  const h = lo.map((l, j) => (hi[j] - l) / n);
  const phi = (y: number[], c: number[]) => {
    let q = 0;
    for (let j = 0; j < y.length; j++) q += (y[j] - c[j]) ** 2;
    return Math.exp(-q / (2 * sigma * sigma)) / (2 * Math.PI * sigma * sigma) ** (y.length / 2);
  };
  const xlogx = (v: number) => (v > 0 ? v * Math.log(v) : 0);
  let I = 0;
  const visit = (y: number[]) => {
    const cond = laws.map((l, s) => centres[s].reduce((a, c, i) => a + l.masses[i] * phi(y, c), 0));
    const marg = cond.reduce((a, f, s) => a + laws[s].p * f, 0);
    // I = Σ_s p(s) ∫ f_s log f_s − ∫ f log f
    let v = -xlogx(marg);
    cond.forEach((f, s) => {
      v += laws[s].p * xlogx(f);
    });
    I += v * h.reduce((a, b) => a * b, 1);
  };
  if (A.k === 1) for (let i = 0; i <= n; i++) visit([lo[0] + i * h[0]]);
  else for (let i = 0; i <= n; i++) for (let j = 0; j <= n; j++) visit([lo[0] + i * h[0], lo[1] + j * h[1]]);
  return I;
}

const scalar: Scenario = {
  name: 's',
  priors: [{ name: 'p', conditionals: { a: fromCounts([0, 1, 4], [5, 3, 2]), b: fromCounts([0, 2, 5], [1, 3, 6]) }, probabilities: { a: 0.3, b: 0.7 } }],
};
const P = pointLaw(
  [
    [0, 1, 2],
    [1, 3, 0],
    [2, 2, 2],
  ],
  { counts: [4, 3, 3] },
);
const Q = pointLaw(
  [
    [3, 0, 1],
    [1, 1, 1],
    [0, 4, 2],
  ],
  { counts: [2, 2, 6] },
);
const vector: Scenario<PointLaw> = { name: 'v', priors: [{ name: 'p', conditionals: { a: P, b: Q } }] };
const asLaws = (s: Scenario<PointLaw>) =>
  Object.entries(s.priors[0].conditionals).map(([, m]) => ({
    p: 0.5,
    atoms: Array.from({ length: m.masses.length }, (_, k) => Array.from(m.points.subarray(k * m.d, (k + 1) * m.d))),
    masses: Array.from(m.masses),
  }));

describe('the projection mechanism (ε-MI Pufferfish, docs/math.md §15)', () => {
  it('k = 1 on a scalar query: the calibrated σ keeps the integrated I(M; S) within ε, and A = [1] is the scalar variance bound', () => {
    for (const eps of [0.01, 0.1, 0.5]) {
      const c = calibrateProjection(scalar, { projection: projection([[1]]), epsilon: eps });
      const laws = [
        { p: 0.3, atoms: [[0], [1], [4]], masses: [0.5, 0.3, 0.2] },
        { p: 0.7, atoms: [[0], [2], [5]], masses: [0.1, 0.3, 0.6] },
      ];
      const I = integratedMI(laws, projection([[1]]), c.scale);
      expect(I).toBeLessThanOrEqual(eps);
      expect(I).toBeGreaterThan(eps / 20); // a bound, but not a vacuous one
      const mi = calibrateMI(scalar, { mechanism: 'gaussian', method: 'mi-variance', epsilon: eps });
      expect(c.variance / mi.variance).toBeGreaterThan(1 - 1e-9);
      expect(c.variance / mi.variance).toBeLessThan(1 + 1e-9);
    }
  });

  it('k = 2 from d = 3: the integrated I(M; S) stays within ε; the noise follows k, and projectionMI inverts the calibration', () => {
    const A = projection([
      [1, 0.5, 0],
      [0, 1, -1],
    ]);
    for (const eps of [0.05, 0.3]) {
      const c = calibrateProjection(vector, { projection: A, epsilon: eps });
      expect(c.k).toBe(2);
      const I = integratedMI(asLaws(vector), A, c.scale);
      expect(I).toBeLessThanOrEqual(eps);
      expect(I).toBeGreaterThan(eps / 50);
      const level = projectionMI(vector, A, c.scale).value;
      expect(level).toBeLessThanOrEqual(eps * (1 + 1e-9));
      expect(level).toBeGreaterThan(eps * (1 - 1e-9));
      // N releases together are one at σ/√N: the calibrated σ grows by √N.
      expect(calibrateProjection(vector, { projection: A, epsilon: eps, releases: 4 }).scale / c.scale).toBeCloseTo(2, 9);
    }
  });

  it('A = identity is of the order of the per-coordinate mi-variance answer, never below the bound', () => {
    const I3 = projection([
      [1, 0, 0],
      [0, 1, 0],
      [0, 0, 1],
    ]);
    const c = calibrateProjection(vector, { projection: I3, epsilon: 0.1 });
    const per = calibrateMI(vector, { mechanism: 'gaussian', method: 'mi-variance', epsilon: 0.1 });
    expect(c.scale / per.scale).toBeGreaterThan(0.2);
    expect(c.scale / per.scale).toBeLessThan(5);
    expect(integratedMI(asLaws(vector), projection([[1, 0, 0]]), c.scale)).toBeLessThan(0.1);
  });

  it('a random sketch is reproducible from its seed, and bad matrices are refused by field', () => {
    const a = randomSketch(2, 3, 7);
    expect(randomSketch(2, 3, 7)).toEqual(a);
    expect(randomSketch(2, 3, 8)).not.toEqual(a);
    expect(a.k).toBe(2);
    expect(() => projection([[1, 2], [3]])).toThrow(/row 2 has 1 entries/);
    expect(() => projection([[0, 0]])).toThrow(/all zeros/);
    expect(() => calibrateProjection(vector, { projection: projection([[1, 1]]), epsilon: 0.1 })).toThrow(/has 2 columns, the query has 3/);
    // A·f(X) overflowing to ∞ is refused, never read as "nothing to hide".
    expect(() => calibrateProjection(vector, { projection: projection([[1e308, 1e308, 1e308]]), epsilon: 0.1 })).toThrow(/overflow/);
    expect(() => projectionMI(vector, projection([[1e308, 1e308, 1e308]]), 1)).toThrow(/overflow/);
    // Subnormal spreads are charged absolutely: σ² stays above the bound.
    const s = 1.94e-163;
    const tiny: Scenario = {
      name: 't',
      priors: [{ name: 'p', conditionals: { a: fromCounts([6 * s, 12 * s], [2, 2]), b: fromCounts([36 * s, 42 * s], [5, 2]) } }],
    };
    expect(calibrateProjection(tiny, { projection: projection([[1]]), epsilon: 0.1 }).variance).toBeGreaterThanOrEqual(8 * 2 ** -1074); // the bound is about 3.7e-323
  });

  it('CLI: calibrate, release and audit take --projection; pca and Rényi flags are refused by name', async () => {
    const S = ['--data', 'examples/heart.csv', '--query', 'age,oldpeak', '--secret-column', 'fbs'];
    const file = join(mkdtempSync(join(tmpdir(), 'pf-proj-')), 'A.json');
    writeFileSync(file, '[[1, 0.1]]');
    const c = JSON.parse((await inProcess('calibrate', ...S, '--projection', file, '--epsilon', '0.1', '--json')).stdout);
    const r = c.results[0];
    expect(r.k).toBe(1);
    expect(['projection', 'mi-variance']).toContain(r.smaller);
    const rel = JSON.parse((await inProcess('release', ...S, '--projection', file, '--value', '50,1.2', '--epsilon', '0.1', '--json')).stdout);
    expect(rel.scale).toBe(r.scale);
    expect(rel.values[0]).toHaveLength(1);
    const audit = JSON.parse((await inProcess('audit', ...S, '--projection', file, '--scale', String(r.scale), '--epsilon', '0.1', '--json')).stdout);
    expect(audit.verdict).toBe('pass');
    expect(audit.mi).toBeLessThanOrEqual(0.1 * (1 + 1e-9));
    expect((await inProcess('audit', ...S, '--projection', file, '--scale', String(r.scale / 2), '--epsilon', '0.1')).status).toBe(1);
    // Two releases at the σ calibrated for two together: the account's joint level is within ε.
    const two = JSON.parse((await inProcess('calibrate', ...S, '--projection', file, '--epsilon', '0.1', '--releases', '2', '--json')).stdout).results[0].scale;
    const acc = JSON.parse(
      (
        await inProcess(
          'account',
          ...S,
          '--projection',
          file,
          '--release',
          `mechanism=gaussian,scale=${two}`,
          '--release',
          `mechanism=gaussian,scale=${two}`,
          '--json',
        )
      ).stdout,
    );
    expect(acc.mi).toBeLessThanOrEqual(0.1);
    expect(acc.mi).toBeGreaterThan(0.1 * (1 - 1e-6));
    expect((await inProcess('account', ...S, '--projection', file, '--release', 'mechanism=gaussian,scale=1,columns=age')).stderr).toMatch(
      /^error: --release: each projection release publishes A·f\(X\) whole/,
    );
    // Numbers are read as decimals only: hex or blank values are refused, never re-read.
    expect((await inProcess('audit', ...S, '--projection', file, '--scale', '0x10')).stderr).toMatch(/^error: --scale: '0x10' is not a decimal number/);
    expect((await inProcess('release', ...S, '--projection', file, '--value', '0x32,1')).stderr).toMatch(/^error: --value: must be 2 finite number/);
    const csv = join(mkdtempSync(join(tmpdir(), 'pf-proj-')), 'A.csv');
    writeFileSync(csv, '1,0x1\n');
    expect((await inProcess('calibrate', ...S, '--projection', csv)).stderr).toMatch(/^error: --projection: entry \(1, 2\) is not a finite number/);
    expect((await inProcess('calibrate', ...S, '--projection', 'pca:1')).stderr).toMatch(/^error: --projection: pca is not offered/);
    expect((await inProcess('calibrate', ...S, '--projection', file, '--alpha', '2')).stderr).toMatch(/^error: --alpha: is not taken with --projection/);
    expect((await inProcess('calibrate', ...S, '--projection', 'random:2', '--seed', '3', '--json')).stdout).toBe(
      (await inProcess('calibrate', ...S, '--projection', 'random:2', '--seed', '3', '--json')).stdout,
    );
  });
});

describe('private means under ε-MI Pufferfish (docs/math.md §16)', () => {
  it('the released mean of n i.i.d. rows: empirical MSE over 10⁴ draws within 5% of the stated one; the sample size meets a target', async () => {
    const { builtinScenario } = await import('../src/scenarios/builtin.js');
    const { calibrateMean, meanSampleSize } = await import('../src/mi/mean.js');
    const { seededUniform } = await import('../src/sources/priors.js');
    const heart = builtinScenario('heart');
    // The row law: the secrets' conditionals weighted by their probabilities.
    const prior = heart.priors[0];
    const pi = Object.fromEntries(Object.keys(prior.conditionals).map((s) => [s, prior.probabilities?.[s] ?? 1]));
    const total = Object.values(pi).reduce((a, b) => a + b, 0);
    const atoms: { x: number; w: number }[] = [];
    for (const [s, law] of Object.entries(prior.conditionals))
      law.values.forEach((x, i) => {
        atoms.push({ x, w: (pi[s] / total) * law.masses[i] });
      });
    const mu = atoms.reduce((a, t) => a + t.w * t.x, 0);
    const cdf = atoms.reduce<number[]>((acc, t) => [...acc, (acc[acc.length - 1] ?? 0) + t.w], []);
    const u = seededUniform(11);
    const row = () => {
      const r = u() * cdf[cdf.length - 1];
      return atoms[cdf.findIndex((c) => r < c)]?.x ?? atoms[atoms.length - 1].x;
    };
    const normal = () => Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u());
    for (const [eps, n] of [
      [0.1, 303],
      [1, 50],
    ]) {
      const c = calibrateMean(heart, { epsilon: eps, rows: n });
      let se = 0;
      const draws = 10_000;
      for (let t = 0; t < draws; t++) {
        let s = 0;
        for (let i = 0; i < n; i++) s += row();
        se += (s / n + c.scale * normal() - mu) ** 2;
      }
      expect(Math.abs(se / draws / c.mse - 1)).toBeLessThan(0.05);
    }
    const n = meanSampleSize(heart, { epsilon: 0.1, targetMse: 0.01 });
    expect(calibrateMean(heart, { epsilon: 0.1, rows: n }).mse).toBeLessThanOrEqual(0.01);
    expect(calibrateMean(heart, { epsilon: 0.1, rows: n - 1 }).mse).toBeGreaterThan(0.01);
  });

  it('CLI: calibrate --query mean:COL reports σ, the MSE and the rows a target needs', async () => {
    const j = JSON.parse(
      (
        await inProcess(
          'calibrate',
          '--data',
          'examples/heart.csv',
          '--query',
          'mean:oldpeak',
          '--secret-column',
          'fbs',
          '--epsilon',
          '0.1',
          '--target-mse',
          '0.01',
          '--json',
        )
      ).stdout,
    );
    expect(j.rows).toBe(303);
    expect(j.results[0].rowsNeeded).toBeGreaterThan(303);
    expect(j.results[0].mse).toBeGreaterThan(0.01);
    expect(
      (await inProcess('calibrate', '--data', 'examples/heart.csv', '--query', 'mean:oldpeak', '--secret-column', 'fbs', '--guarantee', 'mi', '--alpha', '2'))
        .stderr,
    ).toMatch(/^error: --alpha: is not taken with a mean query/);
    expect(
      (await inProcess('calibrate', '--data', 'examples/heart.csv', '--query', 'mean:oldpeak', '--secret-column', 'fbs', '--target-mse', '-1')).stderr,
    ).toMatch(/^error: --target-mse: must be a finite number > 0/);
  });
});
