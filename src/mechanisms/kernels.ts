import { gaussianKernel } from './gaussian/kernel.js';
import { laplaceKernel } from './laplace/kernel.js';
import type { Noise, NoiseKernel } from '../divergence/kernel.js';
import type { BoundedLogDensity, Mixture } from '../divergence/mixture.js';
import { plainLogDensity, plainLogDensityBounded } from '../divergence/plainDensity.js';

/** The additive noise families the exact accountant integrates; a mechanism's `accountant` maps its scale to one. */
export const KERNELS = { laplace: laplaceKernel, gaussian: gaussianKernel } as const satisfies Record<string, NoiseKernel>;

/** The additive noise families the exact accountant integrates: `laplace` and `gaussian`. */
export type NoiseFamily = keyof typeof KERNELS;

/**
 * A family's noise at one scale, carrying its kernel (what the divergences integrate).
 * @example noiseOf('laplace', 1).family // 'laplace'
 */
export function noiseOf(family: NoiseFamily, scale: number): Noise {
  return { family, scale, kernel: KERNELS[family] };
}

/** log f(z) of the noise density at one offset. */
export function noiseLogDensity(noise: Noise, z: number): number {
  return noise.kernel.logDensity(z, noise.scale);
}

/**
 * log p(y) of the mixture at sorted points `ys` in O(N + K) (Laplace) or O(N·W + K) (Gaussian).
 * @example mixtureLogDensity(mixtureOf(fromCounts([0, 1], [1, 1])), { family: 'laplace', scale: 1 }, Float64Array.of(0, 0.5))
 */
export function mixtureLogDensity(m: Mixture, noise: Noise, ys: Float64Array): Float64Array {
  return mixtureLogDensityBounded(m, noise, ys).ld;
}

/** `mixtureLogDensity` with rigorous rounding bounds (see `BoundedLogDensity`). */
export function mixtureLogDensityBounded(m: Mixture, noise: Noise, ys: Float64Array): BoundedLogDensity {
  return noise.kernel.mixtureLogDensity(m, noise.scale, ys);
}

/** The plain O(N·K) evaluator (test oracle, benchmark reference). */
export function mixtureLogDensityPlain(m: Mixture, noise: Noise, ys: Float64Array): Float64Array {
  return plainLogDensity(noise.kernel, m, noise.scale, ys);
}

/** The plain evaluator with rigorous rounding bounds. */
export function mixtureLogDensityPlainBounded(m: Mixture, noise: Noise, ys: Float64Array): BoundedLogDensity {
  return plainLogDensityBounded(noise.kernel, m, noise.scale, ys);
}
