import { describe, expect, it } from 'vitest';
import { comonotoneCoupling, type Coupling } from '../coupling/comonotone.js';
import { fromCounts, fromWeights } from '../distribution/discrete.js';
import { smallestFeasibleScale, type ScaleProblem } from '../numerics/smallestScale.js';
import { etaPower, sqrtCost } from './costs.js';
import { corollary1Problem } from './corollary1.js';
import { laplaceRdp, pierquinGaussianProblem, pierquinLaplaceProblem } from './pierquin.js';
import { proposition1Problem } from './proposition1.js';
import { theorem1Problem } from './theorem1.js';
import { remark2Sigma, theorem2Problem } from './theorem2.js';

const solve = (p: ScaleProblem | null) => (p ? smallestFeasibleScale(p).scale : 0);
const rel = (a: number, b: number) => Math.abs(a / b - 1);
const points = (delta: number): Coupling => comonotoneCoupling(fromCounts([0], [1]), fromCounts([delta], [3]));
const ALPHAS = [1.01, 1.5, 2, 3, 10, 100, 1e6];
const EPSILONS = [1e-6, 0.1, 0.5, 1, 5];

describe('docs/math.md §6 known answers', () => {
  it('point masses: Theorem 1 b = αΔ/((α−1)ε), Remark 1 b = Δ/ε', () => {
    for (const a of ALPHAS)
      for (const e of EPSILONS) {
        const b = solve(theorem1Problem(points(2.5), a, e));
        expect(rel(b, (a * 2.5) / ((a - 1) * e))).toBeLessThan(1e-12);
        expect(b).toBeGreaterThanOrEqual(((a * 2.5) / ((a - 1) * e)) * (1 - 1e-15)); // never below
      }
    expect(rel(solve(theorem1Problem(points(2.5), Infinity, 0.5)), 5)).toBeLessThan(1e-15);
  });

  it('point masses: Theorem 2 σ = Δ√(α/(2ε)) (Remark 2), equal to Pierquin Gaussian', () => {
    for (const a of ALPHAS)
      for (const e of EPSILONS) {
        const s = solve(theorem2Problem(points(3), a, e));
        expect(rel(s, remark2Sigma(3, a, e))).toBeLessThan(1e-12);
        expect(solve(pierquinGaussianProblem(3, a, e))).toBe(s);
      }
  });

  it('P = {0:½,1:½}, Q = {0:½,2:½}: Theorem 1 b = α / log(2e^{(α−1)ε} − 1)', () => {
    const c = comonotoneCoupling(fromWeights([0, 1], [0.5, 0.5]), fromWeights([0, 2], [0.5, 0.5]));
    expect(solve(theorem1Problem(c, 2, 1))).toBeCloseTo(1.34238987793, 11);
    for (const a of [1.1, 2, 4, 50])
      for (const e of [0.2, 1, 3]) {
        expect(rel(solve(theorem1Problem(c, a, e)), a / Math.log(2 * Math.exp((a - 1) * e) - 1))).toBeLessThan(1e-11);
      }
  });

  it('Proposition 1 for point masses: b = αΔ/((1−α)ε)', () => {
    for (const a of [0.01, 0.3, 0.5, 0.9, 0.999])
      for (const e of EPSILONS) {
        expect(rel(solve(proposition1Problem(points(2), a, e)), (a * 2) / ((1 - a) * e))).toBeLessThan(1e-11);
      }
  });

  it('Proposition 1 needs no noise when π* keeps enough mass in place', () => {
    // p₀ = 0.9: at α = ½, ε = 1 the need is e^{−0.5} ≈ 0.61 ≤ 0.9 (no noise); at ε = 0.1 it is 0.95
    const c = comonotoneCoupling(fromCounts([0, 1], [9, 1]), fromCounts([0, 5], [9, 1]));
    expect(proposition1Problem(c, 0.5, 1)).toBeNull();
    expect(solve(proposition1Problem(c, 0.5, 0.1))).toBeGreaterThan(0);
  });

  it('Pierquin Laplace solves R_α(W∞/b) = ε; R_α is Mironov’s closed form', () => {
    for (const a of [1.5, 2, 10, 1000])
      for (const e of [0.1, 0.5, 1]) {
        const b = solve(pierquinLaplaceProblem(2, a, e));
        expect(laplaceRdp(a, 2 / b)).toBeLessThanOrEqual(e);
        expect(laplaceRdp(a, 2 / (b * (1 - 1e-9)))).toBeGreaterThan(e);
      }
    // R_2(t) = log(2/3·e^t + 1/3·e^{−2t})
    expect(laplaceRdp(2, 0.7)).toBeCloseTo(Math.log((2 / 3) * Math.exp(0.7) + (1 / 3) * Math.exp(-1.4)), 14);
    expect(rel(solve(pierquinLaplaceProblem(2, Infinity, 0.5)), 4)).toBeLessThan(1e-15);
  });

  it('Corollary 1: c = |z|, η = 1/θ is Theorem 1; √|z| and η = θ^-k have closed forms for point masses', () => {
    const c = comonotoneCoupling(fromCounts([0, 1, 4], [1, 2, 3]), fromCounts([0, 2, 3], [3, 2, 1]));
    expect(solve(corollary1Problem(c, 2.5, 0.7, { name: 'abs', apply: Math.abs, variance: () => 0 }, etaPower(1)))).toBe(solve(theorem1Problem(c, 2.5, 0.7)));
    for (const a of [1.5, 3])
      for (const k of [1, 2, 0.5]) {
        // α·η(θ)·√Δ = (α−1)ε  ⇒  θ = (α√Δ/((α−1)ε))^{1/k}
        const th = solve(corollary1Problem(points(9), a, 0.5, sqrtCost, etaPower(k)));
        expect(rel(th, ((a * 3) / ((a - 1) * 0.5)) ** (1 / k))).toBeLessThan(1e-11);
      }
    expect(rel(solve(corollary1Problem(points(9), Infinity, 0.5, sqrtCost, etaPower(1))), 6)).toBeLessThan(1e-15);
  });
});
