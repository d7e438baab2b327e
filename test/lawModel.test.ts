import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { account, accountKind, nextReleaseScale, nextScaleKind, type AccountKind } from '../src/account/account.js';
import { audit, auditKind, type AuditKind } from '../src/audit/audit.js';
import { auditReport } from '../src/audit/report.js';
import { calibrate, calibrateKind } from '../src/calibrate/calibrate.js';
import { FINITE } from '../src/calibrate/finite.js';
import type { CalibrationKind } from '../src/calibrate/kind.js';
import { bracketBelow } from '../src/numerics/bracket.js';
import { fromCounts } from '../src/distribution/discrete.js';
import { lawKindOf } from '../src/distribution/lawKind.js';
import { pointLaw, type PointScenario } from '../src/distribution/points.js';
import type { Scenario } from '../src/distribution/scenario.js';
import type { GaussianScenario } from '../src/distribution/mixture.js';
import { release, releaseKind, type ReleaseKind, type ReleaseResult } from '../src/release/release.js';
import { seededSource } from './seeded.js';
import { validateSpec } from '../src/markov/chain.js';
import { markovScenario } from '../src/markov/source.js';

const finite: Scenario = { name: 'f', priors: [{ name: 'p', conditionals: { a: fromCounts([0, 1, 2], [3, 2, 1]), b: fromCounts([0, 1, 2], [1, 2, 3]) } }] };
const points: PointScenario = {
  name: 'v',
  priors: [
    {
      name: 'p',
      conditionals: {
        a: pointLaw(
          [
            [0, 0],
            [1, 2],
          ],
          { counts: [3, 1] },
        ),
        b: pointLaw(
          [
            [0, 1],
            [2, 2],
          ],
          { counts: [1, 3] },
        ),
      },
    },
  ],
};
const mixture: GaussianScenario = {
  name: 'g',
  priors: [{ name: 'p', conditionals: { a: [{ mean: 0, sd: 1, weight: 1 }], b: [{ mean: 1, sd: 1, weight: 1 }] } }],
};
const renyi = { alpha: 2, epsilon: 1 } as const;

describe('one law model: every operation takes every kind of law through one dispatch', () => {
  it('reads the kind of each law source', () => {
    expect([finite, points, mixture].map(lawKindOf)).toEqual(['finite', 'points', 'mixture']);
  });

  it('calibrate is the one calibration over the kind’s hooks, to the bit', () => {
    for (const method of ['theorem', 'coupled', 'best'] as const) {
      const s = { mechanism: 'gaussian' as const, method, ...renyi };
      expect(calibrate(finite, s)).toEqual(calibrateKind(FINITE, finite, s));
    }
  });

  it('a new kind of law (uniform laws on intervals) gets calibrate, audit, account, the next release and release through its hooks alone', () => {
    // Uniform laws of one width w: W∞ between U[a, a+w] and U[a′, a′+w] is |a − a′|, and Laplace
    // noise at b gives D_α ≤ D∞ ≤ W∞/b (Remark 1); R releases at b_r together W∞·Σ 1/b_r.
    type Uniforms = { name: string; width: number; massError?: number; priors: { name: string; conditionals: Record<string, number> }[] };
    type Label = { prior: string; pair: readonly [string, string]; shift: number };
    const pairsOf = (s: Uniforms) =>
      s.priors.flatMap((p) => {
        const keys = Object.keys(p.conditionals);
        return keys.flatMap((a, i) =>
          keys.slice(i + 1).map((b) => ({ prior: p.name, pair: [a, b] as [string, string], shift: Math.abs(p.conditionals[a] - p.conditionals[b]) })),
        );
      });
    const level = (shift: number, scales: readonly number[]) => shift * scales.reduce((t, b) => t + 1 / b, 0);
    const UNIFORMS: CalibrationKind<Uniforms, Label> = {
      check: (_s, settings) => settings,
      bestMethods: () => ({ methods: ['wasserstein-inf'], note: ' (only W∞ for uniform laws)' }),
      units: (s, settings) =>
        pairsOf(s).map((label) => {
          const evaluate = (scale: number) => ({ value: level(label.shift, [scale]), error: 0, target: settings.epsilon, sense: 'le' as const });
          return {
            label,
            problem: () => (label.shift === 0 ? { zero: 'the same interval' } : { evaluate, ...bracketBelow(evaluate, (2 * label.shift) / settings.epsilon) }),
          };
        }),
      text: (_s, settings, sol) => ({
        settings,
        parameter: 'b',
        variance: 2 * sol.scale * sol.scale,
        rule: 'W∞ of equal-width uniforms',
        meets: 'with W∞/b ≤ ε',
        symbol: 'b',
      }),
    };
    const AUDIT: AuditKind<Uniforms> = {
      directions: (s, st) =>
        pairsOf(s).flatMap(({ prior, pair, shift }) =>
          [pair, [pair[1], pair[0]]].map(([from, to]) => ({
            prior,
            pair,
            from,
            to,
            level: () => level(shift, [st.scale]),
            bounds: (alpha: number) => [{ value: level(shift, [st.scale]), error: 0, certificate: 'coupled-bound' as const, order: alpha }],
          })),
        ),
    };
    const ACCOUNT: AccountKind<Uniforms> = {
      shares: (s, releases, opts) => {
        const units = pairsOf(s);
        const joint = (u: Label) =>
          level(
            u.shift,
            releases.map((r) => r.scale),
          );
        return { units, shares: units.map((u) => opts.alphas.map(() => ({ value: joint(u), lower: null, method: 'coupled' as const, naive: joint(u) }))) };
      },
      nextUnits: (s, past, _next, _alpha, epsilon) => ({
        epsilon,
        units: pairsOf(s).map((u) => {
          const evaluate = (b: number) => ({ value: level(u.shift, [...past.map((r) => r.scale), b]), error: 0, target: epsilon, sense: 'le' as const });
          return {
            label: { prior: u.prior, pair: u.pair },
            where: `prior '${u.prior}'`,
            data: () => (u.shift === 0 ? 0 : Infinity),
            past: () =>
              past.length
                ? level(
                    u.shift,
                    past.map((r) => r.scale),
                  )
                : null,
            problem: () => ({ evaluate, ...bracketBelow(evaluate, 1e6) }),
            method: () => 'coupled' as const,
          };
        }),
      }),
    };
    const RELEASE: ReleaseKind<Uniforms> = {
      shape: (s, settings) => {
        const offsets = s.priors.flatMap((p) => Object.values(p.conditionals));
        return { vector: false, d: 1, settings, givenWeights: () => [1], range: () => [Math.min(...offsets), Math.max(...offsets) + s.width] };
      },
      calibrate: (s, settings, opts) => calibrateKind(UNIFORMS, s, settings, opts),
    };
    const toy: Uniforms = {
      name: 'u',
      width: 1,
      priors: [
        { name: 'p', conditionals: { a: 0, b: 1.5, c: 0.25 } },
        { name: 'q', conditionals: { a: 2, b: 2 } },
      ],
    };
    for (const alpha of [2, Infinity]) {
      const r = calibrateKind(UNIFORMS, toy, { mechanism: 'laplace', method: 'best', alpha, epsilon: 0.5 });
      expect(r.scale).toBeGreaterThanOrEqual(3); // never below W∞/ε = 1.5/0.5
      expect(r.scale).toBeLessThan(3 * (1 + 1e-12));
      expect(r.winner).toBe('wasserstein-inf');
      expect(r.binding).toEqual({ prior: 'p', pair: ['a', 'b'] });
      expect(r.pairs.find((x) => x.prior === 'q')).toMatchObject({ scale: 0, zeroReason: 'the same interval' });
      expect(r.explanation).toContain('only W∞ for uniform laws');
      expect(r.alpha).toBe(alpha);
    }
    // The audit at b = 3: the worst direction is exactly at ε, every row certified within it, (ε′, δ) converted.
    const rows = auditKind(AUDIT, toy, { mechanism: 'laplace', scale: 3, alphas: [2, Infinity], epsilon: 0.5, delta: 1e-6 });
    expect(rows).toHaveLength(4 * 2 * 2);
    expect(Math.max(...rows.map((x) => x.divergence))).toBe(0.5);
    expect(rows.every((x) => x.slack >= 0)).toBe(true);
    expect(rows.find((x) => x.alpha === 2)!.epsilonSharp).toBeGreaterThan(0.5);
    expect(() => auditKind(AUDIT, toy, { mechanism: 'laplace', scale: -1, alphas: [2], epsilon: 0.5, delta: 1e-6 })).toThrow(/^scale: /);
    // Two releases at b = 6 are the budget of one at 3; the next release after one at 6 needs b = 6.
    const acc = accountKind(
      ACCOUNT,
      toy,
      [
        { mechanism: 'laplace', scale: 6 },
        { mechanism: 'laplace', scale: 6 },
      ],
      { alphas: [2], delta: 1e-6 },
    );
    expect(acc.rows[0]).toMatchObject({ divergence: 0.5, binding: { prior: 'p', pair: ['a', 'b'] }, method: 'coupled' });
    expect(acc.epsilonDelta?.alpha).toBe(2);
    expect(() => accountKind(ACCOUNT, toy, [], { alphas: [2] })).toThrow(/^release/);
    const next = nextScaleKind(ACCOUNT, toy, [{ mechanism: 'laplace', scale: 6 }], { mechanism: 'laplace' }, 2, 0.5);
    expect(next.scale).toBeGreaterThanOrEqual(6);
    expect(next.scale).toBeLessThan(6 * (1 + 1e-9));
    expect(next.binding).toEqual({ prior: 'p', pair: ['a', 'b'] });
    // The release draws at the calibrated b = 3 with the CSPRNG's samplers: 2 000 draws average to the value.
    const settings = { mechanism: 'laplace' as const, method: 'best' as const, alpha: 2, epsilon: 0.5 };
    const r = releaseKind(RELEASE, toy, settings, 1, { count: 2000, perRelease: true, random: seededSource(7n) }) as ReleaseResult;
    expect(r.scale).toBe(calibrateKind(UNIFORMS, toy, settings).scale);
    expect(r.values).toHaveLength(2000);
    const mean = r.values.reduce((t, y) => t + y, 0) / r.values.length;
    expect(Math.abs(mean - 1)).toBeLessThan(4 * ((Math.SQRT2 * r.scale) / Math.sqrt(2000)));
    expect(r.halfWidth).toBeGreaterThanOrEqual(r.scale * Math.log(1 / 0.05));
    expect(r.guarantee).toContain("'u'");
    expect((releaseKind(RELEASE, toy, settings, 9) as ReleaseResult).note).toMatch(/outside every secret's law \(atoms in \[0, 3\]\)/);
    expect(() => releaseKind(RELEASE, toy, settings, 1, { delta: 1e-6 })).toThrow(/^delta: /);
  });

  it('a vector of one coordinate is checked as a column is (geometric noise and contamination refused), directly through the hooks too', () => {
    const ints = (xs: number[], counts: number[]) =>
      pointLaw(
        xs.map((x) => [x]),
        { counts },
      );
    const v1: PointScenario = { name: 'v1', priors: [{ name: 'p', conditionals: { a: ints([0, 1, 2], [3, 2, 1]), b: ints([0, 1, 2], [1, 2, 3]) } }] };
    const geo = {
      mechanism: 'geometric' as const,
      method: 'best' as const,
      alpha: 2,
      epsilon: 1,
      contamination: { lambda: 0.01, domain: [-1, 5] as [number, number] },
    };
    const field = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return (e as Error).message.split(':')[0];
      }
      return 'no error';
    };
    // Contaminating mass between the integers would put the outputs on another lattice (D_α = ∞).
    expect(field(() => calibrate(finite, geo))).toBe('contamination');
    expect(field(() => calibrate(v1, geo))).toBe('contamination');
    expect(field(() => calibrateKind(FINITE, finite, geo))).toBe('contamination');
    expect(field(() => calibrateKind(FINITE, finite, { ...renyi, mechanism: 'laplace', method: 'best', coordinateScales: [3] }))).toBe('coordinateScales');
  });

  it("a long chain's histogram, whose laws are too large to compute, is answered by the chain's own methods", () => {
    const { scenario } = markovScenario(
      validateSpec({
        states: ['a', 'b', 'c'],
        chains: [
          {
            name: 'c',
            transition: [
              [0.8, 0.15, 0.05],
              [0.2, 0.7, 0.1],
              [0.1, 0.3, 0.6],
            ],
            initial: 'stationary',
          },
        ],
        length: 2000,
        query: { histogram: true },
      }),
      'long',
    );
    const r = calibrate(scenario, { mechanism: 'laplace', method: 'best', alpha: Infinity, epsilon: 1 });
    expect(r.winner).toBe('mqm-exact');
    expect(r.scale).toBeGreaterThan(0);
    expect(r.explanation).toMatch(/per-pair methods: /);
  });

  it('audit and account on ℝ² are exact for one Laplace release, the coupled bounds beyond; on ℝ the exact accountant; both above what the calibration certified', () => {
    const a = { mechanism: 'laplace' as const, scale: 2, alphas: [2], epsilon: 1, delta: 1e-6 };
    expect(audit(points, a).every((r) => r.certificate === 'bernstein-ellipse' || r.certificate === 'data-processing')).toBe(true);
    expect(audit(points, { ...a, releases: 2 }).every((r) => r.certificate === 'coupled-bound' || r.certificate === 'data-processing')).toBe(true);
    expect(audit(finite, a).every((r) => r.certificate === 'bernstein-ellipse')).toBe(true);
    const rs = [{ mechanism: 'laplace' as const, scale: 2 }];
    expect(account(points, rs, { alphas: [2] }).rows[0].method).toBe('exact');
    expect(account(points, [...rs, ...rs], { alphas: [2] }).rows[0].method).toBe('coupled');
    expect(account(points, [{ mechanism: 'gaussian' as const, scale: 2 }], { alphas: [2] }).rows[0].method).toBe('coupled');
    const b = calibrate(finite, { mechanism: 'laplace', method: 'theorem', ...renyi }).scale;
    expect(b).toBeGreaterThan(0);
    expect(account(finite, [{ mechanism: 'laplace', scale: b }], { alphas: [2] }).rows[0].divergence).toBeLessThanOrEqual(1 + 1e-9);
  });

  it('release takes a number on ℝ and a vector on ℝ^d, and refuses the wrong shape naming the value', () => {
    const s = { mechanism: 'laplace' as const, method: 'theorem' as const, ...renyi };
    expect(release(finite, s, 1).values).toHaveLength(1);
    expect(release(points, s, [1, 2]).values[0]).toHaveLength(2);
    expect(() => release(points, s, [1, 2, 3])).toThrow(/^value: has 3 coordinates; the query has 2/);
    expect(() => release(finite, s, [1, 2])).toThrow(/^value: has 2 coordinates; the query has 1/);
  });

  it('refuses what a kind does not support, naming the operation or the setting, never ignoring it', () => {
    const s = { mechanism: 'laplace' as const, scale: 1, alphas: [2], epsilon: 1, delta: 1e-6 };
    expect(() => audit(mixture, s)).toThrow(/^scenario: the audit is not available for Gaussian priors/);
    expect(() => calibrate(finite, { mechanism: 'laplace', method: 'theorem', ...renyi, coordinateScales: [1] })).toThrow(
      /^coordinateScales: apply to vector queries/,
    );
    expect(() => account(finite, [{ mechanism: 'laplace', scale: 1, coordinates: [0] }], { alphas: [2] })).toThrow(/^release: columns and coordinates/);
    expect(() => nextReleaseScale(finite, [], { mechanism: 'laplace', coordinates: [0] }, { alpha: 2, epsilon: 1 })).toThrow(/^next-columns: /);
    // Releases are a whole number ≥ 1 for every kind (2.5 would have audited two).
    for (const releases of [2.5, 0, Number.NaN]) {
      expect(() => audit(finite, { ...s, releases })).toThrow(/^releases: must be a whole number ≥ 1/);
      expect(() => audit(points, { ...s, releases })).toThrow(/^releases: must be a whole number ≥ 1/);
    }
  });

  it('auditReport: N releases on ℝ through the joint accountant, on ℝ^d inside the coupled rows', async () => {
    const s = { mechanism: 'gaussian' as const, scale: 3, alphas: [2], epsilon: 1, delta: 1e-6, releases: 2 };
    const f = await auditReport(finite, s);
    expect(f.joint?.rows[0].alpha).toBe(2);
    const v = await auditReport(points, s);
    expect(v.joint).toBeNull();
    expect(v.rows).toEqual(audit(points, s));
    await expect(auditReport(finite, { ...s, releases: 2.5 })).rejects.toThrow(/^releases: must be a whole number ≥ 1/);
  });

  it('CLI: --threads and --next-columns on a one-column account, and a spec box on one column, are refused by name', () => {
    const BIN = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
    const run = (...a: string[]) => spawnSync(process.execPath, [BIN, ...a], { encoding: 'utf8' });
    const threads = run('account', '--scenario', 'heart', '--next', 'gaussian', '--threads', '2', '--alpha', '2');
    expect(threads.status).toBe(2);
    expect(threads.stderr).toMatch(/^error: --threads: spread a vector query's account over threads/);
    const cols = run('account', '--scenario', 'heart', '--next', 'gaussian', '--next-columns', '1', '--alpha', '2');
    expect(cols.status).toBe(2);
    expect(cols.stderr).toMatch(/^error: --next-columns: /);
    const dir = mkdtempSync(join(tmpdir(), 'pf-law-'));
    const spec = join(dir, 's.json');
    writeFileSync(
      spec,
      JSON.stringify({
        priors: [{ name: 'p', conditionals: { a: { values: [0, 1], counts: [3, 1] }, b: { values: [0, 1], counts: [1, 3] } } }],
        alpha: 2,
        epsilon: 1,
        contamination: 0.01,
        domain: [
          [0, 1],
          [0, 1],
        ],
      }),
    );
    const box = run('release', '--spec', spec, '--value', '1');
    expect(box.status).toBe(2);
    expect(box.stderr).toMatch(/^error: spec\.domain: gives one range per coordinate/);
  });
});
