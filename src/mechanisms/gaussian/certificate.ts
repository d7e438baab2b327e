import { U } from '../../divergence/mixture.js';
import { ellipse, entirePower, logBernstein } from '../../divergence/certificate.js';

/** Ellipses tried for Gaussian panels (each costs two mixture evaluations per side). */
const GAUSSIAN_RHOS = [1.5, 2.5, 4.5] as const;

/** A Gaussian mixture's values at sample points: log m(y), and the posterior mean and second moment of x − y. */
export interface GaussianSamples {
  ld: Float64Array;
  m1: Float64Array;
  m2: Float64Array;
}

/**
 * log of a bound on |f| over the box |Re z − c| ≤ A, |Im z| ≤ B (σ the noise sd), from each
 * mixture's samples at c − A, c and c + A (`mom[k]` at indices `lo`, `c`, `hi`); with B = 0,
 * a bound on sup f over the real segment [c − A, c + A]. Infinity where some m_k may vanish.
 * With z = s + it and d_k = x_k − c,
 *   m(c+z) = e^{−z²/2σ²}·G(z),  G(z) = Σ_k w_k φ(c − x_k) e^{z d_k/σ²},
 * and Λ(s) = log G(s) = log m(c+s) + s²/2σ² is convex. So log f(c+s) = −s²/2σ² + Σ_k a_k Λ_k(s) is
 * bounded above by a concave quadratic: Λ_k below its chord on [−A, A] (a_k > 0), above its tangent
 * at 0, slope m1(c)/σ² (a_k < 0). Off the axis |e^{−z²/2σ²}| = e^{−(s²−t²)/2σ²}, |G(z)| ≤ G(s), and
 * with r = c + m1(c):  |G(s+it)| ≥ Σ_k w_k φ(c−x_k) e^{s d_k/σ²} cos(t(x_k − r)/σ²) ≥ G(s)(1 − t²V(s)/2σ⁴),
 * V(s) the posterior second moment of x − r at c+s. V = S/G with S(s) = G(s)V(s); tilted by
 * e^{−sΛ′(0)}, S stays log-convex (largest at ±A) and G has its minimum G(0) at 0, so
 * V ≤ max_± S(±A)e^{∓AΛ′(0)} / G(0). So |m_k(z)| ≥ e^{t²/2σ²} m_k(s)·w_k, w_k = 1 − B²V_k/2σ⁴ > 0
 * (which also keeps m_k ≠ 0), and |f| ≤ e^{B²/2σ²}·sup_s f(s)·Π_{a_k<0} w_k^{a_k} (docs/math.md §8).
 * `err` bounds the samples' log-density errors.
 */
export function gaussianBoxBound(
  a: ArrayLike<number>,
  sigma: number,
  A: number,
  B: number,
  mom: readonly GaussianSamples[],
  lo: number,
  c: number,
  hi: number,
  err: number,
): number {
  gaussianBoxParts(a, sigma, A, mom, lo, c, hi, err, scratch, B > 0);
  return B === 0 ? scratch[0] : boxFromParts(a, sigma, B, scratch);
}
const scratch = new Float64Array(8);

/**
 * The two halves of `gaussianBoxBound`, so one panel serves many heights B: `out[0]` = log sup f on
 * the real segment [c − A, c + A] (the chord/tangent quadratic), `out[1 + k]` = the bound on V_k
 * for each mixture with a non-entire power (−1 otherwise, or when `withV` is false; a NaN from the
 * computation is kept and makes the box unbounded).
 */
export function gaussianBoxParts(
  a: ArrayLike<number>,
  sigma: number,
  A: number,
  mom: readonly GaussianSamples[],
  lo: number,
  c: number,
  hi: number,
  err: number,
  out: Float64Array,
  withV = true,
): void {
  const s2 = sigma * sigma;
  let C0 = 0,
    C1 = 0,
    mag = 1,
    sumAbs = 0;
  for (let k = 0; k < a.length; k++) {
    if (a[k] === 0) continue;
    sumAbs += Math.abs(a[k]);
    if (a[k] > 0) {
      const lm = mom[k].ld[lo] + (A * A) / (2 * s2),
        lp = mom[k].ld[hi] + (A * A) / (2 * s2);
      C0 += (a[k] * (lm + lp)) / 2;
      C1 += (a[k] * (lp - lm)) / (2 * A);
      mag += Math.abs(a[k]) * (Math.abs(lm) + Math.abs(lp));
    } else {
      const ld = mom[k].ld[c],
        m1 = mom[k].m1[c];
      C0 += a[k] * ld;
      C1 += (a[k] * m1) / s2;
      mag += Math.abs(a[k]) * (Math.abs(ld) + (A * Math.abs(m1)) / s2);
    }
  }
  const zs = Math.min(A, Math.max(-A, s2 * C1));
  out[0] = C0 + C1 * zs - (zs * zs) / (2 * s2) + 1e-9 * (mag + (A * A) / s2) + sumAbs * err;
  for (let k = 0; k < a.length; k++) {
    out[1 + k] = -1;
    if (!withV || entirePower(a[k]) || a[k] === 0) continue;
    const { ld, m1, m2 } = mom[k];
    const cld = ld[c],
      cm1 = m1[c];
    let logS = -Infinity;
    for (let sign = -1; sign <= 1; sign += 2) {
      const j = sign < 0 ? lo : hi;
      const gm1 = m1[j],
        gm2 = m2[j];
      const delta = sign * A - cm1; // (c + z) − r
      // Slack for the window's effect on the posterior mean (and rounding): relative 1e-9, plus 1e-9·σ².
      const E = (Math.max(0, gm2 - gm1 * gm1 + 4 * U * (gm2 + gm1 * gm1)) + (gm1 + delta) ** 2 * (1 + 4 * U)) * (1 + 1e-9) + 1e-9 * (gm2 + delta * delta + s2);
      // S tilted by e^{−s·Λ′(0)}, Λ′(0) = m1(c)/σ²: still log-convex, so largest at ±A.
      logS = Math.max(logS, ld[j] + (A * A) / (2 * s2) + Math.log(E) - (sign * A * cm1) / s2);
    }
    // G tilted the same way has slope 0 at 0, so it is at least G(0) on [−A, A]; V ≤ sup S̃ / G(0).
    out[1 + k] = Math.exp(logS - cld + 1e-9 * (1 + Math.abs(logS) + Math.abs(cld) + (A * Math.abs(cm1)) / s2) + 2 * err);
  }
}

/** log M on the box of height B from `gaussianBoxParts` (computed with V): Infinity where some m_k may vanish. */
export function boxFromParts(a: ArrayLike<number>, sigma: number, B: number, parts: Float64Array): number {
  const s2 = sigma * sigma;
  let logM = parts[0] + (B * B) / (2 * s2);
  for (let k = 0; k < a.length; k++) {
    const V = parts[1 + k];
    if (V === -1) continue; // an entire power: zeros of m_k do not matter
    const w = 1 - ((B * B) / (2 * s2 * s2)) * V;
    if (!(w > 1e-9)) return Infinity; // m_k may vanish on the ellipse
    if (a[k] < 0) logM += a[k] * Math.log(w) * (1 + 8 * U);
  }
  return logM;
}

/**
 * log of a bound on |∫_panel f − K21| for a Gaussian panel of half-width h: the smallest of
 * 2h·sup_real f and the Bernstein bound on each ellipse of `GAUSSIAN_RHOS` (`gaussianBoxBound`).
 * `mom[k]` holds mixture k at the offsets of `gaussianOffsets(h)` from index `base`; `err` bounds
 * the log-density errors.
 */
export function gaussianPanelError(a: ArrayLike<number>, sigma: number, h: number, mom: readonly GaussianSamples[], base: number, err: number): number {
  const n = GAUSSIAN_RHOS.length;
  const centre = base + n + 1; // offsets: −A_{n−1} … −A_0, −h, 0, h, A_0 … A_{n−1}
  let best = Math.log(2 * h) + gaussianBoxBound(a, sigma, h, 0, mom, centre - 1, centre, centre + 1, err);
  for (let i = 0; i < n; i++) {
    const rho = GAUSSIAN_RHOS[i];
    const { A, B } = ellipse(h, rho);
    const logM = gaussianBoxBound(a, sigma, A, B, mom, base + n - 1 - i, centre, centre + 2 + i, err);
    if (logM < Infinity) best = Math.min(best, logBernstein(logM, h, rho));
  }
  return best;
}

/** Offsets from the centre at which `gaussianPanelError` needs each mixture, in increasing order. */
export function gaussianOffsets(h: number): number[] {
  const As = GAUSSIAN_RHOS.map((rho) => ellipse(h, rho).A);
  return [...As.map((A) => -A).reverse(), -h, 0, h, ...As];
}
