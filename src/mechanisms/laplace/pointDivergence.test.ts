import { describe, expect, it } from 'vitest';
import { fromWeights } from '../../distribution/discrete.js';
import { exactRenyi } from '../../divergence/exactRenyi.js';
import { noiseOf } from '../kernels.js';
import { laplacePointDivergence } from './laplace.js';

describe('the Laplace shift divergence below α = 1 (docs/math.md §4)', () => {
  it('agrees with the certified exact accountant on two point laws, within both errors, and stays below D∞', () => {
    for (const alpha of [0.05, 0.3, 0.5, 0.5 + 1e-9, 0.7, 0.999])
      for (const t of [1e-3, 0.2, 1, 7, 40]) {
        const r = laplacePointDivergence(t, alpha);
        const oracle = exactRenyi(fromWeights([0], [1]), fromWeights([t], [1]), noiseOf('laplace', 1), alpha, { rtol: 1e-12, evaluator: 'plain' });
        expect(Math.abs(r.value - oracle.value)).toBeLessThanOrEqual(r.error + oracle.error);
        expect(r.value).toBeLessThan(t);
      }
  });

  it('never charges more than D∞ = t, even where its error over 1 − α grows (α within 10⁻⁹ of 1)', () => {
    for (const alpha of [1 - 1e-12, 1 - 1e-9, 0.999999])
      for (const t of [1e-300, 1e-8, 1e-4, 1, 50]) {
        const r = laplacePointDivergence(t, alpha);
        expect(r.value + r.error).toBeLessThanOrEqual(t * (1 + 4 * Number.EPSILON));
      }
  });

  it('is symmetric in α ↔ 1 − α up to the factor (1 − α)/α, as D_α(P‖Q) = α/(1−α)·D_{1−α}(Q‖P)', () => {
    for (const alpha of [0.1, 0.25, 0.4])
      for (const t of [0.5, 3]) {
        const a = laplacePointDivergence(t, alpha).value,
          b = laplacePointDivergence(t, 1 - alpha).value;
        expect(a).toBeCloseTo((alpha / (1 - alpha)) * b, 12);
      }
  });
});
