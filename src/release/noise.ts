import { coordinateScale } from '../mechanisms/mechanism.js';
import type { CalibrationSettings } from '../calibrate/rules.js';
import { mechanismDef, noiseOptions } from '../mechanisms/registry.js';
import type { RandomSource } from '../sampling/random.js';
import { drawRelease, type ExactNoise } from '../sampling/samplers.js';
import { DEFAULT_CONFIDENCE, symmetricInterval } from './interval.js';
import { InputError } from '../errors.js';
import { checkSetting } from '../settings.js';

/** The settings that name a noise law: its family and, for exponential noise, its cost and η. */
export type NoiseSettings = Pick<CalibrationSettings, 'mechanism' | 'cost' | 'eta'>;

/**
 * The exact sampler for a calibrated mechanism. Where the sampler's parameter is derived
 * (exponential: b = 1/η(θ) or rate η(θ)), it is rounded towards *more* noise.
 */
export function samplerFor(s: NoiseSettings, scale: number): ExactNoise {
  return mechanismDef(s.mechanism).sampler(scale, noiseOptions(s));
}

/** Independent noise on each coordinate of a released vector (a number being a vector of length 1). */
export interface CoordinateNoise {
  /** Coordinate i's error bar is y ± halfWidths[i] (rounded up; 0 without noise): marginal, not simultaneous, coverage. */
  halfWidths: number[];
  /** One release of `x`: each coordinate plus its own exact noise draw (the value itself without noise). */
  draw(x: readonly number[], random: RandomSource): number[];
  /** The error bars of a released vector, coordinate by coordinate. */
  intervals(y: readonly number[]): [number, number][];
}

/**
 * The noise of a release at common scale `scale` with coordinate weights `weights` (one per
 * coordinate), its error bars at `confidence` (default 0.95). Scale 0 is no noise: the value itself, bars of width 0.
 * @example coordinateNoise({ mechanism: 'laplace' }, 2, [1, 3], 0.95).halfWidths // [5.99…, 17.9…]
 */
export function coordinateNoise(s: NoiseSettings, scale: number, weights: readonly number[], confidence = DEFAULT_CONFIDENCE): CoordinateNoise {
  if (!(scale >= 0 && Number.isFinite(scale))) throw new InputError(`must be a finite number ≥ 0, got ${scale}`, 'scale');
  checkSetting('confidence', confidence);
  if (scale === 0) return { halfWidths: weights.map(() => 0), draw: (x) => [...x], intervals: (y) => y.map((v) => symmetricInterval(v, 0)) };
  const def = mechanismDef(s.mechanism);
  const o = noiseOptions(s);
  const scales = weights.map((w) => coordinateScale(scale, w));
  const samplers = scales.map((si) => def.sampler(si, o));
  const halfWidths = scales.map((si) => def.halfWidth(si, confidence, o));
  return {
    halfWidths,
    draw: (x, random) => x.map((v, i) => drawRelease(v, samplers[i], { random })),
    intervals: (y) => y.map((v, i) => symmetricInterval(v, halfWidths[i])),
  };
}
