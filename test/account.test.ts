import { noiseOf } from '../src/mechanisms/kernels.js';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { account, nextReleaseScale } from '../src/account/account.js';
import { calibrate } from '../src/calibrate/calibrate.js';
import type { Scenario } from '../src/distribution/scenario.js';
import { fromCounts, fromWeights, type Discrete } from '../src/distribution/discrete.js';
import { exactRenyi } from '../src/divergence/exactRenyi.js';
import { InputError } from '../src/errors.js';
import { rdpToDpSharp } from '../src/audit/conversion.js';
import { twoReleaseRenyiAt } from './quadrature2d.js';
import { builtinScenario } from '../src/scenarios/builtin.js';

const pairScenario = (p: Discrete, q: Discrete): Scenario => ({ name: 'pair', priors: [{ name: 'p', conditionals: { P: p, Q: q } }] });
const collapse = pairScenario(fromCounts([0], [1]), fromWeights([0, 5], [0.99, 0.01]));
const [P, Q] = [collapse.priors[0].conditionals.P, collapse.priors[0].conditionals.Q];

describe('accountant of several releases of the same value (docs/math.md §9)', () => {
  it('Gaussian releases: exact at σ_eff = (Σσᵢ⁻²)^−½, and the naive sum understates it', () => {
    const a = account(
      collapse,
      [
        { mechanism: 'gaussian', scale: 1.6 },
        { mechanism: 'gaussian', scale: 2.4 },
      ],
      { alphas: [2, 3] },
    );
    const sigmaEff = 1 / Math.sqrt(1 / 1.6 ** 2 + 1 / 2.4 ** 2);
    for (const r of a.rows) {
      const truth = Math.max(exactRenyi(P, Q, noiseOf('gaussian', sigmaEff), r.alpha).value, exactRenyi(Q, P, noiseOf('gaussian', sigmaEff), r.alpha).value);
      expect(r.method).toBe('exact (Gaussian mean)');
      expect(r.divergence).toBeGreaterThanOrEqual(truth);
      expect(r.divergence).toBeLessThan(truth * (1 + 1e-8));
      const own = (s: number) => Math.max(exactRenyi(P, Q, noiseOf('gaussian', s), r.alpha).value, exactRenyi(Q, P, noiseOf('gaussian', s), r.alpha).value);
      expect(r.naiveSum).toBeCloseTo(own(1.6) + own(2.4), 8);
      expect(r.understated).toBe(true);
    }
  });

  it('a Laplace and a Gaussian release: the coupled joint bound is never below the true joint D_α (2-D quadrature)', () => {
    const s = pairScenario(fromCounts([0, 1], [1, 1]), fromCounts([0, 2], [1, 4]));
    const [p, q] = [s.priors[0].conditionals.P, s.priors[0].conditionals.Q];
    for (const [b, sigma] of [
      [1, 1],
      [0.5, 2],
      [3, 0.7],
    ]) {
      const a = account(
        s,
        [
          { mechanism: 'laplace', scale: b },
          { mechanism: 'gaussian', scale: sigma },
        ],
        { alphas: [1.5, 2, 4] },
      );
      // Every order and both directions from one pass of the independent 2-D quadrature.
      const oracle = twoReleaseRenyiAt(p, q, noiseOf('laplace', b), noiseOf('gaussian', sigma), [1.5, 2, 4]);
      for (const [k, r] of a.rows.entries()) {
        expect(r.alpha).toBe([1.5, 2, 4][k]);
        const truth = Math.max(oracle.pq[k], oracle.qp[k]);
        expect(r.divergence, `b=${b} σ=${sigma} α=${r.alpha}`).toBeGreaterThanOrEqual(truth * (1 - 1e-7));
        expect(r.understated).toBe(r.method === 'coupled' ? null : r.understated);
      }
    }
  });

  it('two Laplace releases of one value: exact on ℝ² (the diagonal), equal to an independent 2-D quadrature', () => {
    const s = pairScenario(fromCounts([0, 1, 3], [1, 1, 2]), fromCounts([0, 2, 3], [1, 4, 1]));
    const [p, q] = [s.priors[0].conditionals.P, s.priors[0].conditionals.Q];
    for (const [b1, b2] of [
      [1, 1.5],
      [0.4, 3],
    ]) {
      const a = account(
        s,
        [
          { mechanism: 'laplace', scale: b1 },
          { mechanism: 'laplace', scale: b2 },
        ],
        { alphas: [1.5, 2, 4] },
      );
      const oracle = twoReleaseRenyiAt(p, q, noiseOf('laplace', b1), noiseOf('laplace', b2), [1.5, 2, 4]);
      for (const [k, r] of a.rows.entries()) {
        const truth = Math.max(oracle.pq[k], oracle.qp[k]);
        expect(r.method, `α=${r.alpha}`).toBe('exact');
        expect(r.divergence, `b=${b1},${b2} α=${r.alpha}`).toBeGreaterThanOrEqual(truth * (1 - 1e-8));
        expect(r.divergence, `b=${b1},${b2} α=${r.alpha}`).toBeLessThanOrEqual(truth * (1 + 1e-7));
        // Exact: whether adding the two levels understates the joint one is decided.
        expect(r.understated).not.toBeNull();
      }
    }
  });

  it('calibrating two Laplace releases exactly (on ℝ²): the account of both at that scale meets ε, 1% less does not', () => {
    const heart = builtinScenario('heart');
    const r = calibrate(heart, { mechanism: 'laplace', method: 'best', alpha: 2, epsilon: 1, releases: 2 });
    expect(r.winner).toBe('exact');
    const level = (b: number) =>
      account(
        heart,
        [
          { mechanism: 'laplace', scale: b },
          { mechanism: 'laplace', scale: b },
        ],
        { alphas: [2] },
      ).rows[0];
    expect(level(r.scale).method).toBe('exact');
    expect(level(r.scale).divergence).toBeLessThanOrEqual(1);
    expect(level(0.99 * r.scale).divergence).toBeGreaterThan(1);
    // Below the N-fold coupled condition's scale: less noise for the same guarantee.
    expect(r.scale).toBeLessThan(r.candidates!.find((c) => c.method === 'coupled')!.scale);
  });

  it('three Laplace releases of one value: two exactly, the third at its widest shift (chain rule), never below the two alone', () => {
    const s = pairScenario(fromCounts([0, 1, 3], [1, 1, 2]), fromCounts([0, 2, 3], [1, 4, 1]));
    const two = [
      { mechanism: 'laplace' as const, scale: 1 },
      { mechanism: 'laplace' as const, scale: 1.5 },
    ];
    const pair = account(s, two, { alphas: [2, 8] }).rows;
    for (const b3 of [30, 1e3, 1e6]) {
      const rows = account(s, [...two, { mechanism: 'laplace', scale: b3 }], { alphas: [2, 8] }).rows;
      for (const [k, r] of rows.entries()) {
        expect(r.method, `b₃=${b3}`).toBe('chained');
        expect(r.divergence).toBeGreaterThanOrEqual(pair[k].divergence);
      }
      // A third release of huge noise adds almost nothing: the level tends to the two's exact one.
      if (b3 === 1e6) for (const [k, r] of rows.entries()) expect(r.divergence / pair[k].divergence).toBeLessThan(1 + 1e-4);
    }
  });

  it('one Laplace release: the accountant is the exact accountant, and α = ∞ is the sup at the atoms', () => {
    const a = account(collapse, [{ mechanism: 'laplace', scale: 2 }], { alphas: [2, Infinity], delta: 1e-6 });
    const truth = Math.max(exactRenyi(P, Q, noiseOf('laplace', 2), 2).value, exactRenyi(Q, P, noiseOf('laplace', 2), 2).value);
    expect(a.rows[0].method).toBe('exact');
    expect(a.rows[0].divergence).toBeGreaterThanOrEqual(truth);
    expect(a.rows[0].divergence).toBeLessThan(truth * (1 + 1e-8));
    expect(a.rows[1].method).toBe('sup-at-atoms');
    // (ε′, δ): the smaller of α = 2's conversion and the α = ∞ level, which is (ε, 0) and so (ε, δ).
    const converted = rdpToDpSharp(a.rows[0].divergence, 2, 1e-6);
    expect(a.epsilonDelta).toEqual(
      converted < a.rows[1].divergence ? { epsilon: converted, delta: 1e-6, alpha: 2 } : { epsilon: a.rows[1].divergence, delta: 1e-6, alpha: Infinity },
    );
    // Gaussian noise has no finite α = ∞ level, and here neither has the data (Q has mass where P has none).
    expect(account(collapse, [{ mechanism: 'gaussian', scale: 2 }], { alphas: [Infinity] }).rows[0]).toMatchObject({
      method: 'unbounded',
      divergence: Infinity,
    });
    // Ordered P‖Q only: the data's own D∞ = log(1/0.99) caps it (data processing).
    const ordered = account({ ...collapse, ordered: true }, [{ mechanism: 'gaussian', scale: 2 }], { alphas: [Infinity] }).rows[0];
    expect(ordered.method).toBe('data-processing');
    expect(ordered.divergence).toBeCloseTo(Math.log(1 / 0.99), 12);
  });

  it('the next release: alone it is the exact single calibration; after a release at 2σ* it needs σ*·2/√3; after a full budget none fits', () => {
    const star = calibrate(collapse, { mechanism: 'gaussian', method: 'exact', alpha: 2, epsilon: 1 }).scale;
    const alone = nextReleaseScale(collapse, [], { mechanism: 'gaussian' }, { alpha: 2, epsilon: 1 });
    expect(alone.scale / star).toBeGreaterThan(1 - 1e-9);
    expect(alone.scale / star).toBeLessThan(1 + 1e-9);
    const after = nextReleaseScale(collapse, [{ mechanism: 'gaussian', scale: 2 * star }], { mechanism: 'gaussian' }, { alpha: 2, epsilon: 1 });
    expect(after.scale / ((2 * star) / Math.sqrt(3))).toBeGreaterThan(1 - 1e-9);
    expect(after.scale / ((2 * star) / Math.sqrt(3))).toBeLessThan(1 + 1e-9);
    // The answer keeps all releases within ε (re-checked by the accountant itself).
    expect(
      account(
        collapse,
        [
          { mechanism: 'gaussian', scale: 2 * star },
          { mechanism: 'gaussian', scale: after.scale },
        ],
        { alphas: [2] },
      ).rows[0].divergence,
    ).toBeLessThanOrEqual(1);
    const lapNext = nextReleaseScale(collapse, [{ mechanism: 'laplace', scale: 8 }], { mechanism: 'laplace' }, { alpha: 2, epsilon: 1 });
    expect(
      account(
        collapse,
        [
          { mechanism: 'laplace', scale: 8 },
          { mechanism: 'laplace', scale: lapNext.scale },
        ],
        { alphas: [2] },
      ).rows[0].divergence,
    ).toBeLessThanOrEqual(1);
    let err: unknown;
    try {
      nextReleaseScale(collapse, [{ mechanism: 'gaussian', scale: star / 2 }], { mechanism: 'gaussian' }, { alpha: 2, epsilon: 1 });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).message).toMatch(/^epsilon: the past releases' certified bound already reaches D_α ≤ .* no further release fits/);
    expect(() => nextReleaseScale(collapse, [], { mechanism: 'gaussian' }, { alpha: Infinity, epsilon: 1 })).toThrow(/alpha: Gaussian noise cannot give α = ∞/);
  });

  it('CLI: pufferfish account prints the joint curve, flags the understated sum, and refuses bad releases', () => {
    const BIN = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
    const run = (...a: string[]) => spawnSync(process.execPath, [BIN, 'account', ...a], { encoding: 'utf8' });
    const t = run(
      '--scenario',
      'heart',
      '--release',
      'mechanism=gaussian,scale=1',
      '--release',
      'mechanism=gaussian,scale=1.5',
      '--next',
      'gaussian',
      '--alpha',
      '2',
      '--epsilon',
      '1',
    );
    expect(t.status).toBe(0);
    expect(t.stdout).toMatch(/2 release\(s\) of the same value: gaussian σ=1, gaussian σ=1\.5/);
    expect(t.stdout).toMatch(/would have understated the leak at α = 2/);
    expect(t.stdout).toMatch(/next gaussian release: scale ≥ [\d.]+ keeps all 3 releases within \(α = 2, ε = 1\)/);
    const j = JSON.parse(run('--scenario', 'heart', '--release', 'mechanism=laplace,scale=1', '--alpha', '2,inf', '--json').stdout);
    expect(j.rows.map((r: { alpha: unknown }) => r.alpha)).toEqual([2, 'inf']);
    for (const [args, msg] of [
      [['--release', 'mechanism=gaussian'], /^error: --release: needs a finite scale > 0/],
      [['--release', 'mechanism=cauchy,scale=1'], /^error: --release: needs mechanism=laplace\|gaussian\|exponential/],
      [['--release', 'mechanism=gaussian,scale=1,scale=2'], /^error: --release: names 'scale' twice/],
      [['--release', 'mechanism=gaussian,scale=1', '--alpha', '0.5'], /^error: --alpha: joint accounting covers α > 1/],
      [[], /^error: --release: name the releases made so far/],
    ] as [string[], RegExp][]) {
      const r = run('--scenario', 'heart', ...args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(msg);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  it('CLI: calibrate --delta meets an (ε, δ) target through the best Rényi order and reports it', () => {
    const BIN = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
    const run = (...a: string[]) => spawnSync(process.execPath, [BIN, 'calibrate', '--scenario', 'heart', ...a], { encoding: 'utf8' });
    const j = JSON.parse(run('--mechanism', 'gaussian', '--method', 'coupled', '--delta', '1e-6', '--json').stdout).results[0];
    expect(j.target).toEqual({ epsilon: 1, delta: 1e-6 });
    expect(j.alpha).toBeGreaterThan(1);
    expect(j.explanation).toMatch(/^\(ε = 1, δ = 0\.000001\)-Pufferfish via α = /);
    // --alpha restricts the orders tried.
    expect(
      JSON.parse(run('--mechanism', 'gaussian', '--method', 'coupled', '--delta', '1e-6', '--alpha', '16,32', '--json').stdout).results[0].alpha,
    ).toBeOneOf([16, 32]);
    const bad = run('--delta', '2');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/^error: --delta: must be in \(0, 1\)/);
  });
});

describe('account progress', () => {
  it('CLI: a bar over (α, prior, pair) units and the elapsed time on a terminal; nothing on a pipe', async () => {
    const { UCI_DIR } = await import('./uci.js');
    const { join } = await import('node:path');
    const BIN = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
    const args = [
      BIN,
      'account',
      '--data',
      join(UCI_DIR, 'heart-disease', 'processed.cleveland.data'),
      '--query',
      'oldpeak',
      '--secret-column',
      'cp',
      '--release',
      'mechanism=laplace,scale=1',
      '--release',
      'mechanism=gaussian,scale=2',
      // Two orders × 6 pairs of the four chest-pain types: 12 units.
      '--alpha',
      '2,5',
    ];
    // The bar's threshold at 0 ms: on a pipe it would show at once, were pipes not excluded.
    const now = { ...process.env, PUFFERFISH_PROGRESS_AFTER_MS: '0' };
    const piped = spawnSync(process.execPath, args, { encoding: 'utf8', env: now });
    expect(piped.status, piped.stderr).toBe(0);
    expect(piped.stderr).toBe('');
    // util-linux `script` gives the command a pseudo-terminal.
    const tty = spawnSync('script', ['-qec', [process.execPath, ...args].map((a) => `'${a}'`).join(' '), '/dev/null'], { encoding: 'utf8', env: now });
    expect(tty.status).toBe(0);
    expect(tty.stdout).toMatch(/account \[[█░]+\] \d+\/12 joint level/);
    expect(tty.stdout).toMatch(/account: done in \d+\.\d s/);
  }, 120_000);
});

describe('the joint level is an upper bound to the last bit', () => {
  /** A double as an exact rational n/d (d a power of two). */
  const exact = (x: number): [bigint, bigint] => {
    const v = new DataView(new ArrayBuffer(8));
    v.setFloat64(0, x);
    const bits = v.getBigUint64(0);
    const e = Number((bits >> 52n) & 0x7ffn);
    const m = (bits & ((1n << 52n) - 1n)) | (e ? 1n << 52n : 0n);
    const k = (e || 1) - 1075;
    return k >= 0 ? [m << BigInt(k), 1n] : [m, 1n << BigInt(-k)];
  };
  it('Gaussian releases between point masses: never below αΔ²Σσ⁻²/2 in exact arithmetic', () => {
    // Δ, σ and α exact in binary, so the true level is the rational α·Δ²·(1/σ₁² + 1/σ₂²)/2.
    let checked = 0;
    for (const d of [0.75, 0.3125, 1.5, 4.25])
      for (const [s1, s2] of [
        [2, 5],
        [3, 1.25],
        [0.75, 7],
      ])
        for (const alpha of [2, 3, 5]) {
          const scenario: Scenario = { name: 'pt', priors: [{ name: 'p', conditionals: { a: fromCounts([0], [1]), b: fromCounts([d], [1]) } }] };
          const v = account(
            scenario,
            [
              { mechanism: 'gaussian', scale: s1 },
              { mechanism: 'gaussian', scale: s2 },
            ],
            { alphas: [alpha] },
          ).rows[0].divergence;
          const [vn, vd] = exact(v);
          const [dn, dd] = exact(d);
          const [an, ad] = exact(alpha);
          const [s1n, s1d] = exact(s1);
          const [s2n, s2d] = exact(s2);
          // truth = (an/ad)·(dn/dd)²·((s1d/s1n)² + (s2d/s2n)²)/2
          const num = an * dn * dn * (s1d * s1d * s2n * s2n + s2d * s2d * s1n * s1n);
          const den = 2n * ad * dd * dd * s1n * s1n * s2n * s2n;
          expect(vn * den >= num * vd, `Δ = ${d}, σ = ${s1}, ${s2}, α = ${alpha}: ${v}`).toBe(true);
          expect(v).toBeLessThan((Number(num) / Number(den)) * (1 + 1e-13));
          checked++;
        }
    expect(checked).toBe(36);
  });
});
