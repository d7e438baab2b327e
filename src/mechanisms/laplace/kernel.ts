import { log2x } from '../../numerics/float.js';
import type { Domain, DomainInput, Integrand, NoiseKernel, PowerIntegrand } from '../../divergence/kernel.js';
import { logAddExp, U, type BoundedLogDensity, type Mixture } from '../../divergence/mixture.js';
import type { Bounded } from '../../numerics/logExpectation.js';
import { laplacePanelError } from './certificate.js';
import { laplaceGapRule } from './gapRule.js';
import { laplaceHalves } from './sweeps.js';

function laplaceLogDensity(m: Mixture, b: number, ys: Float64Array): BoundedLogDensity {
  const { L, R, err } = laplaceHalves(m, b, ys);
  const ld = new Float64Array(ys.length);
  for (let i = 0; i < ys.length; i++) {
    ld[i] = logAddExp(L[i], R[i]);
    err[i] += 4 * U * (2 + Math.abs(ld[i]) + Math.abs(L[i] === -Infinity ? R[i] : L[i]));
  }
  return { ld, err, lip: new Float64Array(ys.length).fill(1 / b) };
}

/**
 * Laplace panel certificates: each mixture in gap form L·e^{−z/b} + R·e^{z/b} at the panel centre
 * (`laplaceHalves`), bounded on the Bernstein ellipse in closed form (`certificate.ts`).
 */
function panelErrors(fs: PowerIntegrand[], s: number, a: number[], b: number[], _plain: boolean, enough?: Float64Array): Float64Array[] {
  const n = a.length;
  const cs = Float64Array.from(a, (x, i) => (x + b[i]) / 2);
  const all = new Map<Mixture, ReturnType<typeof laplaceHalves>>();
  for (const m of new Set(fs.flatMap((f) => f.mixtures))) all.set(m, laplaceHalves(m, s, cs));
  return fs.map((f) => {
    const halves = f.mixtures.map((m) => all.get(m)!);
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const L = halves.map((hv) => hv.L[i]),
        R = halves.map((hv) => hv.R[i]);
      let e = 0;
      for (const hv of halves) e = Math.max(e, hv.err[i]);
      // The halves' rounding moves log M by at most Σ|a_k|·e: charged on top.
      const charge = f.sensitivity * e;
      out[i] = laplacePanelError(f.powers, L, R, s, (b[i] - a[i]) / 2, enough ? enough[i] - charge : -Infinity) + charge;
    }
    return out;
  });
}

/**
 * Beyond the outer atoms the integrand is e^{h(z)}·e^{−|y−z|/s}: each tail inside [LO, HI] is
 * integrated in closed form, so nothing is cut off. log(e^u − e^v) = u + log(−expm1(v − u)), v < u ≤ 0.
 */
function domain(_f: Integrand, { z0, zN, LO, HI, scale: s, atEnds }: DomainInput): Domain {
  const ends = atEnds();
  const piece = (hz: number, u: number, v: number) => (v < u ? hz + Math.log(s) + u + Math.log(-Math.expm1(v - u)) : -Infinity);
  const left = piece(ends.h[0], (Math.min(HI, z0) - z0) / s, (LO - z0) / s);
  const right = piece(ends.h[1], -(Math.max(LO, zN) - zN) / s, -(HI - zN) / s);
  const round = (x: number, e: number) => x + Math.log(Math.expm1(e) + 16 * U);
  return {
    lo: Math.max(z0, LO),
    hi: Math.min(zN, HI),
    breaks: [],
    tails: { logValue: logAddExp(left, right), logBound: -Infinity, logRound: logAddExp(round(left, ends.err[0]), round(right, ends.err[1])) },
  };
}

/**
 * log P(Y ∈ [lo, hi]) for Y = X + Laplace(b), in closed form (docs/math.md §5): an atom x left of
 * the interval lands in it with chance ½e^{−(lo−x)/b}(1 − e^{−(hi−lo)/b}) (right of it likewise),
 * one inside with ½(1 − e^{−(x−lo)/b}) + ½(1 − e^{−(hi−x)/b}) (no cancellation: both terms ≥ 0).
 * Each difference of doubles is within an ulp of the true one, so an exponent d is within 2u·d and
 * 1 − e^{−t} within 3u relative (t·e^{−t}/(1 − e^{−t}) ≤ 1); the log-sum adds 4u per term.
 */
function laplaceLogMassIn(m: Mixture, b: number, [lo, hi]: readonly [number, number]): Bounded {
  const g = hi - lo === Infinity ? 0 : Math.log(-Math.expm1(-(hi - lo) / b));
  let value = -Infinity,
    worst = 0,
    terms = 0;
  for (let k = 0; k < m.x.length; k++) {
    if (m.logw[k] === -Infinity) continue;
    const x = m.x[k];
    let l: number, e: number;
    if (x <= lo || x >= hi) {
      const d = (x <= lo ? lo - x : x - hi) / b;
      [l, e] = [-Math.LN2 - d + g, 2 * U * d + 8 * U];
    } else [l, e] = [Math.log(-0.5 * Math.expm1(-(x - lo) / b) - 0.5 * Math.expm1(-(hi - x) / b)), 12 * U];
    value = logAddExp(value, m.logw[k] + l);
    worst = Math.max(worst, e + 2 * U * (1 + Math.abs(m.logw[k])));
    terms++;
  }
  return { value, error: worst + (4 * terms + 8) * U * (1 + Math.abs(value)) };
}

/** Laplace noise for the exact accountant (docs/math.md §4, §8). Panels never straddle an atom (kinks). */
export const laplaceKernel: NoiseKernel = {
  logDensity: (z, s) => -Math.abs(z) / s - log2x(s),
  plainLip: (_far, s) => 1 / s,
  mixtureLogDensity: laplaceLogDensity,
  panelErrors,
  domain,
  panelEnds: (pts) => pts,
  // s/α at large α: wide enough that a gap of a few b is one to three panels, narrow enough for the
  // p^α spike at an atom (a 1.5× faster quadrature on 10⁴-atom supports than s/2α, same results to 4e-10).
  firstPanel: (s, sharp) => s / sharp,
  renyiOnePass: laplaceGapRule,
  onePassIntervals: true,
  logMassIn: laplaceLogMassIn,
};
