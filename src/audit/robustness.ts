import { checkSetting, checkRobustnessSettings } from '../settings.js';
import type { Mechanism } from '../calibrate/rules.js';
import type { Scenario } from '../distribution/scenario.js';
import { pairCouplings } from '../coupling/pairs.js';
import { checkContamination } from '../calibrate/contamination.js';
import type { Cost, Eta } from '../conditions/costs.js';
import { discreteRenyi, exactRenyi } from '../divergence/exactRenyi.js';
import { exactDInf } from '../mechanisms/kernels.js';
import { mechanismNoise } from '../calibrate/mechanismNoise.js';
import { InputError } from '../errors.js';
import { checkContaminationFor, mechanismDef, noiseOptions } from '../mechanisms/registry.js';
import { EPS } from '../numerics/float.js';

export interface RobustnessSettings {
  mechanism: Mechanism;
  scale: number;
  alpha: number;
  epsilon: number;
  domain: [number, number];
  /** λ values to report (default 0, 0.001, 0.01, 0.1, 1). */
  lambdas?: number[];
  cost?: Cost;
  eta?: Eta;
}

/** The guarantee at a scale as a function of the contamination λ, and the largest λ that keeps ε. */
export interface RobustnessReport {
  /** The certified D_α bound for the class within λ, maximised over priors and pairs. */
  rows: { lambda: number; divergence: number; slack: number }[];
  /** The largest λ whose class still meets ε (0 when even λ = 0 does not; 1 when all do). */
  largestLambda: number;
  /** The (prior, pair) binding at the largest λ asked for, and its groups' sizes. */
  binding: { prior: string; pair: [string, string]; counts: [number, number] } | null;
  /** Set when a group of fewer than 30 counts is behind the binding pair. */
  warning: string | null;
}

/** Smallest group the class trusts without comment. */
const SMALL_GROUP = 30;

/**
 * The guarantee at a given scale as a function of the contamination λ (docs/math.md §10): for each
 * pair the exact D_α of the outputs (certified; the data's own divergence where the quadrature
 * cannot certify), then max(D, 1/(α−1)·log((1−λ)e^{(α−1)D} + λe^{(α−1)ρ})) with ρ the noise's
 * divergence across the domain. The largest λ is found by bisection on this monotone bound,
 * keeping the feasible end.
 * @example robustnessFinite(builtinScenario('heart'), { mechanism: 'laplace', scale: 1, alpha: 2, epsilon: 1, domain: [0, 6.2] }).largestLambda
 */
export function robustnessFinite(scenario: Scenario, s: RobustnessSettings): RobustnessReport {
  checkRobustnessSettings(s);
  checkSetting('epsilon', s.epsilon);
  checkContamination({ lambda: 0, domain: s.domain }, scenario);
  checkContaminationFor(s.mechanism);
  const outside = mechanismDef(s.mechanism).alphaRange(s.alpha);
  if (outside) throw new InputError(outside, 'alpha');
  const noise = mechanismNoise(s, s.scale);
  const r = mechanismDef(s.mechanism).pointDivergence(s.domain[1] - s.domain[0], s.scale, s.alpha, noiseOptions(s));
  const rho = r.value + r.error;
  const ordered = scenario.ordered ?? false;
  const pairs = pairCouplings(scenario).map((pc) => {
    let D = 0;
    for (const [a, b] of ordered
      ? [[pc.p, pc.q]]
      : [
          [pc.p, pc.q],
          [pc.q, pc.p],
        ]) {
      const e = s.alpha === Infinity ? (exactDInf(noise, a, b) ?? { value: Infinity, error: 0 }) : exactRenyi(a, b, noise, s.alpha);
      const data = discreteRenyi(a, b, s.alpha);
      const bound = Number.isFinite(e.error) ? e.value + e.error : Infinity;
      D = Math.max(D, Math.min(bound, data.value + data.error, rho));
    }
    return {
      prior: pc.prior,
      pair: [pc.pair[0], pc.pair[1]] as [string, string],
      D,
      counts: [Number(pc.p.denominator), Number(pc.q.denominator)] as [number, number],
    };
  });
  return robustnessFrom(pairs, rho, s);
}

/**
 * The report from each pair's certified bound D on the class's D_α (both directions) and ρ, the
 * noise's divergence across the domain (docs/math.md §10): the contaminated bound per λ, the
 * largest λ within ε by bisection (feasible end kept), and the binding pair's group sizes.
 */
export function robustnessFrom(
  pairs: { prior: string; pair: [string, string]; D: number; counts: [number, number] }[],
  rho: number,
  s: { alpha: number; epsilon: number; lambdas?: number[] },
): RobustnessReport {
  const level = (D: number, lambda: number) => {
    if (lambda === 0) return D;
    // Mass moved where the noise has no finite divergence (ρ = ∞): unbounded, never a NaN that compares false.
    if (!(rho < Infinity)) return Infinity;
    if (s.alpha === Infinity) return Math.max(D, rho);
    const a = s.alpha - 1;
    const x = Math.log1p(-lambda) + a * D,
      y = Math.log(lambda) + a * rho;
    const m = Math.max(x, y);
    const f = (m + Math.log(Math.exp(x - m) + Math.exp(y - m))) / a;
    const mag = (t: number) => (Number.isFinite(t) ? Math.abs(t) : 0);
    // The rounding charged upwards on the level whatever the sign of α − 1.
    return Math.max(D, f + (16 * EPS * (mag(x) + mag(y) + 1)) / Math.abs(a));
  };
  const worst = (lambda: number) => pairs.reduce((w, p) => (level(p.D, lambda) > w.v ? { v: level(p.D, lambda), p } : w), { v: -Infinity, p: pairs[0] });
  const lambdas = s.lambdas ?? [0, 0.001, 0.01, 0.1, 1];
  const rows = lambdas.map((lambda) => {
    if (!(lambda >= 0 && lambda <= 1)) throw new InputError(`λ must be in [0, 1], got ${lambda}`, 'contamination');
    const v = worst(lambda).v;
    return { lambda, divergence: v, slack: s.epsilon - v };
  });
  let largestLambda: number;
  if (worst(0).v > s.epsilon) largestLambda = 0;
  else if (worst(1).v <= s.epsilon) largestLambda = 1;
  else {
    let lo = 0,
      hi = 1;
    for (let k = 0; k < 60; k++) {
      const mid = (lo + hi) / 2;
      if (worst(mid).v <= s.epsilon) lo = mid;
      else hi = mid;
    }
    largestLambda = lo;
  }
  const top = worst(lambdas[lambdas.length - 1] ?? 0).p;
  const binding = top ? { prior: top.prior, pair: top.pair, counts: top.counts } : null;
  const small = binding && Math.min(...binding.counts) < SMALL_GROUP;
  return {
    rows,
    largestLambda,
    binding,
    warning:
      small && binding
        ? `the binding pair rests on a group of ${Math.min(...binding.counts)} (fewer than ${SMALL_GROUP}): its conditional is a thin estimate, and the guarantee is only as good as the class built on it`
        : null,
  };
}
