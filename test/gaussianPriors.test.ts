import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { calibrate } from '../src/calibrate/calibrate.js';
import { calibrateFor } from '../src/api/guarantee.js';
import { fromWeights } from '../src/distribution/discrete.js';
import type { InputError } from '../src/errors.js';
import { gaussianRenyi, infiniteBelow } from '../src/gaussianPriors/closedForm.js';
import { fitMixture, fitScenario } from '../src/gaussianPriors/fit.js';
import type { GaussianMixture, GaussianScenario } from '../src/distribution/mixture.js';
import { release } from '../src/release/release.js';
import { builtinScenario } from '../src/scenarios/builtin.js';
import { parseAnySpecText, parseSpecText } from '../src/spec/load.js';

/**
 * D_α(P‖Q) of two Gaussian mixtures convolved with N(0, σ²), by plain composite Simpson on a
 * wide grid of p^α q^{1−α} (log-space integrand): independent of the closed forms and of the
 * certified quadrature.
 */
function quadratureRenyi(P: GaussianMixture, Q: GaussianMixture, sigma: number, alpha: number, n = 400_000): number {
  const comps = (m: GaussianMixture) => {
    const total = m.reduce((s, c) => s + c.weight, 0);
    return m.map((c) => ({ w: c.weight / total, mu: c.mean, v: c.sd * c.sd + sigma * sigma }));
  };
  const [p, q] = [comps(P), comps(Q)];
  const logDens = (cs: ReturnType<typeof comps>, y: number) => {
    const ls = cs.map((c) => Math.log(c.w) - 0.5 * Math.log(2 * Math.PI * c.v) - (y - c.mu) ** 2 / (2 * c.v));
    const top = Math.max(...ls);
    return top + Math.log(ls.reduce((s, l) => s + Math.exp(l - top), 0));
  };
  const all = [...p, ...q];
  const spread = Math.sqrt(Math.max(...all.map((c) => c.v)));
  const lo = Math.min(...all.map((c) => c.mu)) - 60 * spread * Math.sqrt(alpha);
  const hi = Math.max(...all.map((c) => c.mu)) + 60 * spread * Math.sqrt(alpha);
  const h = (hi - lo) / n;
  let sum = 0;
  for (let i = 0; i <= n; i++) {
    const y = lo + i * h;
    const f = Math.exp(alpha * logDens(p, y) + (1 - alpha) * logDens(q, y));
    sum += (i === 0 || i === n ? 1 : i % 2 ? 4 : 2) * f;
  }
  return Math.log((sum * h) / 3) / (alpha - 1);
}

const one = (mean: number, sd: number): GaussianMixture => [{ weight: 1, mean, sd }];
const pairScenario = (P: GaussianMixture, Q: GaussianMixture): GaussianScenario => ({ name: 't', priors: [{ name: 'p', conditionals: { a: P, b: Q } }] });
const settings = (method: 'exact' | 'coupled' | 'theorem' | 'pierquin' | 'best', alpha: number, epsilon: number) =>
  ({ mechanism: 'gaussian', method, alpha, epsilon }) as const;

describe('Gaussian priors: closed form (docs/math.md §11)', () => {
  it('matches an independent quadrature of p^α q^{1−α}', () => {
    const cases: [number, number, number, number, number, number][] = [
      [0, 1, 1, 1, 0.5, 2],
      [0, 2, 1, 1, 3, 4],
      [-1, 0.3, 2, 0.8, 0.7, 1.5],
      [0, 1, 0, 3, 0.2, 8],
      [5, 0, 4, 0, 1, 3], // point masses: Remark 2
    ];
    for (const [m1, t1, m2, t2, sigma, alpha] of cases) {
      const d = gaussianRenyi({ mean: m1, sd: t1 }, { mean: m2, sd: t2 }, sigma, alpha);
      const ref = quadratureRenyi(one(m1, t1), one(m2, t2), sigma, alpha);
      expect(Math.abs(d.value - ref)).toBeLessThan(1e-7 * Math.max(1, ref));
      expect(d.error).toBeLessThan(1e-12 * Math.max(1, d.value));
    }
  });

  it('is non-increasing in σ and never negative (property)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -5, max: 5, noNaN: true }),
        fc.double({ min: 0, max: 3, noNaN: true }),
        fc.double({ min: 0, max: 3, noNaN: true }),
        fc.double({ min: 1.01, max: 50, noNaN: true }),
        fc.double({ min: 0.01, max: 10, noNaN: true }),
        (dm, t1, t2, alpha, sigma) => {
          const a = gaussianRenyi({ mean: 0, sd: t1 }, { mean: dm, sd: t2 }, sigma, alpha);
          const b = gaussianRenyi({ mean: 0, sd: t1 }, { mean: dm, sd: t2 }, sigma * 1.5, alpha);
          expect(a.value).toBeGreaterThanOrEqual(0);
          if (a.value < Infinity) expect(b.value - b.error).toBeLessThanOrEqual(a.value + a.error);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('is infinite exactly below the threshold ατ_j² − (α−1)τ_i² + σ² > 0, and the calibration explains it', () => {
    const P = { mean: 0, sd: 2 },
      Q = { mean: 1, sd: 1 };
    const t = infiniteBelow(P, Q, 4); // 3·4 − 4·1 = 8
    expect(t).toBe(8);
    expect(gaussianRenyi(P, Q, Math.sqrt(8 * (1 - 1e-6)), 4).value).toBe(Infinity);
    expect(gaussianRenyi(P, Q, Math.sqrt(8 * (1 + 1e-6)), 4).value).toBeLessThan(Infinity);
    const r = calibrate(pairScenario([{ weight: 1, ...P }], [{ weight: 1, ...Q }]), settings('exact', 4, 0.5));
    expect(r.scale).toBeGreaterThan(Math.sqrt(8));
    expect(r.explanation).toMatch(/No σ ≤ 2\.82843 gives a finite α-guarantee/);
    expect(quadratureRenyi(one(0, 2), one(1, 1), r.scale, 4)).toBeLessThanOrEqual(0.5);
    expect(quadratureRenyi(one(1, 1), one(0, 2), r.scale, 4)).toBeLessThanOrEqual(0.5);
  });
});

describe('Gaussian priors: calibration', () => {
  it('equal widths: exact σ² = αΔ²/(2ε) − τ², never below; Theorem 2 and Cor. 3.1 give αΔ²/(2ε)', () => {
    const s = pairScenario(one(0, 1), one(1, 1));
    const exact = calibrate(s, settings('exact', 2, 0.25)).scale;
    expect(exact).toBeGreaterThanOrEqual(Math.sqrt(3));
    expect(exact / Math.sqrt(3) - 1).toBeLessThan(1e-9);
    for (const m of ['theorem', 'pierquin'] as const) {
      const r = calibrate(s, settings(m, 2, 0.25)).scale;
      expect(r).toBeGreaterThanOrEqual(2);
      expect(r / 2 - 1).toBeLessThan(1e-9);
    }
    const best = calibrate(s, settings('best', 2, 0.25));
    expect(best.winner).toBe('exact');
    expect(best.scale).toBe(exact);
  });

  it('equal-width mixtures: exact through the certified accountant equals the finite exact calibration at √(τ² + σ²)', () => {
    const tau = 0.5;
    const P: GaussianMixture = [
      { weight: 1, mean: 0, sd: tau },
      { weight: 2, mean: 3, sd: tau },
    ];
    const Q: GaussianMixture = [
      { weight: 2, mean: 0, sd: tau },
      { weight: 1, mean: 3, sd: tau },
    ];
    const g = calibrate(pairScenario(P, Q), settings('exact', 2, 0.1)).scale;
    const finite = calibrate(
      { name: 'f', priors: [{ name: 'p', conditionals: { a: fromWeights([0, 3], [1, 2]), b: fromWeights([0, 3], [2, 1]) } }] },
      { mechanism: 'gaussian', method: 'exact', alpha: 2, epsilon: 0.1 },
    ).scale;
    expect(Math.abs(Math.sqrt(g * g + tau * tau) / finite - 1)).toBeLessThan(1e-6);
    expect(quadratureRenyi(P, Q, g, 2)).toBeLessThanOrEqual(0.1 * (1 + 1e-9));
    expect(quadratureRenyi(P, Q, g * 0.999, 2)).toBeGreaterThan(0.1); // and it is tight
  });

  it('every method is certified against the quadrature, exact ≤ coupled ≤ theorem (random mixtures)', () => {
    const mixture = fc.array(
      fc.record({
        weight: fc.double({ min: 0.1, max: 5, noNaN: true }),
        mean: fc.double({ min: -4, max: 4, noNaN: true }),
        sd: fc.double({ min: 0.05, max: 2, noNaN: true }),
      }),
      { minLength: 1, maxLength: 3 },
    );
    fc.assert(
      fc.property(mixture, mixture, fc.constantFrom(1.5, 2, 5), fc.constantFrom(0.2, 1), (P, Q, alpha, epsilon) => {
        const s = pairScenario(P, Q);
        const coupled = calibrate(s, settings('coupled', alpha, epsilon)).scale;
        const theorem = calibrate(s, settings('theorem', alpha, epsilon)).scale;
        expect(coupled).toBeLessThanOrEqual(theorem * (1 + 1e-9));
        const best = calibrate(s, settings('best', alpha, epsilon));
        expect(best.scale).toBeLessThanOrEqual(coupled);
        for (const [a, b] of [
          [P, Q],
          [Q, P],
        ])
          expect(quadratureRenyi(a, b, coupled, alpha, 100_000)).toBeLessThanOrEqual(epsilon * (1 + 1e-6));
      }),
      { numRuns: 12, seed: 11 },
    );
  });

  it('N releases: the scale is the single-release scale times √N (the mean is sufficient)', () => {
    const s = pairScenario(one(0, 1), one(2, 0.5));
    const single = calibrate(s, settings('exact', 3, 0.5)).scale;
    const four = calibrate(s, { ...settings('exact', 3, 0.5), releases: 4 }).scale;
    expect(four).toBeGreaterThanOrEqual(2 * single * (1 - 1e-12));
    expect(four / (2 * single) - 1).toBeLessThan(1e-8);
  });

  it('says why no noise is needed when the Gaussian laws already meet ε, and release then needs consent', () => {
    const s = pairScenario(one(0, 3), one(0.5, 3));
    const r = calibrate(s, settings('best', 2, 1));
    expect(r.scale).toBe(0);
    expect(r.explanation).toMatch(/already meet ε/);
    expect(() => release(s, settings('best', 2, 1), 1)).toThrow(/scale is 0/);
    const drawn = release(pairScenario(one(0, 1), one(2, 1)), settings('best', 2, 1), 1, { count: 3 });
    expect(drawn.values).toHaveLength(3);
    expect(drawn.scale).toBeGreaterThan(0);
  });

  it('refuses what it cannot certify, naming the field', () => {
    const s = pairScenario(one(0, 1), one(1, 2));
    const field = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return `${(e as InputError).path}: ${(e as InputError).reason}`;
      }
      return 'no error';
    };
    expect(field(() => calibrate(s, { ...settings('exact', 2, 1), mechanism: 'laplace' }))).toMatch(/^mechanism: .*Gaussian noise/);
    expect(field(() => calibrate(s, settings('pierquin', 2, 1)))).toMatch(/^method: .*W∞ is infinite/);
    expect(field(() => calibrate(s, { ...settings('exact', 2, 1), contamination: { lambda: 0.1, domain: [0, 1] } }))).toMatch(/^contamination:/);
    const mixed: GaussianMixture = [
      { weight: 1, mean: 0, sd: 1 },
      { weight: 1, mean: 2, sd: 0.5 },
    ];
    expect(field(() => calibrate(pairScenario(mixed, one(1, 1)), settings('exact', 2, 1)))).toMatch(/^method: .*different widths|^method: .*share one width/);
    expect(field(() => calibrateFor(s, { kind: 'mi', epsilon: 0.1 }, { mechanism: 'gaussian' }))).toMatch(/^guarantee:/);
    expect(calibrateFor(s, { kind: 'renyi', alpha: 2, epsilon: 1 }, { mechanism: 'gaussian' }).scale).toBeGreaterThan(0);
  });
});

describe('Gaussian priors: specs and fits', () => {
  const spec = (conds: object) => JSON.stringify({ alpha: 2, epsilon: 1, priors: [{ name: 'p', conditionals: conds }] });

  it('reads gaussian, mixture and finite conditionals together (finite values become width-0 components)', () => {
    const s = parseAnySpecText(
      spec({
        a: { gaussian: { mean: 1, sd: 2 } },
        b: {
          mixture: [
            { weight: 1, mean: 0, sd: 1 },
            { weight: 3, mean: 4, sd: 1 },
          ],
        },
        c: { values: [1, 2], counts: [1, 3] },
      }),
    );
    expect(s.kind).toBe('mixture');
    if (s.kind !== 'mixture') return;
    expect(s.scenario.priors[0].conditionals.a).toEqual([{ weight: 1, mean: 1, sd: 2 }]);
    expect(s.scenario.priors[0].conditionals.c).toEqual([
      { weight: 0.25, mean: 1, sd: 0 },
      { weight: 0.75, mean: 2, sd: 0 },
    ]);
    expect(calibrate(s.scenario, settings('best', 2, 1)).pairs).toHaveLength(3);
  });

  it('names the field of a bad Gaussian conditional, and finite-only readers refuse Gaussian ones by path', () => {
    const err = (text: string, f: (t: string) => unknown = parseAnySpecText) => {
      try {
        f(text);
      } catch (e) {
        return `${(e as InputError).path}: ${(e as InputError).reason}`;
      }
      return 'no error';
    };
    expect(err(spec({ a: { gaussian: { mean: 1, sd: -1 } }, b: { gaussian: { mean: 0, sd: 1 } } }))).toMatch(
      /^spec\.priors\[0\]\.conditionals\.a\.gaussian\.sd: must be ≥ 0/,
    );
    expect(err(spec({ a: { gaussian: { mean: 1, sd: 1 }, values: [1], counts: [1] }, b: { gaussian: { mean: 0, sd: 1 } } }))).toMatch(
      /exactly one of "values"/,
    );
    expect(err(spec({ a: { gaussian: { mean: 1, sd: 1 }, counts: [1] }, b: { gaussian: { mean: 0, sd: 1 } } }))).toMatch(/neither with "gaussian"/);
    expect(err(spec({ a: { mixture: [{ weight: 0, mean: 1, sd: 1 }] }, b: { gaussian: { mean: 0, sd: 1 } } }))).toMatch(/mixture: weights sum to zero/);
    expect(err(spec({ a: { values: [1], counts: [1] }, b: { gaussian: { mean: 0, sd: 1 } } }), parseSpecText)).toMatch(
      /^spec\.priors\[0\]\.conditionals\.b: is a Gaussian or mixture conditional/,
    );
  });

  it('fits a Gaussian by moments and a two-cluster law by EM', () => {
    const fitted = fitScenario(builtinScenario('heart'), { kind: 'gaussian' });
    const d = builtinScenario('heart').priors[0].conditionals['0'];
    const mean = Array.from(d.values).reduce((s, x, k) => s + x * d.masses[k], 0);
    expect(fitted.scenario.priors[0].conditionals['0'][0].mean).toBeCloseTo(mean, 12);
    expect(fitted.report[0]).toMatch(/^0: N\(mean/);
    const xs = [0, 0.5, 1, 10, 10.5, 11];
    const f = fitMixture(fromWeights(xs, [1, 2, 1, 1, 2, 1]), 2);
    expect(f.mixture.map((c) => c.mean)).toEqual([expect.closeTo(0.5, 6), expect.closeTo(10.5, 6)]);
    expect(f.mixture.map((c) => c.weight)).toEqual([expect.closeTo(0.5, 6), expect.closeTo(0.5, 6)]);
  });
});

describe('Gaussian priors: CLI', () => {
  const BIN = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
  const run = (...a: string[]) => spawnSync(process.execPath, [BIN, ...a], { encoding: 'utf8' });
  const dir = mkdtempSync(join(tmpdir(), 'pf-gauss-'));
  const file = join(dir, 'g.json');
  writeFileSync(
    file,
    JSON.stringify({
      alpha: 4,
      epsilon: 0.5,
      priors: [{ name: 'p', conditionals: { a: { gaussian: { mean: 0, sd: 2 } }, b: { gaussian: { mean: 1, sd: 1 } } } }],
    }),
  );

  it('calibrate takes a Gaussian spec (Gaussian noise by default) and release draws from it', () => {
    const r = run('calibrate', '--spec', file, '--json');
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout).results[0];
    expect(out.mechanism).toBe('gaussian');
    expect(out.winner).toBe('exact');
    expect(out.scale).toBeGreaterThan(Math.sqrt(8));
    const rel = run('release', '--spec', file, '--value', '3', '--count', '2', '--json');
    expect(rel.status, rel.stderr).toBe(0);
    expect(JSON.parse(rel.stdout).values).toHaveLength(2);
  });

  it('commands without Gaussian priors refuse them with exit 2, naming the conditional', () => {
    const a = run('audit', '--spec', file, '--scale', '3');
    expect(a.status).toBe(2);
    expect(a.stderr).toMatch(/conditionals\.a.*Gaussian or mixture conditional/);
    expect(a.stderr).not.toMatch(/at .*\.js/);
    const f = run('audit', '--scenario', 'heart', '--scale', '1', '--fit', 'gaussian');
    expect(f.status).toBe(2);
    const bad = run('calibrate', '--scenario', 'heart', '--fit', 'mixture:0');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--fit/);
  });

  it('--fit reports the fitted laws with the results', () => {
    const r = run('calibrate', '--scenario', 'heart', '--fit', 'gaussian', '--alpha', '4', '--epsilon', '0.05');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/fitted priors \(the guarantee covers these laws/);
    expect(r.stdout).toMatch(/0: N\(mean 1\.03/);
  });
});
