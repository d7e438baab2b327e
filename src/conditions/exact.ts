import type { Discrete } from '../distribution/discrete.js';
import { discreteRenyi, exactRenyi, exactRenyiBoth, type ExactOptions } from '../divergence/exactRenyi.js';
import { exactDInf, exactDInfBoth, shiftDivergence } from '../mechanisms/kernels.js';
import type { Noise } from '../divergence/kernel.js';
import { bracketPredict } from '../numerics/bracket.js';
import { isFeasible, type Evaluation, type ScaleProblem } from '../numerics/smallestScale.js';
import { precisionUp } from '../numerics/decimal.js';

/**
 * Quadrature accuracy for calibration: the search stops at a relative scale width of 1e-10, so
 * integrals certified to 1e-10 (not the library default 1e-12) cost fewer panels and move the
 * answer by ~1e-10 relative at most — always upwards, since the larger error is charged.
 */
const CALIBRATION_RTOL = 1e-10;

/** Atoms in a pair up to which the search starts from the certified bounds (see `exactProblem`). */
const SMALL_SUPPORT = 4096;

/** The exact divergence as a condition at one scale: max over the directions that must hold. */
export function exactEvaluation(p: Discrete, q: Discrete, noise: Noise, alpha: number, epsilon: number, ordered: boolean, opts?: ExactOptions): Evaluation {
  const dirs: [Discrete, Discrete][] = ordered
    ? [[p, q]]
    : [
        [p, q],
        [q, p],
      ];
  let value = -Infinity,
    error = 0;
  // Both directions on one panel set (each mixture evaluated once per node).
  const both =
    ordered || opts?.interval
      ? null
      : alpha === Infinity
        ? exactDInfBoth(noise, p, q)
        : exactRenyiBoth(p, q, noise, alpha, { rtol: CALIBRATION_RTOL, ...opts });
  for (const [k, [a, b]] of dirs.entries()) {
    const d = both
      ? both[k]
      : alpha === Infinity
        ? (exactDInf(noise, a, b) ?? { value: Infinity, error: 0 })
        : exactRenyi(a, b, noise, alpha, { rtol: CALIBRATION_RTOL, ...opts });
    // A direction without a certificate (error ∞; value −∞ where the integral underflowed, so
    // value + error is NaN and no comparison holds) bounds nothing: the evaluation is
    // uncertified, never the other direction's number nor the initial −∞ (docs/math.md §8).
    if (!(d.error < Infinity) || !(d.value > -Infinity) || Number.isNaN(d.value + d.error))
      return { value: Infinity, error: Infinity, target: epsilon, sense: 'le' };
    if (d.value + d.error > value + error) {
      value = d.value;
      error = d.error;
    }
  }
  return { value, error, target: epsilon, sense: 'le' };
}

export interface ExactProblemInput {
  p: Discrete;
  q: Discrete;
  /** The noise at a mechanism scale (Laplace b, Gaussian σ; b = 1/η(θ) for the exponential mechanism). */
  noise: (s: number) => Noise;
  alpha: number;
  epsilon: number;
  ordered: boolean;
  /**
   * The tightest certified sufficient condition (e.g. `coupled`) and its solved scale, computed only
   * when the exact check cannot certify the quasi-convexity start (then that scale stands).
   */
  bound: () => { problem: ScaleProblem; scale: number } | { zero: string };
}

/**
 * A scale where D_α of the outputs is at most ε whatever the atoms' weights: by joint
 * quasi-convexity of Rényi divergence [van Erven & Harremoës 2014, Thm 13], coupling the two laws
 * atom by atom, D_α(P_Y‖Q_Y) ≤ max over atom pairs of D_α between shifted noises ≤ span/b (Laplace,
 * via D∞) or α·span²/2σ² (Gaussian), span = the spread of all atoms. Found on powers of 2 of the
 * mechanism scale. Only a starting point: the exact check must certify it before it is used.
 */
function quasiConvexScale(p: Discrete, q: Discrete, noise: (s: number) => Noise, alpha: number, epsilon: number): number | null {
  const lo = Math.min(p.values[0], q.values[0]),
    hi = Math.max(p.values[p.values.length - 1], q.values[q.values.length - 1]);
  const span = hi - lo;
  const bound = (s: number) => {
    return shiftDivergence(noise(s), span, alpha);
  };
  if (!(span > 0) || !(epsilon > 0) || !Number.isFinite(span)) return null;
  let s = 1;
  for (let k = 0; k < 2100 && !(bound(s) <= epsilon); k++) s *= 2;
  if (!(bound(s) <= epsilon)) return null;
  for (let k = 0; k < 2100 && bound(s / 2) <= epsilon && s / 2 > 0; k++) s /= 2;
  return s;
}

/** D_α(P_X‖Q_X) of the data itself in each required direction, with its error. */
const dataDivergences = (p: Discrete, q: Discrete, alpha: number, ordered: boolean) => [
  discreteRenyi(p, q, alpha),
  ...(ordered ? [] : [discreteRenyi(q, p, alpha)]),
];

/**
 * Why the pair needs no noise when the data itself meets ε in every required direction, its error
 * charged (then any noise does: data processing); null otherwise.
 * @example dataZero(fromCounts([0, 1], [1, 1]), fromCounts([0, 1], [1, 1]), 2, 1, false)?.zero // 'data processing: …'
 */
export function dataZero(p: Discrete, q: Discrete, alpha: number, epsilon: number, ordered: boolean): { zero: string } | null {
  const worst = dataDivergences(p, q, alpha, ordered).reduce((a, b) => (b.value + b.error > a.value + a.error ? b : a));
  return worst.value + worst.error <= epsilon
    ? { zero: `data processing: D_α(P_X‖Q_X) = ${precisionUp(worst.value, 6)} ≤ ε for the data itself, so Y = X already meets the budget` }
    : null;
}

/**
 * `exact` calibration (docs/math.md §4, derived): the smallest scale whose exact D_α (with its error
 * bound charged) is ≤ ε in every required direction. D_α of the outputs is non-increasing in the
 * scale (Gaussian: N(σ₂²) = N(σ₁²) + N(σ₂²−σ₁²); Laplace: Lap(b₂) = Lap(b₁) + Z with Z = 0 w.p.
 * (b₁/b₂)², else Lap(b₂); then data processing), so a bracketing search is valid.
 *
 * On large supports the search starts from the quasi-convexity scale (`quasiConvexScale`) once the
 * exact check has certified it there, and runs below it; the certified bounds (`bound`, e.g.
 * coupled, whose coupling can cost more than the search) are computed only when it has not. On
 * small supports (≤ 4096 atoms in the pair) it starts from the bounds, which are cheap there.
 * Where the exact check cannot certify even the bound's scale (quadrature error where exact = bound, e.g. point masses), the
 * bound's scale is kept on the bound's own certificate. Returns `zero` when the data alone already
 * meets ε (data processing).
 */
export function exactProblem(i: ExactProblemInput): ScaleProblem | { zero: string } {
  const zero = dataZero(i.p, i.q, i.alpha, i.epsilon, i.ordered);
  if (zero) return zero;
  // The search, the driver's re-check and the reported check all evaluate the final scale (and the
  // bracket ends twice): each exact evaluation is a quadrature, so recent ones are remembered.
  const recent = new Map<number, Evaluation>();
  const evaluate = (s: number): Evaluation => {
    const hit = recent.get(s);
    if (hit) return hit;
    const n = i.noise(s);
    const e = exactEvaluation(i.p, i.q, n, i.alpha, i.epsilon, i.ordered);
    if (recent.size >= 8) recent.delete(recent.keys().next().value!);
    recent.set(s, e);
    return e;
  };
  // Small supports: the certified bounds cost next to nothing there and start the search nearer
  // the answer (fewer quadratures); on large ones their coupling costs more than the search saves.
  const small = i.p.values.length + i.q.values.length <= SMALL_SUPPORT;
  const start = small ? null : quasiConvexScale(i.p, i.q, i.noise, i.alpha, i.epsilon);
  if (start !== null && isFeasible(evaluate(start))) return { evaluate, ...bracketPredict(evaluate, start), rtol: 1e-10, logLog: true };
  const b = i.bound();
  if ('zero' in b) return b;
  const { problem: certified, scale: certifiedScale } = b;
  // Where the exact check cannot certify even the bound's scale (exact ≈ bound, e.g. point
  // masses), keep the bound's scale on the bound's own certificate.
  const atBound = evaluate(certifiedScale);
  if (!isFeasible(atBound)) {
    const why = Number.isFinite(atBound.error)
      ? `its certified error (${atBound.error.toPrecision(3)}) leaves no room below ε there`
      : 'no certified error bound was reached there (docs/math.md §8)';
    return {
      ...certified,
      lower: certifiedScale,
      upper: certifiedScale,
      note: `The exact accountant could not certify a scale below the tightest sufficient condition (${why}), so that condition's own scale stands.`,
    };
  }
  // A predicted bracket (each quadrature is costly): exact D_α falls with the scale like a power law.
  return { evaluate, ...bracketPredict(evaluate, certifiedScale), rtol: 1e-10, logLog: true };
}
