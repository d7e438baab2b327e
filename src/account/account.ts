import { checkSetting, checkJointOrder, checkReleaseScale } from '../settings.js';
import { ARRAY, checkShape, NUMBER, OBJECT } from '../shapes.js';
import type { Noise } from '../divergence/kernel.js';
import { isNotApplicable, planeOrder, type ProductNoise } from '../mechanisms/mechanism.js';
import { diagonalEvaluation } from '../mechanisms/exactRule.js';
import { solveUnits, type Progress } from '../calibrate/driver.js';
import { accountOf, budgetLeft, checkAccount, type Accounting, type AccountShare, type JointMethod, type NextUnit, type Release } from './rows.js';
import { accountWindows, nextWindowScale } from './windows.js';
import { byLaw, type AnyScenario } from '../distribution/lawKind.js';
import { accountPointsOnPool, nextUnitsPoints, pointShares, type DirectionRunner } from './points.js';
import type { PointScenario } from '../distribution/points.js';
import { oneCoordinate } from '../calibrate/points.js';

export type { Accounting, AccountRow, JointMethod, Release } from './rows.js';
import type { Scenario } from '../distribution/scenario.js';
import { pairCouplings, type PairCoupling } from '../coupling/pairs.js';
import { dataDivergence } from '../divergence/dataDivergence.js';
import { absCost, type Cost } from '../conditions/costs.js';
import { scaledLaplaceRdp } from '../conditions/pierquin.js';
import { exactEvaluation } from '../conditions/exact.js';
import { distances } from '../coupling/comonotone.js';
import { exactDInf } from '../mechanisms/kernels.js';
import { InputError } from '../errors.js';
import { divideDown } from '../conditions/repeated.js';
import { checkLawsFor, mechanismDef, noiseOptions } from '../mechanisms/registry.js';
import { bracketAbove, bracketBelow } from '../numerics/bracket.js';
import { EPS, nextUp } from '../numerics/float.js';
import { logExpectationExp } from '../numerics/logExpectation.js';
import type { Evaluation, ScaleProblem } from '../numerics/smallestScale.js';
import { precisionUp } from '../numerics/decimal.js';

/**
 * A release's noise as the joint bound sees it: Laplace-shaped at rate 1/b (`rate`), Gaussian at
 * precision 1/σ² (`precision`: several are one at the precision-weighted σ), or a bounded-ratio cost;
 * with the exact accountant's noise.
 */
type Part =
  | { kind: 'rate'; b: number; noise: Noise; plane?: ProductNoise['exact2d'] }
  | { kind: 'lattice'; b: number; noise: Noise }
  | { kind: 'precision'; sigma: number; noiseAt: (sigma: number) => Noise }
  | { kind: 'ratio'; eta: number; cost: Cost };

function partOf(r: Release): Part {
  const def = mechanismDef(r.mechanism);
  checkReleaseScale(r);
  const o = noiseOptions(r);
  const acc = def.accountant(o);
  if (def.composes === 'precision' && !isNotApplicable(acc)) return { kind: 'precision', sigma: r.scale, noiseAt: acc };
  if (def.composes === 'rate' && !isNotApplicable(acc))
    return { kind: 'rate', b: r.scale, noise: acc(r.scale), plane: isNotApplicable(def.product) ? undefined : def.product.exact2d };
  if (def.composes === 'lattice' && !isNotApplicable(acc)) return { kind: 'lattice', b: r.scale, noise: acc(r.scale) };
  const eta = o.eta.at(r.scale);
  // c = |z| is Laplace noise with b = 1/η; other costs are bounded only through the density ratio e^{η·c}.
  return o.cost === absCost && !isNotApplicable(acc) ? { kind: 'rate', b: 1 / eta, noise: acc(r.scale) } : { kind: 'ratio', eta, cost: o.cost };
}

/** 1/√(Σ 1/σᵢ²) lowered past its rounding ((R + 4)·2⁻⁵² relative covers the sum, root and division). */
function effectiveSigma(sigmas: number[]): number {
  // N releases at one σ: σ/√N lowered as the N-release calibration lowers it (the same certificate).
  if (sigmas.length === 1) return sigmas[0];
  if (sigmas.every((s) => s === sigmas[0])) return divideDown(sigmas[0], Math.sqrt(sigmas.length));
  const precision = sigmas.reduce((a, s) => a + 1 / (s * s), 0);
  return (1 / Math.sqrt(precision)) * (1 - (sigmas.length + 4) * EPS);
}

/**
 * The joint D_α of all `parts` for one pair, as a condition ≤ ε (docs/math.md §9):
 * - one Laplace-shaped or Gaussian release, or Gaussian releases only: the exact accountant
 *   (several Gaussians are one at σ_eff = (Σ σᵢ⁻²)^{−1/2}: the precision-weighted mean is sufficient);
 * - otherwise, α > 1: the coupled bound with the inner divergences summed over releases,
 *   (α−1)·Σ [R_α(|z|/bᵢ) | α z²/2σⱼ² | ηₖ c(z)]; α = ∞: sup over π* of Σ |z|/bᵢ + ηₖ c(z).
 */
function jointEvaluation(pc: PairCoupling, parts: Part[], alpha: number, epsilon: number, ordered: boolean): Evaluation & { method: JointMethod } {
  const gauss = parts.filter((p): p is Extract<Part, { kind: 'precision' }> => p.kind === 'precision');
  const lap = parts.filter((p): p is Extract<Part, { kind: 'rate' }> => p.kind === 'rate');
  const lattice = parts.filter((p): p is Extract<Part, { kind: 'lattice' }> => p.kind === 'lattice');
  // Beside others a geometric release is bounded by its D∞ rate (D_α ≤ D∞ = |Δ|/b at integer shifts): a ratio cost |z| at η = 1/b.
  const ratio = [
    ...parts.filter((p): p is Extract<Part, { kind: 'ratio' }> => p.kind === 'ratio'),
    ...lattice.map((p) => ({ kind: 'ratio' as const, eta: 1 / p.b, cost: absCost })),
  ];
  if (alpha === Infinity) {
    if (gauss.length) return { value: Infinity, error: 0, target: epsilon, sense: 'le', method: 'unbounded' };
    const single = parts.length === 1 && parts[0].kind !== 'precision' && parts[0].kind !== 'ratio' ? parts[0] : null;
    if (single) {
      const dirs = ordered
        ? [[pc.p, pc.q]]
        : [
            [pc.p, pc.q],
            [pc.q, pc.p],
          ];
      let value = -Infinity,
        error = 0;
      for (const [a, b] of dirs) {
        const d = exactDInf(single.noise, a, b)!;
        if (d.value + d.error > value + error) {
          value = d.value;
          error = d.error;
        }
      }
      return { value, error, target: epsilon, sense: 'le', method: 'sup-at-atoms' };
    }
    let worst = 0;
    const c = pc.coupling;
    for (let k = 0; k < c.x.length; k++) {
      const z = c.x[k] - c.y[k];
      let t = 0;
      for (const p of lap) t += Math.abs(z) / p.b;
      for (const p of ratio) t += p.eta * p.cost.apply(z);
      worst = Math.max(worst, t);
    }
    return { value: worst, error: 8 * (parts.length + 2) * EPS * worst, target: epsilon, sense: 'le', method: 'coupled' };
  }
  checkJointOrder(alpha);
  // One noise of one family has the exact accountant; not where the releases' σ combine below the doubles (Σ 1/σ² = ∞).
  const sigma = gauss.length ? effectiveSigma(gauss.map((g) => g.sigma)) : 1;
  const alone = parts.length === lattice.length + lap.length + gauss.length && lattice.length + lap.length + (gauss.length ? 1 : 0) === 1;
  if (alone && sigma > 0) {
    const noise = lattice.length ? lattice[0].noise : lap.length ? lap[0].noise : gauss[0].noiseAt(sigma);
    const e = exactEvaluation(pc.p, pc.q, noise, alpha, epsilon, ordered);
    // The smaller of two certified upper bounds: the quadrature's error can exceed the coupled
    // bound's where the coupled bound is itself exact (point masses).
    const c = coupledEvaluation(pc, alpha, epsilon, lap, gauss, ratio);
    if (Number.isFinite(e.error) && !(c.value + c.error < e.value + e.error)) return { ...e, method: gauss.length > 1 ? 'exact (Gaussian mean)' : 'exact' };
    return c;
  }
  const c = coupledEvaluation(pc, alpha, epsilon, lap, gauss, ratio);
  // Two releases of one family with an exact accountant on ℝ²: (Y₁, Y₂) is a law on the diagonal's
  // noisy image, exact there (docs/math.md §12). With more releases, the chain rule (α > 1, §20):
  // those two exactly, each other one at its noise's divergence across the pair's widest spread.
  // The smallest certified upper bound stands.
  const head = planeOrder(alpha) ? [...lap].sort((x, y) => x.b - y.b).slice(0, 2) : [];
  const plane = head.length === 2 && head[0].plane && head[0].plane === head[1].plane ? head[0].plane : null;
  const e = plane && diagonalEvaluation(plane, pc.p, pc.q, [head[0].b, head[1].b], alpha, epsilon, ordered);
  if (!e) return c;
  if (parts.length === 2) return !(c.value + c.error < e.value + e.error) ? { ...e, method: 'exact' } : c;
  const rest = lap.filter((x) => !head.includes(x));
  const widest: PairCoupling = { ...pc, coupling: { x: Float64Array.of(0), y: Float64Array.of(spreadOf(pc)), mass: Float64Array.of(1) } };
  const r = coupledEvaluation(widest, alpha, epsilon, rest, gauss, ratio);
  const chain = { value: e.value + r.value, error: e.error + r.error + 2 * EPS * Math.abs(e.value + r.value) };
  return chain.value + chain.error < c.value + c.error ? { ...chain, target: epsilon, sense: 'le', method: 'chained' } : c;
}

/** The widest distance between an atom of the pair's one law and one of the other's. */
function spreadOf(pc: PairCoupling): number {
  const lo = Math.min(pc.p.values[0], pc.q.values[0]),
    hi = Math.max(pc.p.values[pc.p.values.length - 1], pc.q.values[pc.q.values.length - 1]);
  return nextUp(hi - lo);
}

/** The coupled bound of several releases over the pair's coupling (docs/math.md §9). */
function coupledEvaluation(
  pc: PairCoupling,
  alpha: number,
  epsilon: number,
  lap: readonly { b: number }[],
  gauss: readonly { sigma: number }[],
  ratio: readonly { eta: number; cost: { apply(z: number): number } }[],
): Evaluation & { method: JointMethod } {
  const d = distances(pc.coupling);
  const t = new Float64Array(d.length);
  // Laplace releases at one scale are summed as N·R_α with the charge of the N-release
  // calibration (conditions/coupled.ts), so the account of the releases a calibration sized
  // reproduces its certificate to the bit.
  const groups = new Map<number, number>();
  for (const p of lap) groups.set(p.b, (groups.get(p.b) ?? 0) + 1);
  const terms = groups.size + (gauss.length ? 1 : 0) + ratio.length;
  const invVar = gauss.reduce((a, g) => a + 1 / (g.sigma * g.sigma), 0);
  let inner = 0;
  for (let k = 0; k < d.length; k++) {
    let v = 0,
      err = 0;
    for (const [b, count] of groups) {
      const r = scaledLaplaceRdp(alpha, d[k] / b);
      const tv = count * r.value;
      v += tv;
      err += count === 1 ? r.error : count * r.error * (1 + EPS) + EPS * Math.abs(tv);
    }
    // A pair that does not move adds nothing (Σ 1/σ² may be ∞ when σ² underflows: never ∞·0).
    if (gauss.length && d[k] > 0) v += ((alpha - 1) * alpha * d[k] * d[k] * invVar) / 2;
    for (const p of ratio) v += (alpha - 1) * p.eta * p.cost.apply(d[k]);
    // Each added term is exact to a few ulps of itself, the sum of R terms adds R ulps of the total,
    // and Σ 1/σ² over G releases G more: (8 + 2R + G) ulps. A lone Laplace group's error is in `err`.
    t[k] = v;
    const charged = terms > 1 || gauss.length > 0 || ratio.length > 0;
    inner = Math.max(inner, err + (charged ? (8 + 2 * terms + gauss.length) * EPS * Math.abs(v) : 0));
  }
  let top = -Infinity;
  for (const x of t) top = Math.max(top, x);
  // A pair whose exponent overflows (σ² or b below the doubles' reach): no finite bound, said as ∞.
  if (top === Infinity) return { value: Infinity, error: 0, target: epsilon, sense: 'le', method: 'coupled' };
  const outer = logExpectationExp(pc.coupling.mass, t);
  // log E_π e^t ≤ max t (quasi-convexity, the bound of Cor. 3.1): certified without the outer
  // sum's rounding, so the smaller of the two where the coupling is one atom pair.
  const [value, error] = top + inner < outer.value + outer.error + inner ? [top, inner] : [outer.value, outer.error + inner];
  return { value: value / (alpha - 1), error: error / (alpha - 1), target: epsilon, sense: 'le', method: 'coupled' };
}

/** Each release's own D_α for the pair, error included (the exact accountant where it applies, else its coupled bound). */
function singleDivergence(pc: PairCoupling, part: Part, alpha: number, ordered: boolean): number {
  const e = jointEvaluation(pc, [part], alpha, Infinity, ordered);
  const v = e.value + e.error;
  return Number.isNaN(v) ? Infinity : v;
}

/**
 * Each pair's share of an account of releases of one value on ℝ (independent noise, possibly
 * different families and scales), per order: the exact accountant where it applies, else the
 * coupled bound, or the data's own divergence where smaller, next to the naive sum of the releases'
 * own levels. Pufferfish guarantees do not compose: the joint level can exceed the sum many times
 * over (docs/math.md §9).
 */
function finiteShares(scenario: Scenario, releases: Release[], opts: { alphas: number[]; onProgress?: Progress }) {
  const parts = releases.map(partOf);
  const ordered = scenario.ordered ?? false;
  const pcs = pairCouplings(scenario);
  const shares = pcs.map((pc, j) =>
    opts.alphas.map((alpha, k): AccountShare => {
      opts.onProgress?.(j * opts.alphas.length + k, opts.alphas.length * pcs.length);
      const e = jointEvaluation(pc, parts, alpha, Infinity, ordered);
      const data = dataDivergence(pc, alpha, ordered);
      // Data processing: no number of releases reveals more than X itself. A bound that overflowed
      // (noise below the doubles' reach: ∞ − ∞) bounds nothing: ∞, so the data's own divergence stands.
      const sum = e.value + e.error;
      const bound = Number.isNaN(sum) ? Infinity : sum;
      const known = e.method === 'exact' || e.method === 'exact (Gaussian mean)' || (e.method === 'sup-at-atoms' && Number.isFinite(e.value));
      const naive = parts.reduce((a, p) => a + singleDivergence(pc, p, alpha, ordered), 0);
      return data < bound
        ? { value: data, lower: null, method: 'data-processing', naive }
        : { value: bound, lower: known ? e.value - e.error : null, method: e.method, naive };
    }),
  );
  return { units: pcs, shares };
}

/**
 * The next-release search's units for finite laws on ℝ (per pair, both directions in its joint
 * bound): the exact accountant where one release of one family is accounted, the coupled bound
 * otherwise (`jointEvaluation`). InputError where no scale fits however noisy the next release.
 */
function nextUnitsFinite(
  scenario: Scenario,
  past: Release[],
  next: Omit<Release, 'scale'>,
  alpha: number,
  asked: number,
): { units: NextUnit[]; epsilon: number } {
  checkSetting('epsilon', asked);
  checkJointOrder(alpha);
  const outside = mechanismDef(next.mechanism).alphaRange(alpha);
  if (outside) throw new InputError(outside, 'alpha');
  const epsilon = budgetLeft(scenario.massError, alpha, asked);
  const pastParts = past.map(partOf);
  const ordered = scenario.ordered ?? false;
  const joint = (pc: PairCoupling, s: number) => jointEvaluation(pc, [...pastParts, partOf({ ...next, scale: s })], alpha, epsilon, ordered);
  const units = pairCouplings(scenario).map((pc): NextUnit => {
    const label = { prior: pc.prior, pair: [pc.pair[0], pc.pair[1]] as [string, string] };
    const where = `prior '${pc.prior}', pair ${label.pair.join(' vs ')}`;
    return {
      label,
      where,
      data: () => dataDivergence(pc, alpha, ordered),
      past: () => {
        if (!pastParts.length) return null;
        const e = jointEvaluation(pc, pastParts, alpha, epsilon, ordered);
        return e.value + e.error;
      },
      problem: () => {
        const evaluate = (s: number): Evaluation => joint(pc, s);
        // The joint bound with a next release of (almost) infinite noise: if even that misses ε, no
        // scale fits, which is the user's budget, not a numerical failure.
        const limit = joint(pc, 1e300);
        if (!(limit.value + limit.error < epsilon))
          throw new InputError(
            `with the past releases the joint bound (${limit.method}) stays at ${precisionUp(limit.value + limit.error, 4)} ≥ ε = ${epsilon} for ${where} however noisy the next release: no further release fits`,
            'epsilon',
          );
        const up = bracketAbove(evaluate, 1, `next release for ${where}`);
        return { evaluate, ...bracketBelow(evaluate, up, { halvings: 200 }), rtol: 1e-10 };
      },
      method: (s) => joint(pc, s).method,
    };
  });
  return { units, epsilon };
}

/**
 * The one next-release search over a kind's units: a unit whose data already meets ε needs no
 * noise (data processing); one whose past releases already reach ε refuses (no noise on a new
 * release can undo them); the others' conditions are solved together by the driver, the largest
 * scale re-checked on every unit.
 */
function nextScale(
  units: readonly NextUnit[],
  epsilon: number,
  onProgress?: Progress,
): { scale: number; binding: { prior: string; pair: [string, string] } | null; method: JointMethod } {
  const driven = units.map((u) => ({
    label: u.label,
    problem: (): ScaleProblem | { zero: string } => {
      if (u.data() <= epsilon) return { zero: 'data processing: D_α(P_X‖Q_X) ≤ ε, so no release of X can exceed the budget' };
      const already = u.past();
      if (already !== null && !(already < epsilon))
        throw new InputError(
          `the past releases' certified bound already reaches D_α ≤ ${precisionUp(already, 4)} for ${u.where} (budget ε = ${epsilon}): no further release fits${u.tail ?? ''}`,
          'epsilon',
        );
      return u.problem();
    },
  }));
  const sol = solveUnits(driven, (l) => `prior '${l.prior}', pair ${l.pair.join(' vs ')}`, undefined, onProgress);
  if (sol.scale === 0) return { scale: 0, binding: null, method: 'data-processing' };
  const top = units[driven.findIndex((u) => u.label === sol.top.label)];
  return { scale: sol.scale, binding: sol.top.label, method: top.method(sol.scale) };
}

/**
 * The one next-release search, over a kind's hooks: the kind's units (`AccountKind.nextUnits`)
 * solved together by `nextScale`. The example: uniform laws at offsets 0 and 1.5 after a Laplace
 * release at b = 6 (level 0.25 of ε = 0.5): the next release needs b = 6.
 * @example
 * const uniforms = {
 *   shares: () => ({ units: [], shares: [] }),
 *   nextUnits: (_s, past, _next, _alpha, epsilon) => {
 *     const evaluate = (b) => ({ value: 1.5 * (1 / b + past.reduce((t, r) => t + 1 / r.scale, 0)), error: 0, target: epsilon, sense: 'le' });
 *     return { epsilon, units: [{ label: { prior: 'offsets', pair: ['0', '1.5'] }, where: 'offsets 0 vs 1.5', data: () => Infinity, past: () => 1.5 / 6, problem: () => ({ evaluate, lower: 1, upper: 100 }), method: () => 'coupled' }] };
 *   },
 * };
 * nextScaleKind(uniforms, {}, [{ mechanism: 'laplace', scale: 6 }], { mechanism: 'laplace' }, 2, 0.5).scale // 6
 */
export function nextScaleKind<S>(
  kind: AccountKind<S>,
  scenario: S,
  past: readonly AnyRelease[],
  next: Omit<AnyRelease, 'scale'>,
  alpha: number,
  epsilon: number,
  opts: { onProgress?: Progress; coordinateScales?: readonly number[] } = {},
): { scale: number; binding: { prior: string; pair: [string, string] } | null; method: JointMethod } {
  const k = kind.nextUnits(scenario, past, next, alpha, epsilon, opts);
  return nextScale(k.units, k.epsilon, opts.onProgress);
}

/** Options of an account of any law source: coordinate weights apply to vector-valued queries. */
export type AnyAccountOptions = {
  alphas: number[];
  delta?: number;
  onProgress?: Progress;
  coordinateScales?: readonly number[];
  /**
   * Only whether each order's level is within this ε matters (a search for a scale that fits): a
   * source whose bound can stop early (window counts) does, and its level is then an upper bound,
   * within ε exactly when the releases fit.
   */
  fitsWithin?: number;
  /** With `fitsWithin`: orders whose fit another bound already settles (vector laws: no pair needs a transport for them). */
  settled?: readonly number[];
};

/** A release of any law source's value: on ℝ^d it may publish some coordinates only (0-based). */
export type AnyRelease = Release & { coordinates?: readonly number[] };

/**
 * What a kind of law supplies to the one account (`accountKind`) and the one next-release search
 * (`nextScaleKind`), after the checks only this kind makes: its units — pairs, or directions of
 * them — with each one's certified share per order, and the next-release search's units.
 */
export interface AccountKind<S> {
  /** The units (pairs or directions) with each one's share per order (`shares[j][k]`: unit j at order k). */
  shares(
    scenario: S,
    releases: readonly AnyRelease[],
    opts: AnyAccountOptions,
  ): { units: readonly { prior: string; pair: readonly [string, string] }[]; shares: AccountShare[][] };
  /** The next-release search's units, and the budget left for them (the laws' mass error charged). */
  nextUnits(
    scenario: S,
    past: readonly AnyRelease[],
    next: Omit<AnyRelease, 'scale'>,
    alpha: number,
    epsilon: number,
    opts: { coordinateScales?: readonly number[] },
  ): { units: NextUnit[]; epsilon: number };
}

/** Finite laws on ℝ: no coordinates to publish apart, no coordinate weights. */
function oneValue<R extends { coordinates?: readonly number[] }>(
  releases: readonly R[],
  opts: { coordinateScales?: readonly number[] },
  field = 'release',
): R[] {
  if (releases.some((r) => r.coordinates))
    throw new InputError('columns and coordinates name parts of a vector query (several --query columns, or vector values in a spec)', field);
  oneCoordinate(opts);
  return [...releases];
}

/** Finite laws on ℝ: per pair, both directions in its bound; the exact accountant where it applies. */
const FINITE_ACCOUNT: AccountKind<Scenario> = {
  shares: (s, releases, opts) => {
    for (const r of releases) checkLawsFor(r.mechanism, s, undefined, 'release');
    return finiteShares(s, oneValue(releases, opts), opts);
  },
  nextUnits: (s, past, next, alpha, epsilon, opts) => {
    for (const r of past) checkLawsFor(r.mechanism, s, undefined, 'release');
    checkLawsFor(next.mechanism, s, undefined, 'next');
    return nextUnitsFinite(s, oneValue(past, opts), oneValue([next], {}, 'next-columns')[0], alpha, epsilon);
  },
};

/** Laws on ℝ^d: per direction, the coupled bounds (docs/math.md §12). */
const POINTS_ACCOUNT: AccountKind<PointScenario> = {
  shares: (s, releases, opts) => {
    // Only what a release publishes must lie on its lattice (a ledger's other statistics need not).
    for (const r of releases) checkLawsFor(r.mechanism, s, r.coordinates, 'release');
    return pointShares(s, releases, opts);
  },
  nextUnits: (s, past, next, alpha, epsilon, opts) => {
    for (const r of past) checkLawsFor(r.mechanism, s, r.coordinates, 'release');
    checkLawsFor(next.mechanism, s, next.coordinates, 'next');
    return nextUnitsPoints(s, past, next.mechanism, alpha, epsilon, {
      ...(opts.coordinateScales ? { coordinateScales: opts.coordinateScales } : {}),
      ...(next.coordinates ? { coordinates: next.coordinates } : {}),
    });
  },
};

/**
 * The one account, over a kind's hooks: the releases and the orders checked, each unit's share
 * per order (`AccountKind.shares`), and the rows of `accountOf` (per order the largest share, the
 * laws' mass error added, the naive sum beside it, the best (ε′, δ)). The example is a new kind:
 * uniform laws of one width at offsets a, where Laplace releases at b_r together give D_α ≤ |a − a′|·Σ 1/b_r.
 * @example
 * const level = (w, rs) => w * rs.reduce((t, r) => t + 1 / r.scale, 0);
 * const uniforms = {
 *   shares: (s, rs, o) => ({
 *     units: s.pairs.map(([a, b]) => ({ prior: 'offsets', pair: [String(a), String(b)] })),
 *     shares: s.pairs.map(([a, b]) => o.alphas.map(() => ({ value: level(Math.abs(a - b), rs), lower: null, method: 'coupled', naive: level(Math.abs(a - b), rs) }))),
 *   }),
 *   nextUnits: () => ({ units: [], epsilon: 1 }),
 * };
 * accountKind(uniforms, { pairs: [[0, 1.5]] }, [{ mechanism: 'laplace', scale: 6 }, { mechanism: 'laplace', scale: 6 }], { alphas: [2] }).rows[0].divergence // 0.5
 */
export function accountKind<S extends { massError?: number }>(
  kind: AccountKind<S>,
  scenario: S,
  releases: readonly AnyRelease[],
  opts: AnyAccountOptions,
): Accounting {
  checkAccount(releases, opts);
  const { units, shares } = kind.shares(scenario, releases, opts);
  return accountOf(units, shares, opts.alphas, { releases: releases.length, delta: opts.delta, massError: scenario.massError });
}

/**
 * The joint level of several releases of one value (docs/math.md §9): per order the certified
 * joint D_α over every prior, pair and direction, next to the naive sum of each release's own.
 * Finite laws on ℝ get the exact accountant where it applies (then `understated` says whether
 * adding budgets would have understated the leak); laws on ℝ^d a coupled upper bound (§12); a
 * series' windows, released in order, the window bounds (§19).
 * @example account(builtinScenario('heart'), [{ mechanism: 'laplace', scale: 1 }, { mechanism: 'gaussian', scale: 1.5 }], { alphas: [2] }).rows[0].divergence
 */
export function account(scenario: AnyScenario, releases: readonly AnyRelease[], opts: AnyAccountOptions): Accounting {
  return byLaw(
    scenario,
    {
      finite: (s) => accountKind(FINITE_ACCOUNT, s, releases, opts),
      points: (s) => accountKind(POINTS_ACCOUNT, s, releases, opts),
      // A series' windows are released in order and bounded by one programme over every pair.
      windows: (s) => {
        checkAccount(releases, opts, true);
        return accountWindows(s, oneValue(releases, opts), opts);
      },
    },
    'the account',
  );
}

/**
 * Whether an account of this law source spreads over threads: a vector query's directions do; a
 * value on ℝ is accounted on one thread, and an explicit thread count is refused rather than ignored.
 */
export function accountThreads(scenario: AnyScenario, asked: boolean): boolean {
  return byLaw(
    scenario,
    {
      finite: () => {
        if (asked) throw new InputError("spread a vector query's account over threads; one column is accounted on one thread", 'threads');
        return false;
      },
      points: () => true,
      windows: () => {
        if (asked) throw new InputError("a series' windows are accounted on one thread", 'threads');
        return false;
      },
    },
    'the account',
  );
}

/**
 * `account` with the work spread over a pool's threads where it is large (the directions of a
 * vector query's account, each whole on a worker: the numbers of one thread).
 */
export async function accountOnPool(
  pool: DirectionRunner,
  scenario: AnyScenario,
  releases: readonly AnyRelease[],
  opts: AnyAccountOptions,
): Promise<Accounting> {
  // A value on ℝ is accounted on one thread: a pool for it is refused here.
  if (!accountThreads(scenario, true)) return account(scenario, releases, opts);
  return accountPointsOnPool(pool, scenario as PointScenario, releases, opts);
}

/** The Rényi order and budget the next release must keep, with the search's progress and a vector's coordinate weights. */
export interface NextReleaseSettings {
  alpha: number;
  epsilon: number;
  onProgress?: Progress;
  coordinateScales?: readonly number[];
}

/**
 * The smallest scale of one more release (`next`) that keeps the joint level of all releases —
 * `past` and the new one — within (α, ε) for every prior and pair: the joint bound falls as the
 * new scale grows, so the driver's bracketed search applies. InputError when the past releases
 * alone already exceed ε (no amount of noise on a new release can undo them).
 * @example nextReleaseScale(builtinScenario('heart'), [{ mechanism: 'gaussian', scale: 2 }], { mechanism: 'gaussian' }, { alpha: 2, epsilon: 1 }).scale
 */
export function nextReleaseScale(
  scenario: AnyScenario,
  past: readonly AnyRelease[],
  next: Omit<AnyRelease, 'scale'>,
  settings: NextReleaseSettings,
): { scale: number; binding: { prior: string; pair: [string, string] } | null; method: JointMethod } {
  checkShape(ARRAY, past, 'past');
  checkShape(OBJECT, next, 'next');
  checkShape(OBJECT, settings, 'settings');
  const { alpha, epsilon, ...opts } = settings;
  checkShape(NUMBER, alpha, 'alpha');
  checkShape(NUMBER, epsilon, 'epsilon');
  const kinded = <S extends { massError?: number }>(kind: AccountKind<S>, s: S) => nextScaleKind(kind, s, past, next, alpha, epsilon, opts);
  return byLaw(
    scenario,
    {
      finite: (s) => kinded(FINITE_ACCOUNT, s),
      points: (s) => kinded(POINTS_ACCOUNT, s),
      windows: (s) => {
        const r = nextWindowScale(s, past as Release[], next.mechanism, alpha, epsilon);
        if (r === null)
          throw new InputError(
            `no scale of ${next.mechanism} noise for the next window keeps ε = ${epsilon} at α = ${alpha}: the windows released already exceed it`,
            'next',
          );
        return { scale: r.scale, binding: r.binding, method: r.method };
      },
    },
    'the next-release search',
  );
}
