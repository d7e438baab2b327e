import type { Coupling } from '../coupling/comonotone.js';
import { distances } from '../coupling/comonotone.js';
import { w1, wInf } from '../coupling/wasserstein.js';
import { EPS } from '../numerics/float.js';
import { logExpectationExp } from '../numerics/logExpectation.js';
import type { ScaleProblem } from '../numerics/smallestScale.js';
import type { Intensity } from './moment.js';
import { scaledLaplaceRdp } from './pierquin.js';

/**
 * Coupled RDP bound (docs/math.md §4, derived). For α > 1, (p, q) ↦ ∫p^α q^{1−α} is jointly convex
 * (the perspective of t ↦ t^α). Writing both outputs as mixtures over the same coupling π,
 *     P_Y = Σ_π m·(N + x),  Q_Y = Σ_π m·(N + x′),
 * joint convexity gives ∫p^α q^{1−α} ≤ Σ_π m·exp((α−1)·D_α(N+x ‖ N+x′)), hence
 *     D_α(P_Y ‖ Q_Y) ≤ 1/(α−1) · log Σ_π m · exp((α−1)·D_α(N+x ‖ N+x′)).
 * For Laplace noise the inner term is Mironov's R_α(|x−x′|/b). Since (α−1)R_α(t) ≤ (α−1)t ≤ αt
 * and R_α(t) ≤ R_α(W∞/b), this is never looser than Theorem 1 or Pierquin's Cor. 3.1.
 * h(z) = exp((α−1)R_α(|z|/b)) is convex in z, so π* is also the best coupling for it.
 * (For Gaussian noise the inner term is α(x−x′)²/(2σ²) and the bound *is* Theorem 2.)
 *
 * `eta` maps the scale to the Laplace rate 1/b: b itself for Laplace (η(b) = 1/b), and η(θ) for
 * the exponential mechanism with c = |z|, which is Laplace noise with b = 1/η(θ).
 * Bracket: R_α(t) ≤ t gives the feasible end η⁻¹(ε/W∞); R_α(t) ≥ t + log(α/(2α−1))/(α−1) and
 * Jensen give the infeasible end η⁻¹((ε + log((2α−1)/α)/(α−1)) / W₁). With N releases of the same
 * value the inner term is N·R_α and ε becomes ε/N in both ends (docs/math.md §9).
 */
export function coupledLaplaceProblem(c: Coupling, alpha: number, epsilon: number, eta: Intensity, releases = 1): ScaleProblem {
  return coupledShiftProblem(
    c,
    alpha,
    epsilon,
    (s) => {
      const rate = eta.at(s);
      return (d) => scaledLaplaceRdp(alpha, d * rate);
    },
    {
      lower: eta.inverse((epsilon / releases + Math.log((2 * alpha - 1) / alpha) / (alpha - 1)) / w1(c)),
      upper: eta.inverse(epsilon / releases / wInf(c)),
    },
    releases,
  );
}

/**
 * The coupled bound for any noise whose shift divergence depends on the shift alone: log E_π
 * exp(N·(α−1)·D_α(N+x ‖ N+x′)) ≤ (α−1)ε, with `shift(s)(d)` the noise's (α−1)·D_α at scale s
 * for a shift d, certified (value and rounding bound); `bracket` its scales' infeasible and
 * feasible ends.
 */
export function coupledShiftProblem(
  c: Coupling,
  alpha: number,
  epsilon: number,
  shift: (s: number) => (d: number) => { value: number; error: number },
  bracket: { lower: number; upper: number },
  releases = 1,
): ScaleProblem {
  const d = distances(c);
  const t = new Float64Array(d.length);
  // Four ulps inside (α−1)ε: the level an account reports, value/(α−1), then stays ≤ ε after its
  // own division.
  const target = (alpha - 1) * epsilon * (1 - 4 * EPS);
  return {
    evaluate(s) {
      const at = shift(s);
      let inner = 0;
      for (let k = 0; k < d.length; k++) {
        const r = at(d[k]);
        // N independent releases: the inner divergence is N·R_α (docs/math.md §9); N·value rounds by ≤ u.
        t[k] = releases * r.value;
        inner = Math.max(inner, releases === 1 ? r.error : releases * r.error * (1 + EPS) + EPS * Math.abs(t[k]));
      }
      const outer = logExpectationExp(c.mass, t);
      return { value: outer.value, error: outer.error + inner, target, sense: 'le' };
    },
    ...bracket,
  };
}
