import { InputError } from '../errors.js';

/** Smallest and largest budgets a plan by accuracy searches. */
const EPS_FLOOR = 1e-6;
const EPS_CEILING = 1e6;

/**
 * Plan by accuracy: the smallest ε whose calibrated error bar is at most `target`, to a relative
 * `tolerance` (the ε returned meets it; ε/(1 + tolerance) does not). `halfWidthAt(ε)` is the
 * calibrated half-width at budget ε, non-increasing in ε (each method's scale is). `floor` says
 * the target is met at the smallest ε searched (the data needs little or no noise).
 * @example (await smallestEpsilon(async (e) => 3 / e, 1.5)).epsilon // 2
 */
export async function smallestEpsilon(
  halfWidthAt: (epsilon: number) => Promise<number>,
  target: number,
  tolerance = 1e-4,
): Promise<{ epsilon: number; floor: boolean }> {
  const meets = async (e: number) => (await halfWidthAt(e)) <= target;
  let lo: number, hi: number;
  if (await meets(1)) {
    hi = 1;
    for (lo = 0.5; await meets(lo); lo /= 2) {
      hi = lo;
      if (lo <= EPS_FLOOR) return { epsilon: lo, floor: true };
    }
  } else {
    lo = 1;
    for (hi = 2; !(await meets(hi)); hi *= 2) {
      lo = hi;
      if (hi >= EPS_CEILING) throw new InputError(`no budget up to ε = ${EPS_CEILING} gives an error bar of ±${target}`, '--target-halfwidth');
    }
  }
  // The bar is monotone in ε: bisect geometrically, keeping the end that meets the target.
  while (hi / lo > 1 + tolerance) {
    const mid = Math.sqrt(lo * hi);
    if (await meets(mid)) hi = mid;
    else lo = mid;
  }
  return { epsilon: hi, floor: false };
}
