import type { CalibrationSettings } from './rules.js';
import { InputError } from '../errors.js';
import { isNotApplicable } from '../mechanisms/mechanism.js';
import { mechanismDef, noiseOptions } from '../mechanisms/registry.js';
import type { Noise } from '../divergence/kernel.js';

/**
 * The additive noise a calibrated mechanism adds at `scale`, as the exact accountant sees it
 * (the family's `accountant` in the registry); InputError naming `cost` when it has none.
 */
export function mechanismNoise(s: Pick<CalibrationSettings, 'mechanism' | 'cost' | 'eta'>, scale: number): Noise {
  const a = mechanismDef(s.mechanism).accountant(noiseOptions(s));
  if (isNotApplicable(a)) throw new InputError(a.notApplicable, 'cost');
  return a(scale);
}
