import { U } from '../../divergence/mixture.js';
import { ellipse, entirePower, logBernstein } from '../../divergence/certificate.js';

/** Ellipses tried for Gaussian panels (each costs two mixture evaluations per side). */
export const GAUSSIAN_RHOS = [1.5, 2.5, 4.5] as const;

/** A Gaussian mixture's values at one panel offset z (relative to the centre c). */
export interface GaussianSample {
  /** log m(c + z). */
  ld: number;
  /** Posterior mean of x − (c + z) under weights w_k φ(c + z − x_k). */
  m1: number;
  /** Posterior second moment of x − (c + z). */
  m2: number;
}

/**
 * Gaussian panel (σ the noise sd). With z = s + it and d_k = x_k − c,
 *   m(c+z) = e^{−z²/2σ²}·G(z),  G(z) = Σ_k w_k φ(c − x_k) e^{z d_k/σ²},
 * and Λ(s) = log G(s) = log m(c+s) + s²/2σ² is convex. So log f(c+s) = −s²/2σ² + Σ_k a_k Λ_k(s) is
 * bounded above by a concave quadratic: Λ_k below its chord on [−A, A] (a_k > 0), above its tangent
 * at 0, slope m1(c)/σ² (a_k < 0). Off the axis |e^{−z²/2σ²}| = e^{−(s²−t²)/2σ²}, |G(z)| ≤ G(s), and
 * with r = c + m1(c):  |G(s+it)| ≥ Σ_k w_k φ(c−x_k) e^{s d_k/σ²} cos(t(x_k − r)/σ²) ≥ G(s)(1 − t²V(s)/2σ⁴),
 * V(s) the posterior second moment of x − r at c+s, V ≤ sup S / inf G with S(s) = G(s)V(s) log-convex
 * (largest at ±A) and G ≥ its tangent. So |m_k(z)| ≥ e^{t²/2σ²} m_k(s)·w_k, w_k = 1 − B²V_k/2σ⁴ > 0
 * (which also keeps m_k ≠ 0), and |f| ≤ e^{B²/2σ²}·sup_s f(s)·Π_{a_k<0} w_k^{a_k}.
 * `at(k, j)` gives mixture k at offset j of `gaussianOffsets(h)`; `err` bounds the log-density errors.
 */
export function gaussianPanelError(a: readonly number[], sigma: number, h: number, at: (k: number, j: number) => GaussianSample, err: number): number {
  const s2 = sigma * sigma;
  const n = GAUSSIAN_RHOS.length;
  const centre = n + 1; // offsets: −A_{n−1} … −A_0, −h, 0, h, A_0 … A_{n−1}
  const Lam = (k: number, j: number, z: number) => at(k, j).ld + (z * z) / (2 * s2);
  const sumAbs = a.reduce((s, x) => s + Math.abs(x), 0);
  const realSup = (A: number, jm: number, jp: number) => {
    let C0 = 0,
      C1 = 0,
      mag = 1;
    for (let k = 0; k < a.length; k++) {
      if (a[k] === 0) continue;
      if (a[k] > 0) {
        const lm = Lam(k, jm, -A),
          lp = Lam(k, jp, A);
        C0 += (a[k] * (lm + lp)) / 2;
        C1 += (a[k] * (lp - lm)) / (2 * A);
        mag += Math.abs(a[k]) * (Math.abs(lm) + Math.abs(lp));
      } else {
        const c = at(k, centre);
        C0 += a[k] * c.ld;
        C1 += (a[k] * c.m1) / s2;
        mag += Math.abs(a[k]) * (Math.abs(c.ld) + (A * Math.abs(c.m1)) / s2);
      }
    }
    const z = Math.min(A, Math.max(-A, s2 * C1));
    return C0 + C1 * z - (z * z) / (2 * s2) + 1e-9 * (mag + (A * A) / s2) + sumAbs * err;
  };
  let best = Math.log(2 * h) + realSup(h, centre - 1, centre + 1);
  for (let i = 0; i < n; i++) {
    const rho = GAUSSIAN_RHOS[i];
    const { A, B } = ellipse(h, rho);
    const jm = n - 1 - i,
      jp = centre + 2 + i;
    let logM = realSup(A, jm, jp) + (B * B) / (2 * s2);
    for (let k = 0; k < a.length && logM < Infinity; k++) {
      if (entirePower(a[k]) || a[k] === 0) continue;
      const c = at(k, centre);
      let logS = -Infinity;
      for (const [j, z] of [
        [jm, -A],
        [jp, A],
      ] as const) {
        const g = at(k, j);
        const delta = z - c.m1; // (c + z) − r
        // Slack for the window's effect on the posterior mean (and rounding): relative 1e-9, plus 1e-9·σ².
        const E =
          (Math.max(0, g.m2 - g.m1 * g.m1 + 4 * U * (g.m2 + g.m1 * g.m1)) + (g.m1 + delta) ** 2 * (1 + 4 * U)) * (1 + 1e-9) +
          1e-9 * (g.m2 + delta * delta + s2);
        logS = Math.max(logS, Lam(k, j, z) + Math.log(E));
      }
      const V = Math.exp(logS - c.ld + (A * Math.abs(c.m1)) / s2 + 1e-9 * (1 + Math.abs(logS) + Math.abs(c.ld)) + 2 * err);
      const w = 1 - ((B * B) / (2 * s2 * s2)) * V;
      if (!(w > 1e-9)) {
        logM = Infinity;
        break;
      } // m_k may vanish on the ellipse
      if (a[k] < 0) logM += a[k] * Math.log(w) * (1 + 8 * U);
    }
    if (logM < Infinity) best = Math.min(best, logBernstein(logM, h, rho));
  }
  return best;
}

/** Offsets from the centre at which `gaussianPanelError` needs each mixture, in increasing order. */
export function gaussianOffsets(h: number): number[] {
  const As = GAUSSIAN_RHOS.map((rho) => ellipse(h, rho).A);
  return [...As.map((A) => -A).reverse(), -h, 0, h, ...As];
}
