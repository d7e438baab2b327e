import type { NoiseKernel, PowerIntegrand } from '../../divergence/kernel.js';
import { U, type Mixture } from '../../divergence/mixture.js';
import { plainLogDensity } from '../../divergence/plainDensity.js';
import { gaussianOffsets, gaussianPanelError } from './certificate.js';
import { gaussianGridRule } from './gridRule.js';
import { gaussianTrapezoidRule } from './trapezoidRule.js';
import { gaussianMoments } from './moments.js';
import { gaussianDomain, logMills } from './tails.js';

const LOG_SQRT_2PI = 0.5 * Math.log(2 * Math.PI);

/** Indices that sort `v` ascending. */
function argsort(v: Float64Array): Uint32Array {
  return Uint32Array.from(v.keys()).sort((i, j) => v[i] - v[j]);
}

/**
 * Gaussian panel certificates: each mixture's log density and posterior moments at the offsets
 * `gaussianPanelError` needs (docs/math.md §8), evaluated in one sorted sweep.
 */
function panelErrors(fs: PowerIntegrand[], s: number, a: number[], b: number[], plain: boolean): Float64Array[] {
  const n = a.length;
  const offs = gaussianOffsets(1);
  const per = offs.length;
  const ys = new Float64Array(n * per);
  for (let i = 0; i < n; i++) {
    const c = (a[i] + b[i]) / 2,
      h = (b[i] - a[i]) / 2;
    for (let j = 0; j < per; j++) ys[i * per + j] = c + offs[j] * h;
  }
  const order = argsort(ys);
  const sorted = Float64Array.from(order, (k) => ys[k]);
  const moments = new Map<Mixture, { ld: Float64Array; m1: Float64Array; m2: Float64Array; err: Float64Array }>();
  for (const m of new Set(fs.flatMap((f) => f.mixtures))) {
    const r = gaussianMoments(m, s, sorted, true);
    if (plain) {
      // the oracle path still certifies with the windowed moments, checked against the plain densities
      const exact = plainLogDensity(gaussianKernel, m, s, sorted);
      for (let i = 0; i < sorted.length; i++) r.err[i] = Math.max(r.err[i], Math.abs(exact[i] - r.ld[i]));
    }
    const back = { ld: new Float64Array(ys.length), m1: new Float64Array(ys.length), m2: new Float64Array(ys.length), err: new Float64Array(ys.length) };
    order.forEach((k, i) => {
      back.ld[k] = r.ld[i];
      back.m1[k] = r.m1[i];
      back.m2[k] = r.m2[i];
      back.err[k] = r.err[i];
    });
    moments.set(m, back);
  }
  return fs.map((f) => {
    const mom = f.mixtures.map((m) => moments.get(m)!);
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const base = i * per;
      let e = 0;
      for (const m of mom) for (let j = 0; j < per; j++) e = Math.max(e, m.err[base + j]);
      out[i] = gaussianPanelError(f.powers, s, (b[i] - a[i]) / 2, mom, base, e);
    }
    return out;
  });
}

/** Atoms in a pair from which the trapezoidal rule is tried first. */
const TRAPEZOID_ATOMS = 256;

/**
 * Whether the trapezoidal rule may certify: a mixture's complex zeros between two atoms g apart sit
 * πσ²/g off the real line, so beyond some gap no strip is free of them. Measured on chain count
 * laws, unit-spaced and random atoms (docs/benchmarks.md): it certified up to a largest gap of
 * 5σ at α = 1.5, 6σ at 2, 8σ at 4, 9σ at 8, 10σ at 16, 11σ at 32, and declined beyond, after 2–16 ms
 * of samples; it is not tried past (7 + 1.5·log₂α)σ. Only which certified rule runs depends on this.
 */
function trapezoidMayCertify(P: Mixture, Q: Mixture, alpha: number, s: number): boolean {
  if (P.x.length + Q.x.length < TRAPEZOID_ATOMS) return false;
  const limit = (7 + 1.5 * Math.log2(Math.max(1, alpha))) * s;
  for (const m of [P, Q]) for (let i = 1; i < m.x.length; i++) if (m.x[i] - m.x[i - 1] > limit) return false;
  return true;
}

/** Gaussian noise for the exact accountant (docs/math.md §4, §8). */
export const gaussianKernel: NoiseKernel = {
  logDensity: (z, s) => -(z * z) / (2 * s * s) - Math.log(s) - LOG_SQRT_2PI,
  plainLip: (far, s) => far / (s * s),
  mixtureLogDensity: (m, s, ys) => gaussianMoments(m, s, ys, false),
  panelErrors,
  domain: gaussianDomain,
  // The trapezoidal rule where a strip free of zeros is tall enough, else the grid rule. On small
  // supports the grid rule alone: there both are fast, and the trapezoid often declines (atoms
  // further apart than σ; on the Figure 1 grid a quarter of the calls), costing its samples.
  // Over an interval (a truncated release) the grid rule alone: the trapezoid's error bound is the whole line's.
  renyiOnePass: (P, Q, alpha, s, rtol, both, _quick, interval) =>
    interval
      ? gaussianGridRule(P, Q, alpha, s, rtol, both, interval)
      : ((trapezoidMayCertify(P, Q, alpha, s) ? gaussianTrapezoidRule(P, Q, alpha, s, rtol, both) : null) ?? gaussianGridRule(P, Q, alpha, s, rtol, both)),
  onePassIntervals: true,
  // The integrand has no kinks: breakpoints are thinned to at least 4σ apart (dense atoms share panels).
  panelEnds: (pts, s) => {
    if (pts.length === 0) return pts;
    const kept = [pts[0]];
    for (let i = 1; i < pts.length; i++) if (pts[i] - kept[kept.length - 1] >= 4 * s || i === pts.length - 1) kept.push(pts[i]);
    return Float64Array.from(kept);
  },
  firstPanel: (s, sharp) => s / Math.sqrt(sharp),
  // σ/√α: wide enough to span dense atoms, narrow enough that most certificates pass in the first
  // round (on 10⁴ dense atoms: 17 180 → 13 347 panels evaluated, 1.6× faster than geometric from σ/√α).
  evenPanel: (s, sharp) => s / Math.sqrt(sharp),
  logTailAbove: gaussianLogTail,
};

/**
 * log P(N > d) ≤ min(log ½ − z²/2, log φ(z)/z) for z = d/σ (Chernoff; Mills' ratio), z shrunk by
 * 4u for the roundings of d and d/σ, and the result raised by a relative 10⁻⁹ for its own.
 */
function gaussianLogTail(d: number, s: number): number {
  const z = (d / s) * (1 - 4 * U);
  if (!(z > 0)) return 0;
  const b = Math.min(-Math.LN2 - 0.5 * z * z, logMills(z));
  return b === -Infinity ? b : Math.min(0, b + 1e-9 * Math.abs(b) + 1e-15);
}
