import { dataZero, exactEvaluation, exactProblem } from '../conditions/exact.js';
import { InputError } from '../errors.js';
import { isNotApplicable, notApplicable, type CalibrationRule, type NotApplicable, type RuleContext } from './mechanism.js';
import { isFeasible, smallestFeasibleScale, type ScaleProblem } from '../numerics/smallestScale.js';

/** A check's first, cheaper exact evaluation: a looser certified error, fewer nodes (the full one follows where it fails). */
const QUICK = { quick: true, rtol: 1e-6 };

/**
 * `exact` for any family with an exact accountant: the exact divergence searched below a scale it
 * certifies (`exactProblem`), falling back on the tightest certified bound of the pair (the other
 * rules that apply: coupled for α > 1, else Proposition 1 / the W∞ mechanism), docs/math.md §4.
 */
export function exactRule(ctx: RuleContext): CalibrationRule | NotApplicable {
  const noise = ctx.accountant;
  if (isNotApplicable(noise)) return noise;
  if (ctx.releases > 1)
    return notApplicable(
      `exact accounting of ${ctx.releases} releases of this noise would need a ${ctx.releases}-dimensional integral; coupled is the tightest certified bound here`,
    );
  const bounds = ctx.bounds();
  return {
    rule: 'exact Rényi accountant (docs/math.md §4)',
    condition: `exact ${ctx.alpha === Infinity ? 'sup log p/q' : 'D_α(P_Y‖Q_Y)'} + error ≤ ε`,
    problem(pc, ordered) {
      // The tightest certified bound: solved only if the exact search needs it.
      const bound = () => {
        let best: { problem: ScaleProblem; scale: number } | null = null;
        for (const b of bounds) {
          const pr = b.problem(pc, ordered);
          if ('zero' in pr) return pr;
          const scale = smallestFeasibleScale(pr).scale;
          if (!best || scale < best.scale) best = { problem: pr, scale };
        }
        if (!best) throw new InputError('no certified bound applies', 'method');
        return best;
      };
      return exactProblem({ p: pc.p, q: pc.q, noise, alpha: ctx.alpha, epsilon: ctx.epsilon, ordered, bound });
    },
    // The data's own divergence certifies the pair at every scale (data processing: no noise needed);
    // else the exact divergence at one scale does there, whatever the pair's own search would use.
    noNoise: (pc, ordered) => dataZero(pc.p, pc.q, ctx.alpha, ctx.epsilon, ordered)?.zero ?? null,
    holdsAt: (pc, ordered, scale) =>
      isFeasible(exactEvaluation(pc.p, pc.q, noise(scale), ctx.alpha, ctx.epsilon, ordered, QUICK)) ||
      isFeasible(exactEvaluation(pc.p, pc.q, noise(scale), ctx.alpha, ctx.epsilon, ordered)),
  };
}
