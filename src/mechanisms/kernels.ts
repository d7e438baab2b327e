import { gaussianKernel } from './gaussian/kernel.js';
import { InputError, unknownName } from '../errors.js';

import { checkIntegerAtoms, geometricKernel } from './geometric/kernel.js';
import { laplaceKernel } from './laplace/kernel.js';
import type { Noise, NoiseKernel } from '../divergence/kernel.js';
import type { BoundedLogDensity, Mixture } from '../divergence/mixture.js';
import { plainLogDensity } from '../divergence/plainDensity.js';
import type { Discrete, Law } from '../distribution/discrete.js';
import type { Bounded } from '../numerics/logExpectation.js';
import { exactLaplaceDInf, exactLaplaceDInfBoth, exactLaplaceDInfTruncated } from './laplace/dInf.js';

/** The additive noise families the exact accountant integrates; a mechanism's `accountant` maps its scale to one. */
const KERNELS = { laplace: laplaceKernel, gaussian: gaussianKernel, geometric: geometricKernel } as const satisfies Record<string, NoiseKernel>;

/** The additive noise families the exact accountant integrates (`laplace`, `gaussian`) or sums over ℤ (`geometric`). */
export type NoiseFamily = keyof typeof KERNELS;

/**
 * A family's noise at one scale, carrying its kernel (what the divergences integrate).
 * @example noiseOf('laplace', 1).family // 'laplace'
 */
export function noiseOf(family: NoiseFamily, scale: number): Noise {
  if (!Object.hasOwn(KERNELS, family)) throw unknownName('noise family', String(family), Object.keys(KERNELS), 'family', 'families: ');
  if (!(typeof scale === 'number' && scale >= 0)) throw new InputError(`must be a number ≥ 0, got ${String(scale)}`, 'scale');
  return { family, scale, kernel: KERNELS[family] };
}

/**
 * log p(y) of the mixture at sorted points `ys` in O(N + K) (Laplace) or O(N·W + K) (Gaussian).
 * @example mixtureLogDensity(mixtureOf(fromCounts([0, 1], [1, 1])), { family: 'laplace', scale: 1 }, Float64Array.of(0, 0.5))
 */
export function mixtureLogDensity(m: Mixture, noise: Noise, ys: Float64Array): Float64Array {
  return mixtureLogDensityBounded(m, noise, ys).ld;
}

/** `mixtureLogDensity` with rigorous rounding bounds (see `BoundedLogDensity`). */
function mixtureLogDensityBounded(m: Mixture, noise: Noise, ys: Float64Array): BoundedLogDensity {
  return noise.kernel.mixtureLogDensity(m, noise.scale, ys);
}

/** The plain O(N·K) evaluator (test oracle, benchmark reference). */
export function mixtureLogDensityPlain(m: Mixture, noise: Noise, ys: Float64Array): Float64Array {
  return plainLogDensity(noise.kernel, m, noise.scale, ys);
}

/**
 * Exact D∞(P_Y‖Q_Y) where the supremum is attained at the atoms (Laplace-shaped noise, docs/math.md
 * §4), of the outputs truncated to `interval` when given; null where D∞ is infinite (Gaussian).
 * @example exactDInf(noiseOf('laplace', 1), fromCounts([0], [1]), fromCounts([1], [1]))?.value // 1
 */
export function exactDInf(noise: Noise, p: Law, q: Law, interval?: [number, number]): Bounded | null {
  if (!onAtoms(noise, p, q, interval)) return null;
  return interval ? exactLaplaceDInfTruncated(p, q, noise.scale, interval) : exactLaplaceDInf(p, q, noise.scale);
}

/** `exactDInf` on the whole line in both directions, [D∞(P_Y‖Q_Y), D∞(Q_Y‖P_Y)], from one evaluation of each mixture; null where D∞ is infinite. */
export function exactDInfBoth(noise: Noise, p: Discrete, q: Discrete): [Bounded, Bounded] | null {
  return onAtoms(noise, p, q) ? exactLaplaceDInfBoth(p, q, noise.scale) : null;
}

/**
 * Whether D∞ of this noise is the Laplace sup at the atoms: Laplace, and geometric noise on the whole
 * line (docs/math.md §21: on integer atoms its masses are the Laplace mixture's densities at the same
 * b times one constant, so log p/q is the Laplace ratio at the integers, whose sup over the line is
 * at an atom). Geometric laws off the integers are refused, naming the mechanism.
 */
function onAtoms(noise: Noise, p: Law, q: Law, interval?: [number, number]): boolean {
  if (noise.family === 'laplace') return true;
  if (noise.family !== 'geometric' || interval) return false;
  checkIntegerAtoms(p.values);
  checkIntegerAtoms(q.values);
  return true;
}

/** Whether the output densities are proportional beyond every atom (Laplace-shaped noise: e^{∓y/b}), so truncating there leaves one law. */
export const proportionalTails = (noise: Noise): boolean => noise.family === 'laplace';

/**
 * D_α between the noise and its shift by `shift`, in closed form: shift/b (Laplace and geometric at
 * integer shifts, through D∞) or
 * αΔ²/(2σ²) (Gaussian; ∞ at α = ∞). A bound for joint quasi-convexity, not a certificate.
 */
export function shiftDivergence(noise: Noise, shift: number, alpha: number): number {
  const family = noise.family as NoiseFamily;
  switch (family) {
    case 'laplace':
    case 'geometric':
      return shift / noise.scale;
    case 'gaussian':
      return alpha === Infinity ? Infinity : (alpha * shift * shift) / (2 * noise.scale * noise.scale);
    default: {
      const unknown: never = family;
      throw new Error(`no shift divergence for noise '${String(unknown)}'`);
    }
  }
}

/**
 * How far exact accounting goes, by the accountant's noise family (atoms in a pair): Laplace (also
 * the exponential mechanism's |z| cost) runs the one-pass gap rule, Gaussian the trapezoidal or grid rule, whose
 * cost per atom is measured in docs/benchmarks.md ("Measurements behind design choices"). `best`
 * includes exact up to `best` atoms (under half a minute); `--method exact` is refused above `max`
 * (a few minutes or more), with the estimate from `msPerAtom`.
 */
const EXACT_LIMITS = {
  laplace: { best: 2_000_000, max: 40_000_000, msPerAtom: 0.015 },
  gaussian: { best: 200_000, max: 600_000, msPerAtom: 0.15 },
  // A sum over the integers between the outer atoms (capped in the kernel), not a quadrature.
  geometric: { best: 2_000_000, max: 40_000_000, msPerAtom: 0.015 },
} as const satisfies Record<NoiseFamily, { best: number; max: number; msPerAtom: number }>;

/** The exact accountant's limits for a noise (null: a family without an accountant gets the strictest of all). */
export function exactLimits(noise: Noise | null): { best: number; max: number; msPerAtom: number } {
  if (noise) return EXACT_LIMITS[noise.family as NoiseFamily];
  const all = Object.values(EXACT_LIMITS);
  return all.reduce((a, b) => (b.best < a.best ? b : a));
}

/** The limits in words, for help texts. */
export const exactLimitsText = (): string =>
  `${EXACT_LIMITS.laplace.best} atoms in a pair for Laplace-shaped noise, ${EXACT_LIMITS.gaussian.best} for Gaussian`;
