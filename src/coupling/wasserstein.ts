import type { Coupling } from './comonotone.js';
import { checkShape, COUPLING } from '../shapes.js';
import { InputError } from '../errors.js';
import { distances } from './comonotone.js';

/**
 * W∞ = max |x − x'| over the atoms of the coupling (all have positive mass).
 * @example wInf(comonotoneCoupling(fromCounts([0, 1], [1, 1]), fromCounts([0, 2], [1, 1]))) // 1
 */
export function wInf(c: Coupling): number {
  checkShape(COUPLING, c, 'coupling');
  let m = 0;
  for (const d of distances(c)) if (d > m) m = d;
  return m;
}

/**
 * W_p = (Σ m·|x−x'|^p)^{1/p} over the coupling; for π* this is the p-Wasserstein distance.
 * Computed as W∞·(Σ m·(|d|/W∞)^p)^{1/p}, which cannot overflow for large p.
 * @example wassersteinP(comonotoneCoupling(fromCounts([0, 1], [1, 1]), fromCounts([0, 2], [1, 1])), 2) // √½
 */
export function wassersteinP(c: Coupling, p: number): number {
  checkShape(COUPLING, c, 'coupling');
  if (!(typeof p === 'number' && p >= 1)) throw new InputError(`must be a number ≥ 1 (the order of W_p), got ${String(p)}`, 'p');
  if (p === Infinity) return wInf(c);
  if (!(p >= 1)) throw new RangeError(`wassersteinP: p must be ≥ 1, got ${p}`);
  const w = wInf(c);
  if (w === 0) return 0;
  const d = distances(c);
  let s = 0;
  for (let k = 0; k < d.length; k++) s += c.mass[k] * (d[k] / w) ** p;
  return w * s ** (1 / p);
}

/**
 * W₁ (earth mover's distance).
 * @example w1(comonotoneCoupling(fromCounts([0, 1], [1, 1]), fromCounts([0, 2], [1, 1]))) // 0.5
 */
export const w1 = (c: Coupling): number => wassersteinP(c, 1);
