import { checkSetting } from '../settings.js';
import { coordinateWeights, dimensionOf } from '../distribution/points.js';
import { userRecord } from '../records.js';
import { IDENTICAL, noiseVariance } from './result.js';
import type { BoxContamination, CalibrationKind, PointSettings } from './kind.js';
import { applicableMethods, calibrationRule, checkSettings, type CalibrationSettings, type Mechanism, type SingleMethod } from './rules.js';
import { priorPairs, type Scenario } from '../distribution/scenario.js';
import type { PairCoupling } from '../coupling/pairs.js';
import type { Coupling } from '../coupling/comonotone.js';
import { wInf } from '../coupling/wasserstein.js';
import type { Discrete } from '../distribution/discrete.js';
import { discreteRenyi, exactRenyi, type ExactDivergence } from '../divergence/exactRenyi.js';
import type { Noise } from '../divergence/kernel.js';
import { InputError } from '../errors.js';
import { coordinateScale, isNotApplicable, planeOrder, planeWithin, type NoNoise, type ProductNoise } from '../mechanisms/mechanism.js';
import { checkContaminationFor, checkLawsFor, mechanismDef, noiseOptions } from '../mechanisms/registry.js';
import { contaminatedProblem, robustNote, type ContaminatedProblem } from './contamination.js';
import { bracketBelow, bracketPredict } from '../numerics/bracket.js';
import { EPS, nextUp } from '../numerics/float.js';
import { logExpectationExp, type Bounded, worseOf } from '../numerics/logExpectation.js';
import { smallestFeasibleScale, type ScaleProblem } from '../numerics/smallestScale.js';
import {
  baseCoupling,
  distance,
  distances,
  largestMove,
  optimalCoupling,
  separableCosts,
  sortedCouplings,
  transportable,
  wInfPoints,
  type Norm,
} from '../coupling/points.js';
import type { PointCoupling } from '../coupling/pointCoupling.js';
import { asIdLaws, atomsOf, coord, projectedLaw, type PointLaw, type PointScenario } from '../distribution/points.js';
import { knotheCouplings } from '../coupling/knothe.js';
import { precisionUp } from '../numerics/decimal.js';
import type { Mixture2 } from '../divergence/mixture.js';

export { oneCoordinate, type BoxContamination, type PointSettings } from './kind.js';

/**
 * The noise's divergence between the box's opposite corners (docs/math.md §10, §12): what moving
 * mass anywhere in the box can add, Σ over coordinates (product noise), times N releases. Each
 * side Wᵢ/wᵢ is rounded up twice (the subtraction and the division).
 */
export function boxDivergence(
  s: Pick<CalibrationSettings, 'mechanism' | 'cost' | 'eta'>,
  box: readonly (readonly [number, number])[],
  w: readonly number[],
  scale: number,
  alpha: number,
  releases = 1,
): Bounded {
  const def = mechanismDef(s.mechanism);
  let value = 0,
    error = 0;
  box.forEach(([lo, hi], i) => {
    const r = def.pointDivergence(nextUp(nextUp((hi - lo) / w[i])), scale, alpha, noiseOptions(s));
    value += r.value;
    error += r.error + EPS * Math.abs(value);
  });
  return { value: releases * value, error: releases * error + 2 * EPS * releases * Math.abs(value) };
}

/** The contamination box (one [LO, HI] per coordinate), checked to hold every atom of every conditional. */
export function contaminationBox(c: BoxContamination, scenario: PointScenario): [number, number][] {
  checkSetting('contamination', c.lambda);
  const d = dimensionOf(scenario);
  const box = c.box ? c.box.map(([lo, hi]): [number, number] => [lo, hi]) : Array.from({ length: d }, (): [number, number] => [c.domain?.[0], c.domain?.[1]]);
  if (box.length !== d) throw new InputError(`needs one LO,HI range per coordinate (${d}), got ${box.length}`, 'domain');
  box.forEach(([lo, hi], i) => {
    if (!(Number.isFinite(lo) && Number.isFinite(hi) && lo < hi))
      throw new InputError(`coordinate ${i + 1} needs finite LO < HI, got [${lo}, ${hi}]`, 'domain');
  });
  for (const p of scenario.priors)
    for (const [secret, m] of Object.entries(p.conditionals))
      for (let k = 0; k < atomsOf(m); k++)
        for (let i = 0; i < d; i++) {
          const x = coord(m, k, i);
          if (x < box[i][0] || x > box[i][1])
            throw new InputError(
              `coordinate ${i + 1} of a value of secret '${secret}' (prior '${p.name}') is ${x}, outside [${box[i][0]}, ${box[i][1]}]; widen the domain to cover every value`,
              'domain',
            );
        }
  return box;
}

/**
 * The share of ε a vector calibration leaves unused (docs/math.md §12). An account of its release
 * (a ledger's check) solves its own transports, whose optimum matches the calibration's only to the
 * solver's tolerance — measured up to 7·10⁻¹² of ε on adult's columns, where Gaussian's `best` also
 * reads the norm form — so certifying ε(1 − 10⁻⁹) lets the release fit a budget of ε.
 */
const ACCOUNT_MARGIN = 1e-9;

/** The methods certified for d > 1 (exact too where `exactApplies`: two coordinates). */
const POINT_METHODS = ['theorem', 'pierquin', 'wasserstein-inf', 'coupled', 'exact'] as const satisfies readonly SingleMethod[];

/**
 * Why exact accounting does not apply to this vector calibration, or null where it does (docs/math.md
 * §12, "Exact in two dimensions"): two coordinates, one release, a finite order above 1, a family
 * with an exact accountant on ℝ² (Laplace). Elsewhere it would need a higher-dimensional integral.
 */
function noExact(scenario: PointScenario, s: PointSettings): string | null {
  const d = dimensionOf(scenario);
  if (d !== 2) return `exact accounting of a ${d}-dimensional release would need a ${d}-dimensional integral; it is certified for one or two coordinates`;
  if ((s.releases ?? 1) !== 1)
    return `exact accounting of ${s.releases} releases of a 2-dimensional vector would need a ${2 * s.releases!}-dimensional integral`;
  if (!planeOrder(s.alpha)) return 'exact accounting of a vector runs at orders 1 < α ≤ 64 (its work grows with α²)';
  if (!productOf(s.mechanism, 'mechanism').exact2d) return `exact accounting on ℝ² is written for Laplace noise, not ${s.mechanism}`;
  const cells = Math.max(...priorPairs(scenario).units.map(({ prior, pair: [a, b] }) => planeCells(prior.conditionals[a], prior.conditionals[b], 0, 1)));
  if (!planeWithin(cells, s.alpha))
    return `exact accounting on ℝ² takes distinct value pairs × (2α − 1)² up to 2.7·10⁶ (its work); here ${cells} pairs at α = ${s.alpha}`;
  return null;
}

/** A one-coordinate vector scenario as a scalar one (values are the coordinates themselves, unchanged). */
export function asScalar(s: PointScenario): Scenario {
  return {
    ...s,
    priors: s.priors.map((p) => ({
      ...p,
      conditionals: userRecord(
        Object.entries(p.conditionals).map(([k, m]): [string, Discrete] => {
          const order = Array.from({ length: atomsOf(m) }, (_, i) => i).sort((a, b) => m.points[a] - m.points[b]);
          return [
            k,
            {
              values: Float64Array.from(order, (i) => m.points[i]),
              masses: Float64Array.from(order, (i) => m.masses[i]),
              numerators: order.map((i) => m.numerators[i]),
              denominator: m.denominator,
            },
          ];
        }),
      ),
    })),
  };
}

/** One release of the vector: independent noise per coordinate, coordinate i at wᵢ·scale. */
export interface PointRelease {
  mechanism: Mechanism;
  scale: number;
  /**
   * The coordinates this release publishes (0-based; default all): releases of different columns
   * of the same people are accounted jointly too (docs/math.md §12).
   */
  coordinates?: readonly number[];
}

/** 0, 1, …, d − 1, made once per d (read in the pair loops, which must not allocate). */
const everyCoordinate: number[][] = [];

/** The coordinates a release publishes. */
export function coordsOf(r: PointRelease, d: number): readonly number[] {
  if (r.coordinates) return r.coordinates;
  if (!everyCoordinate[d]) everyCoordinate[d] = Array.from({ length: d }, (_, c) => c);
  return everyCoordinate[d];
}

/**
 * (α − 1)·D_α of the releases' product noise around two points (atom i of P, atom j of Q), as a
 * bounded number: per release the family's product exponent (Laplace Σ_c (α−1)·R_α(|Δ_c|/(w_c·b)),
 * Gaussian α(α−1)·Σ_c (Δ_c/w_c)²/(2σ²)); summed over the releases (their noises are independent).
 */
export function pairExponent(P: PointLaw, Q: PointLaw, i: number, j: number, releases: readonly PointRelease[], w: readonly number[], alpha: number): Bounded {
  let value = 0,
    error = 0;
  for (const r of releases) {
    const shift = (c: number) => Math.abs(coord(P, i, c) - coord(Q, j, c));
    const e = productOf(r.mechanism, 'release').exponent(
      alpha,
      (c) => shift(c) / w[c] / r.scale,
      coordsOf(r, P.d),
      (c) => [shift(c), coordinateScale(r.scale, w[c])],
    );
    value += e.value;
    error += e.error + 4 * EPS * Math.abs(value);
  }
  return { value, error };
}

/** The family's product noise on ℝ^d, or its reason for having none (naming `path`). */
export function productOf(mechanism: Mechanism, path: string): ProductNoise {
  const p = mechanismDef(mechanism).product;
  if (isNotApplicable(p)) throw new InputError(p.notApplicable, path);
  return p;
}

/** Whether every release's product noise is a function of the ℓ₁ norm (then W₁ couples, and D∞ is finite). */
export const allL1 = (releases: readonly { mechanism: Mechanism }[]) => releases.every((r) => productOf(r.mechanism, 'release').norm === 'l1');

/** D_α ≤ (1/(α−1))·log E_π exp((α−1)·D_α(pair)) over the coupling π (joint convexity, α > 1), with its error. */
export function coupledBound(c: PointCoupling, t: (i: number, j: number) => Bounded, alpha: number): Bounded {
  const values = new Float64Array(c.mass.length);
  let inner = 0;
  for (let k = 0; k < values.length; k++) {
    const e = t(c.p[k], c.q[k]);
    values[k] = e.value;
    inner = Math.max(inner, e.error);
  }
  const outer = logExpectationExp(c.mass, values);
  const value = outer.value / (alpha - 1);
  return { value, error: (outer.error + inner) / (alpha - 1) + 2 * EPS * Math.abs(value) };
}

/**
 * The releases with those of one family and scale that publish disjoint coordinates joined into
 * one release of their union (in coordinate order): independent noise per coordinate makes them
 * the same release, so a vector released group by group is bounded as the one vector a calibration
 * certified, term for term (the same sums, the same charges).
 * @example mergedReleases([{ mechanism: 'laplace', scale: 1, coordinates: [1] }, { mechanism: 'laplace', scale: 1, coordinates: [0] }], 2) // [{ mechanism: 'laplace', scale: 1 }]
 */
export function mergedReleases(releases: readonly PointRelease[], d: number): readonly PointRelease[] {
  if (releases.length < 2) return releases;
  const groups = new Map<string, PointRelease[]>();
  for (const r of releases) {
    const key = `${r.mechanism}|${r.scale}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  if (groups.size === releases.length) return releases;
  return [...groups.values()].flatMap((rs) => {
    const union = rs.flatMap((r) => coordsOf(r, d));
    if (rs.length === 1 || new Set(union).size !== union.length) return rs;
    const coordinates = union.sort((a, b) => a - b);
    return [{ mechanism: rs[0].mechanism, scale: rs[0].scale, ...(coordinates.length === d ? {} : { coordinates }) }];
  });
}

/** A coupling seen through its displacements: atom k at 0, its partner at ‖Δ_k‖ (the norm conditions' input). */
const displacements = (P: PointLaw, Q: PointLaw, c: PointCoupling, n: Norm): Coupling => ({
  x: new Float64Array(c.mass.length),
  y: Float64Array.from(c.mass, (_, k) => distance(P, Q, c.p[k], c.q[k], n)),
  mass: c.mass,
});

/**
 * Coupled bound for product noise summed per coordinate (docs/math.md §12): joint convexity over the
 * coupling with the exact divergence of each coupled pair, Σ over coordinates of the family's term
 * (Laplace: R_α(|Δ_c|/(w_c b))), for N releases — the account's own bound (`coupledBound` of
 * `pairExponent`), so a ledger accounts a calibrated release with the arithmetic that certified it.
 * Its feasible end is the family's `feasibleScale` at the coupling's largest move.
 */
function coupledSumProblem(
  mechanism: Mechanism,
  P: PointLaw,
  Q: PointLaw,
  c: PointCoupling,
  n: Norm,
  alpha: number,
  epsilon: number,
  releases: number,
): ScaleProblem {
  const evaluate = (b: number) => {
    const rs: PointRelease[] = Array.from({ length: releases }, () => ({ mechanism, scale: b }));
    const bound = coupledBound(c, (i, j) => pairExponent(P, Q, i, j, rs, n.weights, alpha), alpha);
    return { ...bound, target: epsilon, sense: 'le' as const };
  };
  return { evaluate, ...bracketBelow(evaluate, productOf(mechanism, 'mechanism').feasibleScale(alpha, releases, largestMove(P, Q, c, n), epsilon)) };
}

interface PairInput {
  prior: string;
  pair: [string, string];
  P: PointLaw;
  Q: PointLaw;
}

/** What one pair's condition is built from: the method, its rule, the order, budget and releases, the norm and the product noise. */
interface PairContext {
  method: SingleMethod;
  mechanism: Mechanism;
  rule: ReturnType<typeof calibrationRule>;
  alpha: number;
  /** ε less the account's margin (`ACCOUNT_MARGIN`): what the noise's bounds certify. */
  epsilon: number;
  /** ε as asked: what the data's own divergence is compared with (an account reads the same number). */
  asked: number;
  n: number;
  norm: Norm;
  w: readonly number[];
  product: ProductNoise;
  /** The coupled bound summed over coordinates (docs/math.md §12). */
  bySum: boolean;
  /** The log-moment exponent of a coupled pair at a trial scale, for the transport cost; null: no re-solve. */
  exponent: ((dist: number, scale: number) => number) | null;
}

/** Equal laws, or laws whose own D_α meets ε (data processing: no release of them can exceed it, docs/math.md §4): no noise. */
function noNoise(P: PointLaw, Q: PointLaw, alpha: number, asked: number): NoNoise | null {
  const [ip, iq] = asIdLaws(P, Q);
  if (ip.values.length === iq.values.length && ip.values.every((v, k) => v === iq.values[k] && ip.masses[k] === iq.masses[k])) return { zero: IDENTICAL };
  const data = Math.max(...[discreteRenyi(ip, iq, alpha), discreteRenyi(iq, ip, alpha)].map((r) => r.value + r.error));
  if (data <= asked)
    return {
      zero: `data processing: D_α(P_X‖Q_X) = ${precisionUp(data, 6)} ≤ ε for the data itself, so any number of releases of it already meets the budget`,
    };
  return null;
}

/**
 * One pair's condition under the class (the contamination is folded in by the caller): no noise
 * where the laws agree or the data alone meets ε, the W∞ problem for the W∞ rules, else the
 * coupling's problem, its transport re-solved for the condition's own cost at the trial scale.
 */
function pairProblem(
  pc: PairInput,
  { method, mechanism, rule, alpha, epsilon, asked, n, norm, w, product, bySum, exponent }: PairContext,
): ScaleProblem | NoNoise {
  const { P, Q } = pc;
  const none = noNoise(P, Q, alpha, asked);
  if (none) return none;
  const [ip, iq] = asIdLaws(P, Q);
  const pseudo = (c: Coupling): PairCoupling => {
    const w = wInf(c);
    return { prior: pc.prior, pair: pc.pair, p: ip, q: iq, coupling: c, wInf: w, exactWInf: w };
  };
  if (method === 'pierquin' || method === 'wasserstein-inf' || alpha === Infinity) {
    const W = wInfPoints(P, Q, norm);
    return rule.problem(pseudo({ x: Float64Array.of(0), y: Float64Array.of(W), mass: Float64Array.of(1) }), false);
  }
  const build = (c: PointCoupling): ScaleProblem | NoNoise =>
    bySum ? coupledSumProblem(mechanism, P, Q, c, norm, alpha, epsilon, n) : rule.problem(pseudo(displacements(P, Q, c, norm)), false);
  // Every pair's distance in the norm, once (the same doubles as `distance`); none for a pair too large for a transport.
  const dist = transportable(P, Q) ? distances(P, Q, norm) : null;
  // Round 0: the W₁ (Laplace) or W₂ (Gaussian) optimal coupling, shared by the methods of `best`.
  const coupling = baseCoupling(P, Q, norm, dist ?? undefined);
  const problem = build(coupling);
  if ('zero' in problem) return problem;
  if (!dist) return withSorted(P, Q, problem, coupling, build);
  if (!(bySum || exponent !== null)) return problem;
  // Re-solve the transport for the condition's own cost at the scale found: its value there can
  // only drop, so the next scale is no larger; stop when it no longer moves.
  const L = atomsOf(Q);
  const all = Array.from({ length: P.d }, (_, c) => c);
  const resolve = (c: PointCoupling, at: number) => {
    // The condition's exponent per pair at this scale (the transport cost needs no certificate:
    // any coupling gives a valid bound, and the scale is certified on the true condition).
    const t = bySum ? separableCosts(P, Q, all, (k, diff) => product.cost(alpha, diff / w[k] / at)).map((x) => n * x) : dist.map((x) => exponent!(x, at));
    // Costs relative to the current coupling's worst pair, capped at e^10 (pairs that costly are
    // never worth using), so the solve's tolerance sees the pairs that matter.
    let ref = -Infinity;
    for (let k = 0; k < c.mass.length; k++) ref = Math.max(ref, t[c.p[k] * L + c.q[k]]);
    for (let k = 0; k < t.length; k++) t[k] = Math.exp(Math.min(t[k] - ref, 10));
    return optimalCoupling(P, Q, t, c.basis);
  };
  const transport = resolvedWhileFalling(coupling, problem, build, resolve);
  if ('zero' in transport) return transport;
  // Any coupling gives a valid bound, and the re-solved plan is a heuristic for the condition's
  // cost: the Knothe–Rosenblatt couplings (a sort each) sometimes beat it, as in an account.
  return smallestOf(transport, knotheCouplings(P, Q), build);
}

/** The problem of the coupling with the smallest feasible scale, `first` (already built) or one of `others`, its coupling named. */
function smallestOf(
  first: { problem: ScaleProblem; scale: number; how: string },
  others: readonly PointCoupling[],
  build: (c: PointCoupling) => ScaleProblem | NoNoise,
): ScaleProblem {
  const best = smallestCandidate(first, others, (k) => {
    const kp = build(k);
    return 'zero' in kp ? null : { problem: kp, scale: smallestFeasibleScale(kp).scale, how: k.how };
  })!;
  return { ...best.problem, note: `Coupling: ${best.how}.` };
}

/** A pair too large for a transport: the condition over the smallest of its sorted couplings (`base` among them, built). */
function withSorted(P: PointLaw, Q: PointLaw, problem: ScaleProblem, base: PointCoupling, build: (c: PointCoupling) => ScaleProblem | NoNoise): ScaleProblem {
  const first = { problem, scale: smallestFeasibleScale(problem).scale, how: base.how };
  return smallestOf(
    first,
    sortedCouplings(P, Q).filter((c) => c !== base),
    build,
  );
}

/**
 * Both directions' exact joint D_α, (P, Q) then (Q, P), where the releases' output is one coordinate
 * (the family's exact accountant on ℝ, §4) or two coordinates of one family with an exact accountant
 * on ℝ² (docs/math.md §12, "Exact in two dimensions": a vector of two columns, two statistics
 * released once each, one value released twice). Null elsewhere (α = ∞ or ≤ 1 included), and where
 * the rule declines. The output depends on the released coordinates alone, so the laws are read on
 * them (data processing, with equality).
 * @example exactLevels(pointLaw([[0, 0]]), pointLaw([[1, 2]]), [{ mechanism: 'laplace', scale: 1 }], [1, 1], 2)![0].value // R₂(1) + R₂(2)
 */
export function exactLevels(P: PointLaw, Q: PointLaw, asked: readonly PointRelease[], w: readonly number[], alpha: number): [Bounded, Bounded] | null {
  const dims = exactDims(asked, P.d, w, alpha);
  if (!dims) return null;
  if (dims.length === 1) {
    const noise = lineNoise(dims[0].mechanism, dims[0].scale)!;
    const [p, q] = [onLine(P, dims[0].c), onLine(Q, dims[0].c)];
    const one = (x: ExactDivergence): Bounded => ({ value: x.value, error: x.error });
    return [one(exactRenyi(p, q, noise, alpha)), one(exactRenyi(q, p, noise, alpha))];
  }
  if (!exactApplies(P, Q, asked, w, alpha)) return null;
  const [P2, Q2] = plane(P, Q, dims[0].c, dims[1].c);
  const r = productOf(dims[0].mechanism, 'release').exact2d!(P2, Q2, alpha, [dims[0].scale, dims[1].scale], true);
  if (!r) return null;
  const level = (x: { value: number; error: number }): Bounded => {
    const value = x.value / (alpha - 1);
    return { value, error: x.error / (alpha - 1) + 2 * EPS * Math.abs(value) };
  };
  return [level(r[0]), level(r[1])];
}

/** Whether `exactLevels` takes these releases of these laws (it may still decline at a scale: atoms hundreds of scales apart). */
export function exactApplies(P: PointLaw, Q: PointLaw, asked: readonly PointRelease[], w: readonly number[], alpha: number): boolean {
  const dims = exactDims(asked, P.d, w, alpha);
  return !!dims && (dims.length === 1 || planeWithin(planeCells(P, Q, dims[0].c, dims[1].c), alpha));
}

/** The distinct values of coordinate i times those of coordinate j over both laws. */
function planeCells(P: PointLaw, Q: PointLaw, i: number, j: number): number {
  const count = (c: number) => new Set([P, Q].flatMap((L) => Array.from({ length: atomsOf(L) }, (_, k) => coord(L, k, c)))).size;
  return count(i) * count(j);
}

/**
 * Whether `scale` is certainly below every scale a calibration could certify for these settings, by
 * the exact D_α on ℝ² of the (prior, pair) `label` (two coordinates, one Laplace release): every
 * certified method's scale has the true D_α within ε, and the true D_α falls as the scale grows
 * (Laplace noise at a larger scale is the smaller one plus independent noise), so a scale whose exact
 * D_α, less its error, exceeds ε lies below all of them (docs/math.md §3, §12). False where exact does not apply.
 */
export function certainlyTooSmallPoints(scenario: PointScenario, s: PointSettings, scale: number, label: { prior: string; pair: readonly string[] }): boolean {
  if (s.contamination || noExact(scenario, s)) return false;
  const prior = scenario.priors.find((p) => p.name === label.prior);
  const [P, Q] = [prior?.conditionals[label.pair[0]], prior?.conditionals[label.pair[1]]];
  if (!P || !Q) return false;
  const both = exactLevels(P, Q, [{ mechanism: s.mechanism, scale }], coordinateWeights(scenario, s.coordinateScales), s.alpha);
  return !!both && (scenario.ordered ? [both[0]] : both).some((x) => x.value - x.error > s.epsilon);
}

/** The family's exact accountant's noise at a scale, or null where it has none. */
function lineNoise(mechanism: Mechanism, scale: number): Noise | null {
  const acc = mechanismDef(mechanism).accountant(noiseOptions({}));
  return isNotApplicable(acc) ? null : acc(scale);
}

/** One coordinate of a vector law as a law on ℝ (values ascending; equal ones merged, masses exact). */
function onLine(m: PointLaw, c: number): Discrete {
  const p = projectedLaw(m, [c]);
  const order = Array.from({ length: atomsOf(p) }, (_, i) => i).sort((a, b) => p.points[a] - p.points[b]);
  return {
    values: Float64Array.from(order, (i) => p.points[i]),
    masses: Float64Array.from(order, (i) => p.masses[i]),
    numerators: order.map((i) => p.numerators[i]),
    denominator: p.denominator,
  };
}

/** The output coordinates of releases that `exactLevels` takes (their coordinate, noise scale and family), or null. */
function exactDims(asked: readonly PointRelease[], d: number, w: readonly number[], alpha: number) {
  if (!(alpha > 1 && alpha < Infinity)) return null;
  const dims = mergedReleases(asked, d).flatMap((r) => coordsOf(r, d).map((c) => ({ c, scale: w[c] * r.scale, mechanism: r.mechanism })));
  if (!dims.every((x) => x.scale > 0 && x.mechanism === dims[0].mechanism)) return null;
  if (dims.length === 1) return lineNoise(dims[0].mechanism, 1) ? dims : null;
  return dims.length === 2 && planeOrder(alpha) && productOf(dims[0].mechanism, 'release').exact2d ? dims : null;
}

/** The smallest and largest value of coordinate c over both laws' atoms. */
function coordRange(P: PointLaw, Q: PointLaw, c: number): [number, number] {
  let lo = Infinity,
    hi = -Infinity;
  for (const L of [P, Q])
    for (let k = 0; k < atomsOf(L); k++) {
      lo = Math.min(lo, coord(L, k, c));
      hi = Math.max(hi, coord(L, k, c));
    }
  return [lo, hi];
}

/**
 * Two laws on ℝ^d read on coordinates (i, j) as laws on ℝ² (i = j: a value released twice), each
 * coordinate shifted by a common c where that is exact (every value within a factor 2 of c, Sterbenz),
 * so the quadrature works near 0 (D_α is invariant under a common shift).
 */
function plane(P: PointLaw, Q: PointLaw, i: number, j: number): [Mixture2, Mixture2] {
  const shift = (c: number) => {
    const [lo, hi] = coordRange(P, Q, c);
    return lo > 0 && hi <= 2 * lo ? lo : hi < 0 && lo >= 2 * hi ? hi : 0;
  };
  const si = shift(i),
    sj = shift(j);
  const of = (L: PointLaw): Mixture2 => ({
    a: Float64Array.from({ length: atomsOf(L) }, (_, k) => coord(L, k, i) - si),
    c: Float64Array.from({ length: atomsOf(L) }, (_, k) => coord(L, k, j) - sj),
    logw: L.masses.map(Math.log),
  });
  return [of(P), of(Q)];
}

/**
 * One pair's exact condition on ℝ² (`exactLevels`, both directions; `noNoise` first): its feasible
 * end is the coupled bound's at the laws' widest move (every coupling moves mass at most that far in
 * the norm, and the exact D_α is below any coupled bound), bracketed by the power-law predictor.
 */
function exactPairProblem(pc: PairInput, { mechanism, alpha, epsilon, asked, n, norm, w, product }: PairContext): ScaleProblem | NoNoise {
  const none = noNoise(pc.P, pc.Q, alpha, asked);
  if (none) return none;
  const evaluate = (scale: number) => {
    // Where the rule declines (atoms hundreds of scales apart), the scale is not certified here.
    return { ...worseOf(exactLevels(pc.P, pc.Q, [{ mechanism, scale }], w, alpha)), target: epsilon, sense: 'le' as const };
  };
  const widest = boxSpan(pc.P, pc.Q, norm);
  return { evaluate, ...bracketPredict(evaluate, product.feasibleScale(alpha, n, widest, epsilon)), logLog: true, rtol: 1e-10 };
}

/** The diagonal of the two laws' bounding box in the norm: no atom of one lies further than that from an atom of the other. */
function boxSpan(P: PointLaw, Q: PointLaw, norm: Norm): number {
  const spans = Array.from({ length: P.d }, (_, c) => {
    const [lo, hi] = coordRange(P, Q, c);
    return nextUp(nextUp((hi - lo) / norm.weights[c]));
  });
  return nextUp(norm.kind === 'l1' ? spans.reduce((a, b) => a + b, 0) * (1 + 4 * EPS) : Math.hypot(...spans) * (1 + 4 * EPS));
}

/** A condition on one coupling and the smallest scale certified on it (`how`: the coupling, for the note). */
export interface CoupledCandidate {
  problem: ScaleProblem;
  scale: number;
  how: string;
}

/**
 * The transport re-solved for the condition's own cost at the scale found, while that scale falls
 * (at most three times; any coupling gives a valid bound, so the smallest met stands), from
 * `coupling` and its condition `problem`. A condition that needs no noise ends the search with it.
 */
export function resolvedWhileFalling<C extends { how: string }>(
  coupling: C,
  problem: ScaleProblem,
  problemOf: (c: C) => ScaleProblem | NoNoise,
  resolve: (c: C, scale: number) => C,
): CoupledCandidate | NoNoise {
  let scale = smallestFeasibleScale(problem).scale;
  for (let round = 0; round < 3; round++) {
    const next = resolve(coupling, scale);
    const np = problemOf(next);
    if ('zero' in np) return np;
    const ns = smallestFeasibleScale(np).scale;
    if (!(ns < scale * (1 - 1e-9))) break;
    [coupling, problem, scale] = [next, np, ns];
  }
  return { problem, scale, how: `${coupling.how}, re-solved at the trial scale` };
}

/** The smallest-scale candidate of `best` and each of `others` (`candidate`: null where one gives no condition). */
export function smallestCandidate<C>(
  best: CoupledCandidate | null,
  others: Iterable<C>,
  candidate: (c: C) => CoupledCandidate | null,
): CoupledCandidate | null {
  for (const c of others) {
    const k = candidate(c);
    if (k && (!best || k.scale < best.scale)) best = k;
  }
  return best;
}

/** The settings checked against a vector scenario: its weights, the family's product noise, the contamination box. */
function checked(scenario: PointScenario, s: PointSettings) {
  const w = coordinateWeights(scenario, s.coordinateScales);
  checkSettings(s);
  const product = productOf(s.mechanism, 'mechanism');
  checkLawsFor(s.mechanism, scenario);
  if (s.contamination) checkContaminationFor(s.mechanism);
  const box = s.contamination ? contaminationBox(s.contamination, scenario) : null;
  return { w, product, box, norm: { kind: product.norm, weights: w } as Norm };
}

/**
 * Laws on ℝ^d (d > 1) as a kind of the one calibration (docs/math.md §12): independent noise per
 * coordinate, scale wᵢ·s on coordinate i; the common factor s is calibrated. Laplace measures
 * displacement in the weighted ℓ₁ norm, Gaussian in the weighted ℓ₂ norm. theorem and coupled use
 * the optimal transport coupling, re-solved at the trial scale until it stops improving (every
 * round's coupling is exactly feasible, so every round's scale is certified); pierquin and
 * wasserstein-inf use W∞ by an exact bottleneck solve (an upper bound over sorted couplings where a
 * pair is too large for one). Exact accounting would need a d-dimensional
 * integral: refused.
 */
export const POINTS: CalibrationKind<PointScenario, PairInput> = {
  check: (_scenario, settings) => settings,
  bestMethods(scenario, s) {
    checked(scenario, s);
    const ok = applicableMethods(s);
    const why = noExact(scenario, s);
    return { methods: POINT_METHODS.filter((m) => ok.includes(m) && (m !== 'exact' || !why)), note: why ? ` (${why})` : '' };
  },
  units(scenario, s) {
    const { w, product, box, norm } = checked(scenario, s);
    const cont = s.contamination && s.contamination.lambda > 0 ? s.contamination : null;
    const why = s.method === 'exact' ? noExact(scenario, s) : null;
    if (why) throw new InputError(`${why}; the tightest certified method here is coupled`, 'method');
    const { method, alpha } = s;
    const epsilon = s.epsilon * (1 - ACCOUNT_MARGIN);
    const rule = calibrationRule({ ...s, epsilon });
    const n = s.releases ?? 1;
    const bySum = method === 'coupled' && alpha > 1 && alpha < Infinity;
    // Theorem's log-moment exponent of a coupled pair at a trial scale (Theorem 1: α·N·‖Δ‖₁/b;
    // Theorem 2: α(α−1)·N·‖Δ‖₂²/(2σ²)), for the transport cost; null: no re-solve (coupled re-solves
    // for its summed exponent).
    const exponent = alpha > 1 && alpha < Infinity && method === 'theorem' ? (dist: number, sc: number) => product.normExponent(alpha, n, dist, sc) : null;
    const ctx: PairContext = { method, mechanism: s.mechanism, rule, alpha, epsilon, asked: s.epsilon, n, norm, w, product, bySum, exponent };
    const point = (scale: number): Bounded => boxDivergence(s, box!, w, scale, alpha, n);
    return priorPairs(scenario).units.map(({ prior: p, pair: [a, b] }) => {
      const pc: PairInput = { prior: p.name, pair: [a, b], P: p.conditionals[a], Q: p.conditionals[b] };
      return {
        label: pc,
        problem: (): ScaleProblem | NoNoise => {
          const base = method === 'exact' ? exactPairProblem(pc, ctx) : pairProblem(pc, ctx);
          if (!cont) return base;
          const [ip, iq] = asIdLaws(pc.P, pc.Q);
          const none = { x: new Float64Array(0), y: new Float64Array(0), mass: new Float64Array(0) };
          return contaminatedProblem(
            base,
            { prior: pc.prior, pair: pc.pair, p: ip, q: iq, coupling: none, wInf: 0, exactWInf: 0 },
            cont,
            { alpha, epsilon, ordered: false },
            point,
          );
        },
      };
    });
  },
  text(scenario, s, sol) {
    const d = dimensionOf(scenario);
    const { w, product, box, norm } = checked(scenario, s);
    const cont = s.contamination && s.contamination.lambda > 0 ? s.contamination : null;
    const bySum = s.method === 'coupled' && s.alpha > 1 && s.alpha < Infinity;
    const def = mechanismDef(s.mechanism);
    const normText = `${norm.kind === 'l1' ? 'ℓ₁' : 'ℓ₂'} norm${w.some((x) => x !== 1) ? ` with coordinate i divided by its noise weight wᵢ (${w.join(', ')})` : ''}`;
    return {
      settings: s,
      parameter: def.parameter,
      variance: noiseVariance(s, sol.scale),
      rule: bySum
        ? `coupled RDP bound, Σ over coordinates of ${product.term} (docs/math.md §12)`
        : s.method === 'exact'
          ? 'exact Rényi accountant on ℝ² (docs/math.md §12)'
          : calibrationRule(s).rule,
      meets: 'meeting the condition',
      symbol: def.symbol,
      before: `${d}-dimensional query, independent ${def.title} noise per coordinate (scale wᵢ·${def.symbol}), displacement in the ${normText}. `,
      after: cont ? robustNote(cont, box!, sol.scale > 0 ? (sol.top.problem as ContaminatedProblem).terms(sol.scale) : null) : '',
      tail: { dimension: d, coordinateScales: [...w], ...(s.contamination ? { contamination: s.contamination } : {}) },
    };
  },
};

/**
 * A one-coordinate vector scenario's settings as a scalar one's: weights must be 1, and a box's one
 * range is the contamination domain.
 */
export function scalarSettings(scenario: PointScenario, s: PointSettings): PointSettings {
  const w = coordinateWeights(scenario, s.coordinateScales);
  if (w[0] !== 1) throw new InputError('apply to vectors; with one coordinate the calibrated scale is the noise scale', 'coordinateScales');
  const box1 = s.contamination?.box;
  if (box1 && box1.length !== 1) throw new InputError(`needs one LO,HI range per coordinate (1), got ${box1.length}`, 'domain');
  const { coordinateScales: _w, ...rest } = s;
  return box1 ? { ...rest, contamination: { lambda: s.contamination!.lambda, domain: [box1[0][0], box1[0][1]] } } : rest;
}
