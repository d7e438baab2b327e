import type { CalibrationSettings } from '../calibrate/rules.js';
import { absCost, etaPower } from '../conditions/costs.js';
import { InputError } from '../errors.js';
import type { Noise } from './mixture.js';

/**
 * The additive noise a calibrated mechanism adds at `scale`, as the exact accountant sees it:
 * Laplace b, Gaussian σ, and the exponential mechanism with c = |z|, which is Laplace noise
 * with b = 1/η(θ). (Other costs have no exact accounting.)
 */
export function mechanismNoise(s: Pick<CalibrationSettings, 'mechanism' | 'cost' | 'eta'>, scale: number): Noise {
  if (s.mechanism === 'exponential') {
    if ((s.cost ?? absCost) !== absCost) throw new InputError('exact accounting covers c = |z| only', 'cost');
    return { family: 'laplace', scale: 1 / (s.eta ?? etaPower(1)).at(scale) };
  }
  return { family: s.mechanism, scale };
}
