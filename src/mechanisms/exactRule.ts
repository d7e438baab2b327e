import { dataZero, exactEvaluation, exactProblem } from '../conditions/exact.js';
import { InputError } from '../errors.js';
import {
  isNotApplicable,
  notApplicable,
  planeOrder,
  planeWithin,
  type CalibrationRule,
  type NoNoise,
  type NotApplicable,
  type ProductNoise,
  type RuleContext,
} from './mechanism.js';
import { isFeasible, smallestFeasibleScale, type Evaluation, type ScaleProblem } from '../numerics/smallestScale.js';
import { centred } from '../divergence/exactRenyi.js';
import { bracketPredict } from '../numerics/bracket.js';
import { EPS } from '../numerics/float.js';
import { worseOf } from '../numerics/logExpectation.js';
import type { PairCoupling } from '../coupling/pairs.js';
import type { Discrete } from '../distribution/discrete.js';

/** A check's first, cheaper exact evaluation: a looser certified error, fewer nodes (the full one follows where it fails). */
const QUICK = { quick: true, rtol: 1e-6 };

/**
 * Exact evaluations a check keeps at its scale, to certify pairs whose laws are near theirs: the
 * pairs are checked spread out (`spreadOrder`), so a long chain's neighbours in time come a few
 * dozen checks apart (docs/benchmarks.md: 8 → 32 halved the Gaussian evaluations on Seattle's year).
 */
const NEIGHBOURS = 32;

/** A pair evaluated exactly at `scale`: its laws and the certified upper bound of its worst direction. */
interface Evaluated {
  p: Discrete;
  q: Discrete;
  scale: number;
  level: number;
}

/**
 * max over atoms of log(a(x)/b(x)), a's support within b's (else ∞), rounded up: a ≤ e^δ·b pointwise,
 * so the outputs too (A_Y = Σ a(x)·f(y − x) ≤ e^δ·B_Y).
 */
function logRatioUp(a: Discrete, b: Discrete): number {
  let j = 0,
    top = 0;
  // The largest ratio first and one logarithm of it: log and r ↦ r + 4ε(1 + |r|) are increasing,
  // so this is the largest of the per-atom bounds (never below 0).
  for (let i = 0; i < a.values.length; i++) {
    if (!(a.masses[i] > 0)) continue;
    while (j < b.values.length && b.values[j] < a.values[i]) j++;
    if (j === b.values.length || b.values[j] !== a.values[i] || !(b.masses[j] > 0)) return Infinity;
    const ratio = a.masses[i] / b.masses[j];
    if (ratio > top) top = ratio;
  }
  if (top === 0) return 0;
  const r = Math.log(top);
  return Math.max(0, r + 4 * Number.EPSILON * (1 + Math.abs(r)));
}

/**
 * A certified bound on a pair's level from a pair evaluated at the same scale (docs/math.md §4,
 * "Near pairs"): with p ≤ e^{δp}·p′ and q ≥ e^{−δq}·q′ pointwise, ∫p^α q^{1−α} ≤ e^{αδp + (α−1)δq}·∫p′^α q′^{1−α}
 * for α > 1, so D_α(P‖Q) ≤ D_α(P′‖Q′) + (αδp + (α−1)δq)/(α − 1); likewise the other direction.
 * A long chain's secret times have nearly the same laws: one exact evaluation then certifies many.
 */
export function nearBound(e: Evaluated, p: Discrete, q: Discrete, alpha: number, ordered: boolean): number {
  const shift = (a: Discrete, a0: Discrete, b: Discrete, b0: Discrete) => (alpha * logRatioUp(a, a0) + (alpha - 1) * logRatioUp(b0, b)) / (alpha - 1);
  const worst = Math.max(shift(p, e.p, q, e.q), ordered ? 0 : shift(q, e.q, p, e.p));
  const level = e.level + worst;
  return level + 4 * Number.EPSILON * Math.abs(level);
}

/**
 * The pairs evaluated exactly at the scale last checked (up to `NEIGHBOURS`), which certify at that
 * scale a pair whose laws are near one of theirs (`nearBound`; α > 1 finite only, where the bound
 * needs q^{1−α} falling in q). Any check whose outputs are Σ_x P(x)·g_x with g_x the same for both
 * laws may use it (the truncated release too).
 */
export function nearPairs(alpha: number, epsilon: number) {
  const on = alpha > 1 && alpha < Infinity;
  const near: Evaluated[] = [];
  return {
    remember(pc: Pick<PairCoupling, 'p' | 'q'>, scale: number, e: Evaluation): void {
      if (!on || !isFeasible(e)) return;
      if (near.length && near[0].scale !== scale) near.length = 0;
      near.unshift({ p: pc.p, q: pc.q, scale, level: e.value + e.error });
      if (near.length > NEIGHBOURS) near.pop();
    },
    holds: (pc: Pick<PairCoupling, 'p' | 'q'>, ordered: boolean, scale: number): boolean =>
      on && near.some((e) => e.scale === scale && nearBound(e, pc.p, pc.q, alpha, ordered) <= epsilon),
  };
}

/** The tightest of the other rules' conditions for a pair, solved (its problem and certified scale), or no noise. */
function tightest(bounds: readonly CalibrationRule[], pc: PairCoupling, ordered: boolean): NoNoise | { problem: ScaleProblem; scale: number } {
  let best: { problem: ScaleProblem; scale: number } | null = null;
  for (const b of bounds) {
    const pr = b.problem(pc, ordered);
    if ('zero' in pr) return pr;
    const scale = smallestFeasibleScale(pr).scale;
    if (!best || scale < best.scale) best = { problem: pr, scale };
  }
  if (!best) throw new InputError('no certified bound applies', 'method');
  return best;
}

/**
 * `exact` for any family with an exact accountant: the exact divergence searched below a scale it
 * certifies (`exactProblem`), falling back on the tightest certified bound of the pair (the other
 * rules that apply: coupled for α > 1, else Proposition 1 / the W∞ mechanism), docs/math.md §4.
 */
export function exactRule(ctx: RuleContext, plane?: Plane): CalibrationRule | NotApplicable {
  const noise = ctx.accountant;
  if (isNotApplicable(noise)) return noise;
  if (ctx.releases === 2 && plane && planeOrder(ctx.alpha)) return diagonalRule(ctx, plane);
  if (ctx.releases > 1)
    return notApplicable(
      `exact accounting of ${ctx.releases} releases of this noise would need a ${ctx.releases}-dimensional integral; coupled is the tightest certified bound here`,
    );
  const bounds = ctx.bounds();
  const near = nearPairs(ctx.alpha, ctx.epsilon);
  return {
    rule: 'exact Rényi accountant (docs/math.md §4)',
    condition: `exact ${ctx.alpha === Infinity ? 'sup log p/q' : 'D_α(P_Y‖Q_Y)'} + error ≤ ε`,
    problem(pc, ordered) {
      // The tightest certified bound: solved only if the exact search needs it.
      const bound = () => tightest(bounds, pc, ordered);
      return exactProblem({ p: pc.p, q: pc.q, noise, alpha: ctx.alpha, epsilon: ctx.epsilon, ordered, bound });
    },
    // The data's own divergence certifies the pair at every scale (data processing: no noise needed);
    // else the exact divergence at one scale does there, whatever the pair's own search would use.
    noNoise: (pc, ordered) => dataZero(pc.p, pc.q, ctx.alpha, ctx.epsilon, ordered)?.zero ?? null,
    holdsAt: (pc, ordered, scale) => {
      if (near.holds(pc, ordered, scale)) return true;
      for (const opts of [QUICK, undefined]) {
        const e = exactEvaluation(pc.p, pc.q, noise(scale), ctx.alpha, ctx.epsilon, ordered, opts);
        near.remember(pc, scale, e);
        if (isFeasible(e)) return true;
      }
      return false;
    },
  };
}

/** A family's exact accountant on ℝ² (`ProductNoise.exact2d`). */
type Plane = NonNullable<ProductNoise['exact2d']>;

/**
 * D_α of two releases of one value, at scales b = (b₁, b₂), as a condition ≤ ε: the law of (x, x)
 * under independent noise is a law on the diagonal of ℝ², exact there (docs/math.md §9, §12); both
 * directions unless `ordered`, the worse one; null where the rule declines.
 */
export function diagonalEvaluation(
  plane: Plane,
  p: Discrete,
  q: Discrete,
  b: [number, number],
  alpha: number,
  epsilon: number,
  ordered: boolean,
): Evaluation | null {
  if (!diagonalWithin(p, q, alpha)) return null;
  const [P, Q] = centred([p, q]).mixtures.map((m) => ({ a: m.x, c: m.x, logw: m.logw }));
  const r = plane(P, Q, alpha, b, !ordered);
  if (!r) return null;
  const levels = r.map((x) => {
    const value = x.value / (alpha - 1);
    return { value, error: x.error / Math.abs(alpha - 1) + 2 * EPS * Math.abs(value) };
  });
  return { ...worseOf(levels), target: epsilon, sense: 'le' };
}

/** Whether the exact rule on ℝ² takes two releases of these laws (their distinct values on each axis). */
const diagonalWithin = (p: Discrete, q: Discrete, alpha: number): boolean => planeWithin(new Set([...p.values, ...q.values]).size ** 2, alpha);

/**
 * `exact` for two releases of one value (α > 1 finite, a family with an exact accountant on ℝ²): the
 * diagonal's exact divergence at (b, b), searched below the tightest other bound's scale (any
 * certified bound is at least the exact divergence, so its scale meets this condition).
 */
function diagonalRule(ctx: RuleContext, plane: Plane): CalibrationRule {
  const bounds = ctx.bounds();
  const at =
    (pc: Pick<PairCoupling, 'p' | 'q'>, ordered: boolean) =>
    (s: number): Evaluation =>
      diagonalEvaluation(plane, pc.p, pc.q, [s, s], ctx.alpha, ctx.epsilon, ordered) ?? { value: Infinity, error: 0, target: ctx.epsilon, sense: 'le' };
  return {
    rule: 'exact Rényi accountant on ℝ², two releases (docs/math.md §9, §12)',
    condition: 'exact D_α(P_{Y₁Y₂}‖Q_{Y₁Y₂}) + error ≤ ε',
    problem(pc, ordered) {
      const t = tightest(bounds, pc, ordered);
      if ('zero' in t) return t;
      if (!diagonalWithin(pc.p, pc.q, ctx.alpha))
        return { ...t.problem, note: 'Exact on ℝ² left out here (distinct values² × (2α − 1)² above 2.7·10⁶): the tightest other bound.' };
      // Where the rule declines at the tightest bound's scale (its work, docs/math.md §12), it would
      // decline below it too: that bound stands, rather than a search climbing to where it runs.
      const first = diagonalEvaluation(plane, pc.p, pc.q, [t.scale, t.scale], ctx.alpha, ctx.epsilon, ordered);
      if (!first) return { ...t.problem, note: 'Exact on ℝ² declined at the tightest other bound’s scale (its work there too large): that bound.' };
      const evaluate = (s: number) => (s === t.scale ? first : at(pc, ordered)(s));
      return { evaluate, ...bracketPredict(evaluate, t.scale), logLog: true, rtol: 1e-10 };
    },
    noNoise: (pc, ordered) => dataZero(pc.p, pc.q, ctx.alpha, ctx.epsilon, ordered)?.zero ?? null,
    holdsAt: (pc, ordered, scale) => isFeasible(at(pc, ordered)(scale)),
  };
}
