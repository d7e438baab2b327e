import { comonotoneCoupling } from '../coupling/comonotone.js';
import { fromWeights } from '../distribution/discrete.js';
import type { Component, GaussianMixture, WeightedComponent } from '../distribution/mixture.js';

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
