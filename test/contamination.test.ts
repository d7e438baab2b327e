import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { calibrate, type CalibrationSettings } from '../src/calibrate/calibrate.js';
import type { Scenario } from '../src/distribution/scenario.js';
import { pierquinLaplaceProblem } from '../src/conditions/pierquin.js';
import { fromCounts, fromWeights, type Discrete } from '../src/distribution/discrete.js';
import type { InputError } from '../src/errors.js';
import { smallestFeasibleScale } from '../src/numerics/smallestScale.js';
import { builtinScenario } from '../src/scenarios/builtin.js';
import { oracleRenyi } from './oracle.js';

const small: Scenario = { name: 'small', priors: [{ name: 'p', conditionals: { a: fromCounts([0, 1, 3], [5, 3, 2]), b: fromCounts([1, 2, 3], [2, 3, 5]) } }] };
const DOMAIN: [number, number] = [0, 4];

/** (1 − λ)·d + λ·δ_at, as a discrete law. */
function contaminate(d: Discrete, lambda: number, at: number): Discrete {
  const m = new Map<number, number>();
  d.values.forEach((x, k) => {
    m.set(x, (m.get(x) ?? 0) + (1 - lambda) * d.masses[k]);
  });
  m.set(at, (m.get(at) ?? 0) + lambda);
  const xs = [...m.keys()].sort((x, y) => x - y);
  return fromWeights(
    xs,
    xs.map((x) => m.get(x)!),
  );
}

describe('ε-contamination classes (docs/math.md §10)', () => {
  it('λ = 0 is today’s answer, number for number', () => {
    for (const mechanism of ['laplace', 'gaussian'] as const)
      for (const method of ['theorem', 'coupled', 'exact', 'best'] as const) {
        const st: CalibrationSettings = { mechanism, method, alpha: 2, epsilon: 1 };
        const plain = calibrate(builtinScenario('heart'), st);
        const zero = calibrate(builtinScenario('heart'), { ...st, contamination: { lambda: 0, domain: [0, 6.2] } });
        expect(zero.scale).toBe(plain.scale);
        expect(zero.pairs).toEqual(plain.pairs);
      }
  });

  it('λ = 1 is differential privacy for sensitivity Δ = the domain width (closed forms)', () => {
    const delta = DOMAIN[1] - DOMAIN[0];
    const dp = (st: CalibrationSettings) => calibrate(small, { ...st, contamination: { lambda: 1, domain: DOMAIN } }).scale;
    const within = (got: number, want: number) => {
      expect(got).toBeGreaterThanOrEqual(want * (1 - 1e-12));
      expect(got / want).toBeLessThan(1 + 1e-9);
    };
    within(dp({ mechanism: 'gaussian', method: 'theorem', alpha: 3, epsilon: 0.5 }), delta * Math.sqrt(3 / (2 * 0.5)));
    within(dp({ mechanism: 'laplace', method: 'wasserstein-inf', alpha: Infinity, epsilon: 0.5 }), delta / 0.5);
    within(dp({ mechanism: 'laplace', method: 'coupled', alpha: 2, epsilon: 1 }), smallestFeasibleScale(pierquinLaplaceProblem(delta, 2, 1)).scale);
  });

  it('every adversary moving λ′ ≤ λ of the mass to the domain ends stays within ε at the returned scale (independent quadrature)', () => {
    const lambda = 0.1,
      alpha = 2,
      epsilon = 1;
    const [p, q] = [small.priors[0].conditionals.a, small.priors[0].conditionals.b];
    for (const mechanism of ['laplace', 'gaussian'] as const) {
      const s = calibrate(small, { mechanism, method: 'best', alpha, epsilon, contamination: { lambda, domain: DOMAIN } }).scale;
      for (const l of [lambda, lambda / 2])
        for (const a of DOMAIN)
          for (const b of DOMAIN) {
            const [pp, qq] = [contaminate(p, l, a), contaminate(q, l, b)];
            for (const [x, y] of [
              [pp, qq],
              [qq, pp],
            ])
              expect(oracleRenyi(x, y, mechanism, s, alpha), `${mechanism} λ′=${l} ${a},${b}`).toBeLessThanOrEqual(epsilon);
          }
    }
  });

  it('the scale never decreases as λ grows', () => {
    for (const mechanism of ['laplace', 'gaussian'] as const) {
      let prev = 0;
      for (const lambda of [0, 0.001, 0.01, 0.1, 0.5, 1]) {
        const s = calibrate(builtinScenario('heart'), { mechanism, method: 'best', alpha: 2, epsilon: 1, contamination: { lambda, domain: [0, 6.2] } }).scale;
        expect(s).toBeGreaterThanOrEqual(prev);
        prev = s;
      }
    }
  });

  it('refuses values outside the domain and bad λ, naming the field', () => {
    const err = (c: { lambda: number; domain: [number, number] }) => {
      try {
        calibrate(small, { mechanism: 'laplace', method: 'best', alpha: 2, epsilon: 1, contamination: c });
      } catch (e) {
        return e as InputError;
      }
      return null;
    };
    expect(err({ lambda: 0.1, domain: [0.5, 4] })?.message).toMatch(/^domain: value 0 of secret 'a' \(prior 'p'\) lies outside \[0\.5, 4\]/);
    expect(err({ lambda: 1.5, domain: DOMAIN })?.message).toMatch(/^contamination: must be a number in \[0, 1\]/);
    expect(err({ lambda: 0.1, domain: [4, 0] })?.message).toMatch(/^domain: needs finite LO < HI/);
  });

  it('CLI: adult with λ = 0.01 needs noise and names the binding term; release without noise suggests --contamination; spec fields', () => {
    const BIN = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
    const run = (...a: string[]) => spawnSync(process.execPath, [BIN, ...a], { encoding: 'utf8' });
    const j = JSON.parse(run('calibrate', '--scenario', 'adult', '--contamination', '0.01', '--domain', '1,16', '--json').stdout).results[0];
    expect(j.scale).toBeGreaterThan(0);
    expect(j.contamination).toEqual({ lambda: 0.01, domain: [1, 16] });
    expect(j.explanation).toMatch(/the binding term is the contamination term/);
    const r = run('release', '--scenario', 'adult', '--value', '10');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^error: --allow-no-noise: the calibrated scale is 0.*--contamination λ --domain LO,HI/);
    for (const [args, msg] of [
      [['--contamination', '0.01'], /^error: --domain: is needed with --contamination/],
      [['--domain', '1,16'], /^error: --contamination: is needed with --domain/],
      [['--contamination', '2', '--domain', '1,16'], /^error: --contamination: must be a number in \[0, 1\]/],
      [['--contamination', '0.1', '--domain', '16,1'], /^error: --domain: must be LO,HI with finite LO < HI/],
      [['--contamination', '0.1', '--domain', '2,16'], /^error: --domain: value 1 of secret 'Husband'/],
    ] as [string[], RegExp][]) {
      const e = run('calibrate', '--scenario', 'adult', ...args);
      expect(e.status, args.join(' ')).toBe(2);
      expect(e.stderr).toMatch(msg);
    }
    const f = join(mkdtempSync(join(tmpdir(), 'cont-')), 'spec.json');
    writeFileSync(
      f,
      JSON.stringify({
        priors: [{ name: 'p', conditionals: { a: { values: [0, 1], counts: [3, 1] }, b: { values: [0, 1], counts: [1, 3] } } }],
        alpha: 2,
        epsilon: 1,
        contamination: 0.05,
        domain: [0, 2],
      }),
    );
    const s = JSON.parse(run('calibrate', '--spec', f, '--json').stdout).results[0];
    expect(s.contamination).toEqual({ lambda: 0.05, domain: [0, 2] });
    writeFileSync(
      f,
      JSON.stringify({
        priors: [{ name: 'p', conditionals: { a: { values: [0], counts: [1] }, b: { values: [1], counts: [1] } } }],
        contamination: 0.05,
        domain: [2, 1],
      }),
    );
    expect(run('calibrate', '--spec', f).stderr).toMatch(/^error: spec\.domain: needs LO < HI/);
  });
});

describe('robustness report (audit --robustness)', () => {
  it('the guarantee grows with λ, the largest λ is tight, and it agrees with the contaminated calibration', async () => {
    const { robustness } = await import('../src/audit/audit.js');
    const heart = builtinScenario('heart');
    const st = { mechanism: 'laplace' as const, alpha: 2, epsilon: 1, domain: [0, 6.2] as [number, number] };
    const s = calibrate(heart, { mechanism: 'laplace', method: 'exact', alpha: 2, epsilon: 1, contamination: { lambda: 0.01, domain: st.domain } }).scale;
    const r = robustness(heart, { ...st, scale: s });
    for (let i = 1; i < r.rows.length; i++) expect(r.rows[i].divergence).toBeGreaterThanOrEqual(r.rows[i - 1].divergence);
    expect(r.largestLambda).toBeGreaterThanOrEqual(0.01 * (1 - 1e-6));
    const at = (lambda: number) => robustness(heart, { ...st, scale: s, lambdas: [lambda] }).rows[0].divergence;
    expect(at(r.largestLambda)).toBeLessThanOrEqual(1);
    expect(at(Math.min(1, r.largestLambda * (1 + 1e-6)))).toBeGreaterThan(1);
    expect(r.binding?.counts).toEqual([Number(heart.priors[0].conditionals['0'].denominator), Number(heart.priors[0].conditionals['1'].denominator)]);
    expect(r.warning).toBeNull();
    // A thin group behind the binding pair is called out.
    const thin: Scenario = { name: 'thin', priors: [{ name: 'p', conditionals: { a: fromCounts([0, 1], [200, 100]), b: fromCounts([0, 1], [3, 9]) } }] };
    expect(robustness(thin, { mechanism: 'laplace', scale: 1, alpha: 2, epsilon: 1, domain: [0, 1] }).warning).toMatch(/a group of 12 \(fewer than 30\)/);
  });

  it('CLI: audit --robustness prints the λ table and the largest λ; --json mirrors it; --domain is required', () => {
    const BIN = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
    const run = (...a: string[]) => spawnSync(process.execPath, [BIN, 'audit', '--scenario', 'heart', '--scale', '1.2', ...a], { encoding: 'utf8' });
    const t = run('--robustness', '--domain', '0,6.2');
    expect(t.status).toBe(0);
    expect(t.stdout).toMatch(/largest λ within ε: 0\.0147/);
    const j = JSON.parse(run('--robustness', '--domain', '0,6.2', '--json').stdout);
    expect(j.robustness.rows.map((r: { lambda: number }) => r.lambda)).toEqual([0, 0.001, 0.01, 0.1, 1]);
    expect(j.robustness.largestLambda).toBeGreaterThan(0.0147);
    const e = run('--robustness');
    expect(e.status).toBe(2);
    expect(e.stderr).toMatch(/^error: --domain: is needed with --robustness/);
  });
});
