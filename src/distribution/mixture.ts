import type { Scenario } from './scenario.js';
import { InputError } from '../errors.js';

/** A Gaussian law N(mean, sd²); sd 0 is a point mass. */
export interface Component {
  readonly mean: number;
  readonly sd: number;
}

/** A Gaussian component with its mixture weight (weights need not sum to 1). */
export interface WeightedComponent extends Component {
  readonly weight: number;
}

/**
 * A conditional law of X given a secret: a finite Gaussian mixture. A single Gaussian is one
 * component; a component with sd 0 is a point mass, so a finite law is a mixture too.
 */
export type GaussianMixture = readonly WeightedComponent[];

/** Priors whose conditionals are Gaussian mixtures (docs/math.md §11). */
export type GaussianScenario = Scenario<GaussianMixture>;

/** Checks one mixture: finite means, sd ≥ 0, weights ≥ 0 with a positive sum; errors name `path`. */
export function checkMixture(m: GaussianMixture, path: string): void {
  if (m.length === 0) throw new InputError('needs at least one component', path);
  m.forEach((c, i) => {
    const at = m.length === 1 ? path : `${path}[${i}]`;
    if (!Number.isFinite(c.mean)) throw new InputError(`mean ${String(c.mean)} is not a finite number`, `${at}.mean`);
    if (!(Number.isFinite(c.sd) && c.sd >= 0)) throw new InputError(`sd ${String(c.sd)} must be a finite number ≥ 0`, `${at}.sd`);
    if (!(Number.isFinite(c.weight) && c.weight >= 0)) throw new InputError(`weight ${String(c.weight)} must be a finite number ≥ 0`, `${at}.weight`);
  });
  if (!m.some((c) => c.weight > 0)) throw new InputError('weights sum to zero; at least one must be positive', path);
}
