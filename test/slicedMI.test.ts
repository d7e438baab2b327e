import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fromCounts } from '../src/distribution/discrete.js';
import type { Scenario } from '../src/distribution/scenario.js';
import { drawSecretReleases, slicedMiSamples, slicedMiTest } from '../src/audit/slicedMI.js';
import { calibrateProjection, projection } from '../src/mi/projection.js';
import { samplerFor } from '../src/release/release.js';
import { drawRelease } from '../src/sampling/samplers.js';
import { seededSource } from './seeded.js';

/** I(X + N(0, σ²); S) for two secrets of equal probability, by numerical integration (independent of the test). */
function integratedMI(laws: { atoms: number[]; masses: number[] }[], sigma: number): number {
  const lo = -10 * sigma - 1,
    hi = 3 + 10 * sigma + 1,
    n = 20_000,
    h = (hi - lo) / n;
  const phi = (y: number, c: number) => Math.exp(-((y - c) ** 2) / (2 * sigma * sigma)) / (sigma * Math.sqrt(2 * Math.PI));
  const xlogx = (v: number) => (v > 0 ? v * Math.log(v) : 0);
  let I = 0;
  for (let i = 0; i <= n; i++) {
    const y = lo + i * h;
    const f = laws.map((l) => l.atoms.reduce((a, c, k) => a + l.masses[k] * phi(y, c), 0));
    I += (0.5 * xlogx(f[0]) + 0.5 * xlogx(f[1]) - xlogx(0.5 * f[0] + 0.5 * f[1])) * h;
  }
  return I;
}

const laws = [
  { atoms: [0, 1], masses: [0.5, 0.5] },
  { atoms: [2, 3], masses: [0.5, 0.5] },
];
const scenario: Scenario = {
  name: 'two',
  priors: [{ name: 'p', conditionals: { a: fromCounts([0, 1], [1, 1]), b: fromCounts([2, 3], [1, 1]) }, probabilities: { a: 1, b: 1 } }],
};
const epsilon = 0.2;

/** The σ at which I(M; S) is exactly ε (bisection on the integrated MI): the hardest null. */
function sigmaAtEpsilon(): number {
  let lo = 0.1,
    hi = 20;
  for (let i = 0; i < 50; i++) {
    const mid = (lo + hi) / 2;
    if (integratedMI(laws, mid) > epsilon) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** Seeded xorshift32 bytes and standard normals (Box–Muller): fast test randomness for the many audits below. */
function fastSource(seed: number) {
  let s = (seed >>> 0) * 2654435761 + 1 || 1;
  const u32 = () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return s >>> 0;
  };
  return {
    fill(bytes: Uint8Array) {
      for (let i = 0; i < bytes.length; i++) bytes[i] = u32() & 0xff;
    },
    normal: () => Math.sqrt(-2 * Math.log((u32() + 1) / 2 ** 32)) * Math.cos((2 * Math.PI * u32()) / 2 ** 32),
  };
}

/**
 * Share of `runs` audits of releases at σ that reject. The releases are X + σZ with Z a plain
 * Box–Muller normal: the audit's error rates are properties of the statistic on Gaussian
 * releases, so the 200 audits need not pay for the exact sampler (whose draws the CLI test below
 * and test/samplers.test.ts check).
 */
function rejectionRate(sigma: number, n: number, runs: number, seed: bigint): number {
  let rejected = 0;
  for (let r = 0; r < runs; r++) {
    const random = fastSource(Number(seed) + r);
    const { draws, probabilities } = drawSecretReleases(scenario.priors[0], (x) => [x[0] + sigma * random.normal()], n, random);
    if (slicedMiTest(draws, probabilities, epsilon, { level: 0.05, random }).reject) rejected++;
  }
  return rejected / runs;
}

describe('the sliced-MI audit (docs/math.md §17)', () => {
  const needed = calibrateProjection(scenario, { projection: projection([[1]]), epsilon }).scale;
  const half = needed / 2;
  const leak = integratedMI(laws, half);
  const n = slicedMiSamples(0.9 * leak, epsilon, 2);

  it('the setting: the calibrated σ meets ε with room, half of it leaks well over ε', () => {
    expect(integratedMI(laws, needed)).toBeLessThan(epsilon);
    expect(leak).toBeGreaterThan(1.5 * epsilon);
    expect(n).toBeLessThan(20_000);
  });

  it('type-I: at the σ where I(M; S) = ε exactly, 200 audits reject at most 5% (plus sampling slack)', () => {
    const sigma0 = sigmaAtEpsilon();
    expect(Math.abs(integratedMI(laws, sigma0) - epsilon)).toBeLessThan(1e-6);
    // Binomial(200, 0.05) exceeds 20 with probability below 0.1%.
    expect(rejectionRate(sigma0, n, 200, 1000n)).toBeLessThanOrEqual(0.1);
  });

  it('power: at half the needed σ, 200 audits with the n the output says suffices reject at least 80%', () => {
    expect(rejectionRate(half, n, 200, 5000n)).toBeGreaterThanOrEqual(0.8);
  });

  it('reports the estimate, threshold, decision and the smallest detectable leak; bad input is refused', () => {
    const noise = samplerFor({ mechanism: 'gaussian' }, half);
    const random = seededSource(9n);
    const { draws, probabilities } = drawSecretReleases(scenario.priors[0], (x) => [drawRelease(x[0], noise, { random })], n, random);
    const r = slicedMiTest(draws, probabilities, epsilon, { random });
    expect(r.threshold).toBeGreaterThan(epsilon);
    expect(r.detectable).toBeGreaterThan(r.threshold);
    expect(r.detectable).toBeLessThanOrEqual(0.9 * leak + 1e-12);
    expect(r.explanation).toMatch(/type-I error ≤ 0.05/);
    expect(() => slicedMiTest(draws.slice(0, 5), probabilities, epsilon)).toThrow(/at least 20 draws/);
    expect(() => slicedMiTest(draws, probabilities, epsilon, { level: 1 })).toThrow(/level/);
  });

  it('CLI: audit --empirical --guarantee mi draws through the release path; a leaky scale exits 1, projections and vectors too', () => {
    const BIN = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
    const run = (...a: string[]) => spawnSync(process.execPath, [BIN, ...a], { encoding: 'utf8' });
    const S = [
      '--data',
      'examples/heart.csv',
      '--query',
      'age,oldpeak',
      '--secret',
      'older=CAST(age AS DOUBLE) >= 55',
      '--secret',
      'younger=CAST(age AS DOUBLE) < 55',
    ];
    const leaky = run('audit', ...S, '--empirical', '--guarantee', 'mi', '--scale', '0.5', '--epsilon', '0.01', '--samples', '4000', '--json');
    expect(leaky.status, leaky.stderr).toBe(1);
    const j = JSON.parse(leaky.stdout);
    expect(j.verdict).toBe('violation');
    expect(j.directions).toBe(32);
    const proj = run(
      'audit',
      ...S,
      '--empirical',
      '--guarantee',
      'mi',
      '--projection',
      'random:1',
      '--scale',
      '1000',
      '--epsilon',
      '0.1',
      '--samples',
      '2000',
      '--json',
    );
    expect(proj.status, proj.stderr).toBe(0);
    expect(JSON.parse(proj.stdout).reject).toBe(false);
    expect(run('audit', ...S, '--guarantee', 'mi', '--scale', '1').stderr).toMatch(/^error: --guarantee: takes --empirical here/);
  });
});
