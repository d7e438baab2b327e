import type { PairCoupling } from '../coupling/pairs.js';
import type { Discrete } from '../distribution/discrete.js';
import { discreteRenyi } from './exactRenyi.js';

/**
 * D_α(P_X‖Q_X) + its error in the worst required direction: by data processing no release of X
 * (any noise, any number of releases) exceeds it (docs/math.md §4).
 */
export function dataDivergence(pc: PairCoupling, alpha: number, ordered: boolean): number {
  const up = (a: Discrete, b: Discrete) => {
    const d = discreteRenyi(a, b, alpha);
    return d.value + d.error;
  };
  return Math.max(up(pc.p, pc.q), ordered ? -Infinity : up(pc.q, pc.p));
}
