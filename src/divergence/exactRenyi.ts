import type { Discrete, Law } from '../distribution/discrete.js';
import { InputError } from '../errors.js';
import { checkShape, LAW, NOISE, NUMBER } from '../shapes.js';
import { EPS, maxOf, minOf } from '../numerics/float.js';
import { gk21Points, gk21Sums } from '../numerics/gaussKronrod.js';
import type { Bounded } from '../numerics/logExpectation.js';
import { renyiIntegrand, type Integrand, type Noise, type NoiseKernel, type OnePassIntegral } from './kernel.js';
import { isolatedAtoms } from './isolatedAtoms.js';
import { plainLogDensityBounded } from './plainDensity.js';
import { logAddExp, mixtureOf, type BoundedLogDensity, type Mixture } from './mixture.js';

/** Options of the exact accountant: a truncation interval, the tolerance, the evaluator. */
export interface ExactOptions {
  /** Target relative accuracy of ∫p^α q^{1−α}. Default 1e-12. */
  rtol?: number;
  /** `fast` (O(N+K) sweeps, default) or `plain` (O(N·K), the oracle). */
  evaluator?: 'fast' | 'plain';
  /** Integrate over [lo, hi] only (truncated releases); default the whole line. */
  interval?: [number, number];
  /** Skip the family's one-pass rules (Laplace gap rule, Gaussian trapezoidal and grid rules) and run the adaptive quadrature: for comparisons. */
  adaptive?: boolean;
  /** A check at one scale rather than a search: the one-pass rule may take fewer nodes for a looser (still certified) error. */
  quick?: boolean;
  /** A certified lower bound on log ∫ p^α q^{1−α} over the interval (what a quick check's skipped gaps are measured against). */
  logFloor?: number;
}

/** A certified D_α: `value` with a rigorous bound `error` on its distance to the true divergence. */
export interface ExactDivergence extends Bounded {
  /** Density evaluations used (per mixture). */
  nodes: number;
  /** How `error` was obtained: a proof by analytic continuation of the mixtures (docs/math.md §8). */
  certificate: 'bernstein-ellipse';
}

const MAX_ROUNDS = 80;
const MAX_PANELS = 2_000_000;
/**
 * Panels allowed per atom of the joint support (plus a base). Certified panels need not be many:
 * a few dozen per gap at the start, a few doublings where the integrand is sharp. Far beyond that
 * the bisection is fighting a floor — log-densities of 10¹⁰ nats (noise a millionth of the atoms'
 * spacing), whose rounding no panel width removes — and would fill memory before certifying.
 */
const PANELS_PER_ATOM = 2_000;
const PANELS_BASE = 20_000;

/**
 * Both laws (and the interval) shifted by a common c so the quadrature works near 0: D_α is
 * invariant under a common shift, and atoms near 10¹² would otherwise put nodes on a grid of
 * doubles coarser than the noise. The shift is exact: it is used only when every value has one
 * sign and lies within a factor 2 of c (Sterbenz: then x − c is a double); otherwise |x| is at
 * most twice the spread and no shift is needed.
 */
export function centred(ds: Law[], interval?: [number, number]): { mixtures: Mixture[]; interval?: [number, number]; shift: number } {
  let lo = Infinity,
    hi = -Infinity;
  for (const d of ds) {
    lo = Math.min(lo, d.values[0]);
    hi = Math.max(hi, d.values[d.values.length - 1]);
  }
  for (const e of interval ?? [])
    if (Number.isFinite(e)) {
      lo = Math.min(lo, e);
      hi = Math.max(hi, e);
    }
  const c = lo > 0 && hi <= 2 * lo ? lo : hi < 0 && lo >= 2 * hi ? hi : 0;
  return {
    mixtures: ds.map((d) => shiftedMixture(d, c)),
    interval: interval && (c === 0 ? interval : [interval[0] - c, interval[1] - c]),
    shift: c,
  };
}

// A calibration evaluates one pair's laws at every trial scale in a row: the mixtures (the logs of
// the masses, the shifted atoms) of the last few laws are kept, not every law's (a long chain has
// thousands). Laws are never written after they are built.
const RECENT = 4;
const recent: { d: Law; c: number; m: Mixture }[] = [];
function shiftedMixture(d: Law, c: number): Mixture {
  const hit = recent.find((r) => r.d === d && r.c === c);
  if (hit) return hit.m;
  const m0 = mixtureOf(d);
  const m = c === 0 ? m0 : { ...m0, x: m0.x.map((x) => x - c) };
  recent.unshift({ d, c, m });
  if (recent.length > RECENT) recent.pop();
  return m;
}

/**
 * Exact Rényi divergence D_α(P_Y ‖ Q_Y) of Y = X + N for discrete X (docs/math.md §4, derived):
 * P_Y, Q_Y are finite mixtures of shifted noise densities, so
 *     D_α = 1/(α−1) · log ∫ p(y)^α q(y)^{1−α} dy,   α ∈ (0,1) ∪ (1,∞),
 * computed over the whole line by the family's one-pass rule (Laplace: the gap rule; Gaussian: the
 * trapezoidal rule on large supports, else the grid rule), else — intervals, the plain oracle, or where a rule declines — by globally adaptive
 * Gauss–Kronrod (G10/K21) quadrature in log-space (docs/math.md §8).
 *
 * Adaptive method. Laplace panels never straddle an atom (the integrand has kinks there); Gaussian
 * panels start at atoms at least 4σ apart. Each gap is cut into panels growing geometrically
 * from both ends, starting at b/α (Gaussian: equal panels of σ/√α), and panels are bisected until
 * their certified errors sum to at most rtol·∫.
 * Tails. Laplace: beyond the outermost atoms both mixtures are ∝ e^{∓y/b}, so each tail is
 * exactly b·p(z)^α q(z)^{1−α} at the end atom z. Gaussian: integration stops at cut-offs at least
 * 8.8σ beyond the atoms and beyond the centres α·x + (1−α)·x′ of the end atoms; the rest is
 * bounded in closed form (Mills' ratio) and added to the error.
 * Error. `error` bounds |computed − true| of D_α: each panel's error is a proof by analytic
 * continuation (Bernstein ellipse), plus the tail bound and rounding, divided by |α−1|.
 *
 * @example exactRenyi(fromCounts([0], [1]), fromCounts([1], [1]), noiseOf('gaussian', 1), 2).value // α/2 = 1
 */
export function exactRenyi(p: Law, q: Law, noise: Noise, alpha: number, opts: ExactOptions = {}): ExactDivergence {
  checkShape(NOISE, noise, 'noise');
  checkShape(NUMBER, alpha, 'alpha');
  if (!(alpha > 0) || alpha === 1 || alpha === Infinity) throw new RangeError(`exactRenyi: α must be in (0,1) ∪ (1,∞), got ${alpha}`);
  if (!(noise.scale > 0)) throw new RangeError(`exactRenyi: noise scale must be > 0, got ${noise.scale}`);
  const {
    mixtures: [P, Q],
    interval,
    shift,
  } = centred([p, q], opts.interval);
  opts = { ...opts, interval };
  const certificate = 'bernstein-ellipse' as const;
  if (!opts.interval) {
    const logI = logIntegralRetry(P, Q, noise, alpha, opts);
    const value = logI.value / (alpha - 1);
    return { ...bracketed(value, logI.error / Math.abs(alpha - 1) + 2 * EPS * Math.abs(value)), nodes: logI.nodes, certificate };
  }
  // Truncated outputs p·1_I/P(I), q·1_I/Q(I) (Fu et al., docs/math.md §5):
  //   ∫_I (p/P_I)^α (q/Q_I)^{1−α} = P_I^{−α} Q_I^{α−1} ∫_I p^α q^{1−α}.
  const mp = massIn(P, noise, opts.interval, shift, opts),
    mq = massIn(Q, noise, opts.interval, shift, opts);
  // At α > 1 the truncated laws' D_α ≥ 0, so ∫_I p^α q^{1−α} ≥ P_I^α Q_I^{1−α}: a quick check's
  // negligible gaps are measured against that floor.
  const logFloor = alpha > 1 ? alpha * (mp.value - mp.error) + (1 - alpha) * (mq.value + mq.error) : undefined;
  const I = opts.interval;
  const logI = logIntegralRetry(P, Q, noise, alpha, { ...opts, logFloor }, (x) => atomMassIn(x, noise, I, shift));
  const value = (logI.value - alpha * mp.value + (alpha - 1) * mq.value) / (alpha - 1);
  const error = (logI.error + alpha * mp.error + Math.abs(alpha - 1) * mq.error) / Math.abs(alpha - 1) + 2 * EPS * Math.abs(value);
  return { ...bracketed(value, error), nodes: logI.nodes + ((mp as { nodes?: number }).nodes ?? 0) + ((mq as { nodes?: number }).nodes ?? 0), certificate };
}

/**
 * A divergence without a certificate (infinite error) whose estimate is not finite either (the
 * integral underflowed: log 0) is stated as 0 ± ∞, every D_α being ≥ 0: value ± error then brackets
 * nothing, where −∞ + ∞ would be NaN and fail every comparison, an upper bound's included.
 */
const bracketed = (value: number, error: number): Bounded => (error < Infinity || Number.isFinite(value) ? { value, error } : { value: 0, error: Infinity });

/** log of the probability a mixture's output lands in [lo, hi], with its error bound. */
export function logMassIn(p: Law, noise: Noise, interval: [number, number]): Bounded {
  if (!(noise.scale > 0)) throw new RangeError(`logMassIn: noise scale must be > 0, got ${noise.scale}`);
  const {
    mixtures: [P],
    interval: I,
    shift,
  } = centred([p], interval);
  return massIn(P, noise, I!, shift);
}

/**
 * A mixture's log mass in an interval: the family's closed form where it has one, else its atoms'
 * masses, each found alone and weighted. One atom is one peak, which a one-pass rule certifies in
 * a few panels at any scale, where the whole mixture's integrand over atoms many scales apart needs
 * the adaptive quadrature. Atoms are taken in order of a certified upper bound on their weighted
 * mass (the weight times the noise's tail beyond the distance to the interval); those whose bounds
 * together are below 10⁻¹⁵ of what is found are left out and charged. Each term's error counts in
 * proportion to its share, never beyond its bound (an atom's mass is at most its weight), so one
 * far atom the quadrature cannot resolve costs its share, not the certificate. `shift` is the
 * centring's (the atoms' masses are kept by their own coordinates); the plain evaluator and the
 * adaptive option integrate the mixture whole, as an independent oracle.
 */
function massIn(P: Mixture, noise: Noise, interval: readonly [number, number], shift: number, opts: ExactOptions = {}): Bounded {
  if (noise.kernel.logMassIn) return noise.kernel.logMassIn(P, noise.scale, interval);
  if (opts.evaluator === 'plain' || opts.adaptive)
    return integrateRetry(renyiIntegrand(P, P, 1, noise.scale), noise, { ...opts, interval: [interval[0], interval[1]] });
  const bounds = Array.from(P.x, (x, i) => P.logw[i] + atomReach(x, noise, interval));
  const order = Array.from(bounds.keys()).sort((i, j) => bounds[j] - bounds[i]);
  if (bounds[order[0]] === -Infinity) return { value: -Infinity, error: 0 };
  // All in logs: a mass far below its atom's bound (an interval a few ulps wide) is no subnormal.
  // rest[k]: the bounds of atoms order[k..] together.
  const rest = new Float64Array(order.length + 1).fill(-Infinity);
  for (let k = order.length - 1; k >= 0; k--) rest[k] = logAddExp(rest[k + 1], bounds[order[k]]);
  // The estimate and certified brackets below and above it.
  let sum = -Infinity,
    below = -Infinity,
    above = -Infinity,
    k = 0;
  for (; k < order.length && !(rest[k] <= below + LOG_NEGLIGIBLE); k++) {
    const i = order[k];
    const t = shiftedBy(atomMassIn(P.x[i], noise, interval, shift), P.logw[i]);
    // An uncertified mass says nothing: only its bound counts, above.
    if (!(t.error < Infinity)) {
      above = logAddExp(above, bounds[i]);
      continue;
    }
    sum = logAddExp(sum, t.value);
    below = logAddExp(below, t.value - t.error);
    above = logAddExp(above, Math.min(t.value + t.error, bounds[i]));
  }
  above = logAddExp(above, rest[k]);
  if (sum === -Infinity) return above > -Infinity ? { value: bounds[order[0]], error: Infinity } : { value: -Infinity, error: 0 };
  const spread = Math.max(above - sum, sum - below);
  // Each log-sum of n terms is within (n + 4)u of its magnitude (and the spread's own ends alike).
  return { value: sum, error: spread + (order.length + 8) * EPS * (2 + Math.abs(sum) + spread) };
}

/** Atoms whose bounds together are below 10⁻¹⁵ of the certified part are charged, not computed. */
const LOG_NEGLIGIBLE = Math.log(1e-15);

/**
 * log of a certified upper bound on an atom's chance of reaching the interval: the noise's tail
 * beyond the distance to it (the family's `logTailAbove`), or 0 inside it or without that hook.
 */
function atomReach(x: number, noise: Noise, [lo, hi]: readonly [number, number]): number {
  const tail = noise.kernel.logTailAbove;
  if (!tail || (x >= lo && x <= hi)) return 0;
  return tail(x < lo ? lo - x : x - hi, noise.scale);
}

/**
 * The last scale's atom masses: a calibration checks many pairs of laws on the same atoms at one
 * scale and interval (a truncated chain's hundreds of pairs), each needing every atom's mass. Kept
 * by the atoms' own coordinates (x + shift is exact: see `centred`), as each pair is centred apart.
 */
let atomMasses: { kernel: NoiseKernel; scale: number; lo: number; hi: number; mass: Map<number, Bounded> } | null = null;

/** log of the chance that x plus the noise lands in the interval, certified (kept for the scale). */
function atomMassIn(x: number, noise: Noise, interval: readonly [number, number], shift: number): Bounded {
  const [lo, hi] = [interval[0] + shift, interval[1] + shift];
  const c = atomMasses;
  if (!(c && c.kernel === noise.kernel && c.scale === noise.scale && c.lo === lo && c.hi === hi))
    atomMasses = { kernel: noise.kernel, scale: noise.scale, lo, hi, mass: new Map() };
  const cache = atomMasses!.mass;
  let m = cache.get(x + shift);
  if (!m) {
    m = deepInside(x, noise, interval) ?? atomMassByRule(x, noise, interval);
    // Only a certified mass is kept: an atom far from the centring (an atom at 10¹² beside one at −1)
    // may not certify here, and would stand in for a later call that centres it and can.
    if (m.error < Infinity) cache.set(x + shift, m);
  }
  return m;
}

/**
 * An atom whose noise reaches either end of the interval with chance below 10⁻¹⁴ has mass in
 * [1 − that chance, 1]: log 0, the bracket its error (a tiny scale, where a quadrature would need
 * panels finer than the doubles near the atom, answers at once).
 */
function deepInside(x: number, noise: Noise, [lo, hi]: readonly [number, number]): Bounded | null {
  const tail = noise.kernel.logTailAbove;
  if (!tail || !(x > lo && x < hi)) return null;
  const out = Math.exp(tail(x - lo, noise.scale)) + Math.exp(tail(hi - x, noise.scale));
  return out <= 1e-14 ? { value: 0, error: -Math.log1p(-out) * (1 + 4 * EPS) + EPS } : null;
}

/** Below this scale σ² underflows and the rules' integrands lose their meaning: a mass there is not certified. */
const SMALLEST_RULE_SCALE = 1e-150;

function atomMassByRule(x: number, noise: Noise, interval: readonly [number, number]): Bounded {
  if (!(noise.scale >= SMALLEST_RULE_SCALE)) return { value: 0, error: Infinity };
  const one: Mixture = { x: Float64Array.of(x), logw: Float64Array.of(0) };
  return logIntegralRetry(one, one, noise, 1, { interval: [interval[0], interval[1]] });
}

/** A bounded log value plus a log weight (the weight's own rounding charged). */
const shiftedBy = (b: Bounded, logw: number): Bounded => ({ value: b.value + logw, error: b.error + EPS * (Math.abs(b.value) + Math.abs(logw)) });

/**
 * log ∫ p^α q^{1−α}: the family's one-pass rule where it applies, else the adaptive quadrature,
 * moving the Gaussian cut-offs out when the integral is so small (α < 1) that the tail bound matters.
 */
function logIntegralRetry(P: Mixture, Q: Mixture, noise: Noise, alpha: number, opts: ExactOptions, mass?: (x: number) => Bounded) {
  if (noise.kernel.lattice && opts.interval) throw new InputError(`takes no interval with ${noise.family} noise (its outputs are integers)`, 'truncate');
  // α = 1 is a mixture's mass in an interval: a one-pass rule that takes intervals gives it too.
  const one = alpha !== 1 || (opts.interval && noise.kernel.onePassIntervals) ? onePass(P, Q, noise, alpha, opts, false, mass)?.[0] : null;
  return one || integrateRetry(renyiIntegrand(P, Q, alpha, noise.scale), noise, opts);
}

/**
 * A one-pass rule for the Rényi integrand(s), if one applies: atoms many scales apart are bracketed
 * in closed form (over an interval, given the atoms' masses `mass`), else the family's own rule.
 */
function onePass(P: Mixture, Q: Mixture, noise: Noise, alpha: number, opts: ExactOptions, both: boolean, mass?: (x: number) => Bounded) {
  const rule = noise.kernel.renyiOnePass;
  const rtol = opts.rtol ?? 1e-12;
  if (noise.kernel.lattice) return rule!(P, Q, alpha, noise.scale, rtol, both);
  if (opts.evaluator === 'plain' || opts.adaptive) return null;
  const isolated = !opts.interval || mass ? isolatedAtoms(P, Q, alpha, noise, rtol, both, mass) : null;
  if (isolated) return isolated;
  if (!rule || (opts.interval && !noise.kernel.onePassIntervals)) return null;
  return rule(P, Q, alpha, noise.scale, rtol, both, opts.quick, opts.interval, opts.logFloor);
}

/** Retries with the Gaussian cut-offs further out when the tail bound is not negligible (small integrals). */
function integrateRetry(f: Integrand, noise: Noise, opts: ExactOptions) {
  return integrateRetryAll([f], noise, opts)[0];
}

function integrateRetryAll(fs: Integrand[], noise: Noise, opts: ExactOptions) {
  const rtol = opts.rtol ?? 1e-12;
  const first = logIntegrals(fs, noise, opts, 0);
  const share = maxOf(first.map((r) => r.tailShare));
  return share > rtol ? logIntegrals(fs, noise, opts, Math.log(share / rtol) + 5) : first;
}

/**
 * D_α(P_Y‖Q_Y) and D_α(Q_Y‖P_Y) together (`exactRenyi` for both directions): one panel set for
 * both integrands, so each mixture is evaluated once per node. Whole line only.
 */
export function exactRenyiBoth(
  p: Discrete,
  q: Discrete,
  noise: Noise,
  alpha: number,
  opts: Omit<ExactOptions, 'interval'> = {},
): [ExactDivergence, ExactDivergence] {
  if (!(alpha > 0) || alpha === 1 || alpha === Infinity) throw new RangeError(`exactRenyi: α must be in (0,1) ∪ (1,∞), got ${alpha}`);
  if (!(noise.scale > 0)) throw new RangeError(`exactRenyi: noise scale must be > 0, got ${noise.scale}`);
  const {
    mixtures: [P, Q],
  } = centred([p, q]);
  const [pq, qp] =
    onePass(P, Q, noise, alpha, opts, true) ??
    integrateRetryAll([renyiIntegrand(P, Q, alpha, noise.scale), renyiIntegrand(Q, P, alpha, noise.scale)], noise, opts);
  const one = (logI: Integral): ExactDivergence => {
    const value = logI.value / (alpha - 1);
    return { ...bracketed(value, logI.error / Math.abs(alpha - 1) + 2 * EPS * Math.abs(value)), nodes: logI.nodes, certificate: 'bernstein-ellipse' };
  };
  return [one(pq), one(qp)];
}

const U = EPS / 2;

function evaluate(m: Mixture, noise: Noise, ys: Float64Array, plain: boolean): BoundedLogDensity {
  return plain ? plainLogDensityBounded(noise.kernel, m, noise.scale, ys) : noise.kernel.mixtureLogDensity(m, noise.scale, ys);
}

type Integral = OnePassIntegral;

/**
 * log ∫ f for several integrands over the same mixtures (the two directions p^α q^{1−α} and
 * q^α p^{1−α}): one panel set, refined wherever any integrand needs it, so each mixture is
 * evaluated once per node for all of them. Each integrand keeps its own tails and error bound;
 * integrating one over a wider domain than its own leaves its tail bound valid (the part beyond
 * the wider cut-off is a subset of the part beyond its own). `extraNats` pushes the Gaussian
 * cut-offs further out.
 *
 * Kept whole (over 120 lines): a certified quadrature kernel, whose error bound is one argument over
 * the loop it bounds; split, the pieces would pass the partial sums and their bounds between them.
 */
function logIntegrals(fs: Integrand[], noise: Noise, opts: ExactOptions, extraNats: number): Integral[] {
  const rtol = opts.rtol ?? 1e-12;
  const plain = opts.evaluator === 'plain';
  const s = noise.scale;
  const kernel = noise.kernel;
  const mixtures = [...new Set(fs.flatMap((f) => f.mixtures))];
  const slots = fs.map((f) => f.mixtures.map((m) => mixtures.indexOf(m)));
  const F = fs.length;
  const atoms = Float64Array.from(new Set(mixtures.flatMap((m) => [...m.x]))).sort();
  const z0 = atoms[0],
    zN = atoms[atoms.length - 1];
  // Log integrands at sorted points, with a rigorous bound on their rounding error at each point:
  // the densities' own error and, since node y is computed with error ≤ 2u(|y| + half-width),
  // |d log f/dy|·that (each mixture's log density moves at most lip per unit of y).
  const h = (ys: Float64Array, halfWidth: Float64Array | number, only?: number) => {
    const ev = mixtures.map((m) => evaluate(m, noise, ys, plain));
    // How far the computed node may sit from the intended one: 2u(|y| + half-width).
    const dy = new Float64Array(ys.length);
    for (let i = 0; i < ys.length; i++) dy[i] = 2 * U * (Math.abs(ys[i]) + (typeof halfWidth === 'number' ? halfWidth : halfWidth[i]));
    return fs.map((f, k) => {
      if (only !== undefined && k !== only) return null;
      const mine = slots[k].map((j) => ev[j]);
      const ld = mine.map((e) => e.ld);
      const out = new Float64Array(ys.length),
        err = new Float64Array(ys.length);
      for (let i = 0; i < ys.length; i++) {
        out[i] = f.combine(ld, i);
        let e = 0;
        for (let j = 0; j < mine.length; j++) e = Math.max(e, mine[j].err[i] + mine[j].lip[i] * dy[i]);
        // A node where the integrand is exactly 0 (log −∞) contributes nothing and carries no error.
        err[i] = out[i] === -Infinity ? 0 : f.sensitivity * e + 4 * U * (Math.abs(out[i]) + 1);
      }
      return { h: out, err };
    });
  };

  // Each integrand's domain, breakpoints and tail terms (the family's tail model); panels cover their union.
  const [LO, HI] = opts.interval ?? [-Infinity, Infinity];
  const doms = fs.map((f, k) =>
    kernel.domain(f, {
      z0,
      zN,
      LO,
      HI,
      scale: s,
      extraNats,
      atEnds: () => h(Float64Array.of(z0, zN), 0, k)[k]!,
    }),
  );
  const lo = minOf(doms.map((d) => d.lo)),
    hi = maxOf(doms.map((d) => d.hi));
  const tails = doms.map((d) => d.tails);
  const breaks = [...atoms, LO, HI, ...doms.flatMap((d) => d.breaks)];

  // Initial panels: geometric from both ends of every gap, starting narrower for sharper integrands
  // (width ~ scale/α Laplace, scale/√α Gaussian, at large α). The Gaussian integrand has no kinks,
  // so its breakpoints are thinned to at least 4σ apart (dense atoms share panels).
  const sharp = Math.max(1, ...fs.map((f) => f.sensitivity / 2));
  let pts = Float64Array.from(new Set(breaks))
    .sort()
    .filter((x) => x >= lo && x <= hi);
  if (!(hi > lo)) pts = new Float64Array(0);
  pts = kernel.panelEnds(pts, s);
  const w0 = kernel.firstPanel(s, sharp);
  // An order so large that the integrand's spike at an atom is narrower than the doubles resolve
  // (its width underflows): no quadrature certifies anything there.
  if (!(w0 > 0)) return fs.map(() => ({ value: Infinity, error: Infinity, nodes: 0, tailShare: 0 }));
  // Panels as flat [a0, b0, a1, b1, …], kept in increasing order so each round's nodes are sorted.
  let pending: number[] = [];
  const even = kernel.evenPanel?.(s, sharp);
  for (let i = 0; i + 1 < pts.length; i++) {
    const a = pts[i],
      b = pts[i + 1];
    // Equal panels where the family knows a width its certificates usually pass (Gaussian), unless
    // the gap is long enough for geometric growth to save panels.
    const k = even ? Math.ceil((b - a) / even) : Infinity;
    if (k <= 64) {
      for (let j = 0; j < k; j++) pending.push(j === 0 ? a : a + ((b - a) * j) / k, j === k - 1 ? b : a + ((b - a) * (j + 1)) / k);
      continue;
    }
    let w = w0,
      l = a,
      r = b;
    const right: number[] = [];
    while (r - l > 4 * w) {
      pending.push(l, l + w);
      right.push(r, r - w);
      l += w;
      r -= w;
      w *= 2;
    }
    pending.push(l, r);
    for (let k = right.length - 2; k >= 0; k -= 2) pending.push(right[k + 1], right[k]);
  }

  // Finished panels, struct-of-arrays: ends; per integrand log-shift, Kronrod sum, log error bound, node rounding.
  type PerF = { Mx: number[]; Kr: number[]; Le: number[]; Dl: number[] };
  const fresh = (): PerF[] => fs.map(() => ({ Mx: [], Kr: [], Le: [], Dl: [] }));
  let A: number[] = [],
    B: number[] = [],
    P = fresh();
  /** Finished panel k (its ends and every integrand's sums) appended to another panel list. */
  const copyPanel = (k: number, toA: number[], toB: number[], toP: PerF[]) => {
    toA.push(A[k]);
    toB.push(B[k]);
    for (let f = 0; f < F; f++) {
      toP[f].Mx.push(P[f].Mx[k]);
      toP[f].Kr.push(P[f].Kr[k]);
      toP[f].Le.push(P[f].Le[k]);
      toP[f].Dl.push(P[f].Dl[k]);
    }
  };
  let nodes = 2;
  const done: (Integral | null)[] = fs.map(() => null);
  const panelCap = Math.min(MAX_PANELS, PANELS_BASE + PANELS_PER_ATOM * atoms.length);
  for (let round = 0; ; round++) {
    const n = pending.length / 2;
    const ys = new Float64Array(n * 21);
    const hw = new Float64Array(n * 21);
    for (let i = 0; i < n; i++) {
      gk21Points(pending[2 * i], pending[2 * i + 1], ys, i * 21);
      hw.fill((pending[2 * i + 1] - pending[2 * i]) / 2, i * 21, i * 21 + 21);
    }
    const ev = h(ys, hw);
    nodes += ys.length;
    const pa: number[] = [],
      pb: number[] = [];
    for (let i = 0; i < n; i++) {
      pa.push(pending[2 * i]);
      pb.push(pending[2 * i + 1]);
    }
    // Panel error bounds need not beat 1e-16 of the panel's own size (max f × width): far below
    // any rtol ≥ 1e-14 even if Σ (max f × width) exceeded ∫ f by a factor 100.
    const enough = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      let m = Infinity;
      for (const e of ev) {
        let mx = -Infinity;
        for (let t = 0; t < 21; t++) if (e!.h[i * 21 + t] > mx) mx = e!.h[i * 21 + t];
        m = Math.min(m, mx);
      }
      enough[i] = m + Math.log(pb[i] - pa[i]) - 37;
    }
    const cert = n > 0 ? kernel.panelErrors(fs, s, pa, pb, plain, enough) : [];
    // Merge the new panels into the sorted finished list.
    const nA: number[] = [],
      nB: number[] = [],
      nP = fresh();
    let j = 0;
    const keep = (k: number) => copyPanel(k, nA, nB, nP);
    for (let i = 0; i < n; i++) {
      const a = pa[i],
        b = pb[i];
      while (j < A.length && A[j] < a) keep(j++);
      nA.push(a);
      nB.push(b);
      for (let f = 0; f < F; f++) {
        const e = ev[f]!;
        let m = -Infinity,
          d = 0;
        for (let t = 0; t < 21; t++) {
          if (e.h[i * 21 + t] > m) m = e.h[i * 21 + t];
          d = Math.max(d, e.err[i * 21 + t]);
        }
        const sums = m === -Infinity ? { kronrod: 0, gauss: 0 } : gk21Sums(e.h, i * 21, a, b, m);
        const c = cert[f];
        nP[f].Mx.push(m);
        nP[f].Kr.push(sums.kronrod);
        nP[f].Le.push(c[i]);
        nP[f].Dl.push(d);
      }
    }
    while (j < A.length) keep(j++);
    [A, B, P] = [nA, nB, nP];
    const bisectable = (i: number) => B[i] - A[i] > 64 * EPS * Math.max(Math.abs(A[i]), Math.abs(B[i]), s);
    const split = new Uint8Array(A.length);
    let splits = 0;
    let hopeless = false;
    for (let f = 0; f < F; f++) {
      const { Mx, Kr, Le, Dl } = P[f];
      // Totals relative to the largest panel (or tail) shift.
      let M = tails[f].logValue;
      for (const m of Mx) if (m > M) M = m;
      for (const l of Le) if (l > M && l < Infinity) M = l;
      if (M === -Infinity) {
        // Nothing computed in the domain: ∫ = 0 only if the tails' bound is 0 too; else it is at most that bound.
        const b = tails[f].logBound;
        done[f] = b === -Infinity ? { value: -Infinity, error: 0, nodes, tailShare: 0 } : { value: b, error: Infinity, nodes, tailShare: 1 };
        continue;
      }
      let T = 0,
        E = 0,
        R = 0;
      const err = new Float64Array(A.length);
      for (let i = 0; i < A.length; i++) {
        const v = Math.exp(Mx[i] - M) * Kr[i];
        T += v;
        err[i] = Math.exp(Le[i] - M);
        E += err[i];
        // Node values are exact to a factor e^{±δ}; weights, exp and the 21-term sum add ≤ 30u.
        R += v * (Math.expm1(Dl[i]) + 30 * U);
      }
      const Ttot = T + Math.exp(tails[f].logValue - M);
      R += Math.exp(tails[f].logRound - M) + (A.length + 16) * U * Ttot;
      // Refining below the rounding floor buys nothing.
      const tol = Math.max(rtol * Ttot, R);
      const share = tol / A.length;
      const bound = Math.exp(tails[f].logBound - M);
      const relErr = (E + R + bound) / Ttot;
      const error = relErr < 0.5 ? relErr / (1 - relErr) + 2 * U * Math.abs(M + Math.log(Ttot)) : Infinity;
      // Converged, or out of resolution: either way the bound is honest (possibly large). M
      // includes the error terms: when every value term underflowed against them, the value is
      // their own sum, never log 0 (the error is ∞ then, and the evaluation certifies nothing).
      let value = M + Math.log(Ttot);
      if (!(Ttot > 0)) {
        let Mv = tails[f].logValue;
        for (const m of Mx) if (m > Mv) Mv = m;
        let Tv = Math.exp(tails[f].logValue - Mv);
        for (let i = 0; i < A.length; i++) Tv += Math.exp(Mx[i] - Mv) * Kr[i];
        value = Mv + Math.log(Tv);
      }
      done[f] = { value, error, nodes, tailShare: bound / Ttot };
      // Panels too narrow to bisect (the double grid is coarser than the noise) keep their error
      // for good: once they hold half the integral no refinement can certify, so stop here.
      let stuck = 0;
      for (let i = 0; i < A.length; i++) if (!bisectable(i)) stuck += err[i];
      if (E > tol && stuck > 0 && stuck >= 0.5 * Ttot) {
        done[f] = { ...done[f]!, error: Infinity };
        hopeless = true;
      }
      if (E > tol && round < MAX_ROUNDS)
        for (let i = 0; i < A.length; i++)
          if (err[i] > share && bisectable(i) && !split[i]) {
            split[i] = 1;
            splits++;
          }
    }
    if (hopeless || splits === 0 || A.length + splits > panelCap) return done.map((d) => ({ ...d!, nodes }));
    // Bisect the panels carrying more than their share of some integrand's error.
    const kA: number[] = [],
      kB: number[] = [],
      kP = fresh();
    pending = [];
    for (let i = 0; i < A.length; i++) {
      if (split[i]) {
        const mid = (A[i] + B[i]) / 2;
        pending.push(A[i], mid, mid, B[i]);
      } else {
        copyPanel(i, kA, kB, kP);
      }
    }
    [A, B, P] = [kA, kB, kP];
  }
}

/**
 * For each value of `xs`, the index of the equal value in `ys`, or −1. Laws keep their support
 * sorted and distinct, so a merge finds them in O(K + L); any other input is looked up by a map.
 * @example partnerIndex(Float64Array.of(1, 2, 4), Float64Array.of(2, 3, 4)) // Int32Array [-1, 0, 2]
 */
function partnerIndex(xs: Float64Array, ys: Float64Array): Int32Array {
  const at = new Int32Array(xs.length).fill(-1);
  if (!(increasing(xs) && increasing(ys))) {
    const index = new Map<number, number>();
    for (let j = 0; j < ys.length; j++) index.set(ys[j], j);
    for (let i = 0; i < xs.length; i++) at[i] = index.get(xs[i]) ?? -1;
    return at;
  }
  for (let i = 0, j = 0; i < xs.length; i++) {
    while (j < ys.length && ys[j] < xs[i]) j++;
    if (j < ys.length && ys[j] === xs[i]) at[i] = j;
  }
  return at;
}

const increasing = (v: Float64Array) => v.every((x, i) => i === 0 || v[i - 1] < x);

/**
 * D_α of the data itself, P_X vs Q_X (discrete): by data processing D_α(P_Y) ≤ D_α(P_X), so when
 * this meets the budget no noise is needed. ∞ when α ≥ 1 and P has mass where Q has none.
 * @example discreteRenyi(fromCounts([0, 1], [3, 1]), fromCounts([0, 1], [1, 3]), 2).value // log(7/3)
 */
export function discreteRenyi(p: Law, q: Law, alpha: number): Bounded {
  checkShape(LAW, p, 'p');
  checkShape(LAW, q, 'q');
  checkShape(NUMBER, alpha, 'alpha');
  const at = partnerIndex(p.values, q.values);
  const terms: number[] = [];
  for (let i = 0; i < p.values.length; i++) {
    const qq = at[i] < 0 ? undefined : q.masses[at[i]];
    if (qq === undefined) {
      if (alpha > 1) return { value: Infinity, error: 0 };
      continue;
    }
    terms.push(alpha * Math.log(p.masses[i]) + (1 - alpha) * Math.log(qq));
  }
  if (alpha === Infinity) {
    return { value: maxOf(Array.from(p.values, (_, i) => Math.log(p.masses[i]) - Math.log(q.masses[at[i]]))), error: 8 * EPS * 40 };
  }
  if (terms.length === 0) return { value: Infinity, error: 0 };
  const M = maxOf(terms);
  const value = (M + Math.log(terms.reduce((s, t) => s + Math.exp(t - M), 0))) / (alpha - 1);
  return { value, error: ((terms.length + 16) * EPS * (1 + Math.abs(M) * (alpha + Math.abs(1 - alpha)))) / Math.abs(alpha - 1) + 2 * EPS * Math.abs(value) };
}
