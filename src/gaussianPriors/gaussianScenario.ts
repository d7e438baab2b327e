import type { Scenario } from '../distribution/scenario.js';
import { comonotoneCoupling } from '../coupling/comonotone.js';
import { fromWeights } from '../distribution/discrete.js';
import { InputError } from '../errors.js';
import type { Component } from './closedForm.js';

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

/** The positive-weight components in (mean, sd) order, equal components merged by the caller's ranks. */
function ordered(m: GaussianMixture): WeightedComponent[] {
  return m.filter((c) => c.weight > 0).sort((a, b) => a.mean - b.mean || a.sd - b.sd);
}

/**
 * Components of two mixtures coupled in (mean, sd) order with exact rational masses (the
 * comonotone coupling of their ranks, docs/math.md §2): pair k couples p[k] with q[k], mass[k].
 * Any coupling of the weights gives a valid bound (docs/math.md §11); this one is optimal for
 * equal widths (a convex cost of the mean difference).
 */
export interface ComponentCoupling {
  p: Component[];
  q: Component[];
  mass: Float64Array;
}

export function componentCoupling(P: GaussianMixture, Q: GaussianMixture): ComponentCoupling {
  const a = ordered(P);
  const b = ordered(Q);
  const c = comonotoneCoupling(
    fromWeights(
      a.map((_, i) => i),
      a.map((x) => x.weight),
    ),
    fromWeights(
      b.map((_, i) => i),
      b.map((x) => x.weight),
    ),
  );
  return { p: Array.from(c.x, (i) => a[i]), q: Array.from(c.y, (i) => b[i]), mass: c.mass };
}

/** The one width every component of both mixtures shares, or null. */
export function commonSd(P: GaussianMixture, Q: GaussianMixture): number | null {
  const all = [...P, ...Q].filter((c) => c.weight > 0);
  return all.every((c) => c.sd === all[0].sd) ? all[0].sd : null;
}

/** Whether a scenario's conditionals are Gaussian mixtures (arrays of components) rather than finite laws. */
export function isGaussianScenario(s: Scenario<unknown>): s is GaussianScenario {
  const first = s.priors[0] && Object.values(s.priors[0].conditionals)[0];
  return Array.isArray(first);
}
