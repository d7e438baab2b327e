import { comonotoneCoupling } from '../coupling/comonotone.js';
import { fromWeights } from '../distribution/discrete.js';
import type { Component, GaussianMixture, WeightedComponent } from '../distribution/mixture.js';
import { infiniteBelow } from './closedForm.js';

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

/** σ below which some coupled component pair has an infinite divergence (either required direction). */
export function couplingThreshold(c: ComponentCoupling, alpha: number, ordered: boolean): number {
  let t = 0;
  for (let k = 0; k < c.p.length; k++) {
    t = Math.max(t, infiniteBelow(c.p[k], c.q[k], alpha), ordered ? 0 : infiniteBelow(c.q[k], c.p[k], alpha));
  }
  return Math.sqrt(t);
}

/**
 * σ at or below which D_α(P_Y‖Q_Y) itself is infinite: the widest components decide the tails,
 * so the mixture's threshold is that of its widest components (docs/math.md §11).
 */
export function trueThreshold(P: GaussianMixture, Q: GaussianMixture, alpha: number, ordered: boolean): number {
  const widest = (m: GaussianMixture) => m.reduce((a, c) => (c.weight > 0 && c.sd > a.sd ? c : a), { mean: 0, sd: 0 });
  const [p, q] = [widest(P), widest(Q)];
  return Math.sqrt(Math.max(infiniteBelow(p, q, alpha), ordered ? 0 : infiniteBelow(q, p, alpha)));
}
