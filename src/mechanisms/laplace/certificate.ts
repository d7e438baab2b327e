import { U } from '../../divergence/mixture.js';
import { ellipse, entirePower, logAdd, logBernstein } from '../../divergence/certificate.js';

/** Ellipses tried for Laplace panels (cheap: closed form per ρ). */
const LAPLACE_RHOS = [1.2, 1.5, 2, 3, 4.5, 7, 12, 25, 60, 200];

/**
 * Laplace panel strictly between atoms: there each mixture is m_k(c+z) = L_k e^{−z/b} + R_k e^{z/b}
 * (`laplaceHalves` at the centre c), an entire function of z.
 * - Real axis: log m_K is convex (log-sum-exp of linear functions), and m_k/m_K is a Möbius
 *   function of u = e^{2z/b}, so monotone on the whole line; writing log f = log m_K +
 *   Σ_{k<K} a_k log(m_k/m_K), each term is largest at an end of [−A, A].
 * - Off the axis, z = s + it: |m_k| ≤ m_k(s) since |e^{±z/b}| = e^{±s/b}, and with r = (R/L)e^{2s/b},
 *   |m_k(z)| = L e^{−s/b}|1 + r e^{2it/b}| ≥ L e^{−s/b}·√((1−r)² + 4r cos²(φ/2)), φ = min(2B/b, π);
 *   so |m_k|^{a_k} ≤ m_k(s)^{a_k}·e^{−a_k c_k} for a_k < 0, c_k = log(1+r) − ½log((1−r)² + 4r cos²(φ/2)),
 *   largest at the r nearest 1 (c is symmetric in r ↔ 1/r). Non-integer powers need m_k ≠ 0 on the
 *   ellipse (c_k finite), so that a branch of m_k^{a_k}, real on the axis, exists there.
 * @param enough a log error small enough for the caller: the walk over ρ stops once below it (any
 *   ρ gives a valid bound, so this trades only tightness the caller does not need for speed).
 * @returns log of a rigorous bound on |∫_panel f − K21|, `margin` nats of rounding added.
 */
export function laplacePanelError(a: readonly number[], L: readonly number[], R: readonly number[], b: number, h: number, enough = -Infinity): number {
  const K = a.length - 1;
  let mag = 1,
    sumAbs = 0;
  for (let k = 0; k <= K; k++) {
    sumAbs += Math.abs(a[k]);
    mag += Math.abs(a[k]) * ((Number.isFinite(L[k]) ? Math.abs(L[k]) : 0) + (Number.isFinite(R[k]) ? Math.abs(R[k]) : 0));
  }
  // Rounding of the few dozen operations below: 1e-12 of the magnitudes they combine.
  const margin = (A: number) => 1e-12 * (mag + (sumAbs * 2 * A) / b);
  const realSup = (A: number) => {
    const kl = logAdd(L[K] + A / b, R[K] - A / b),
      kr = logAdd(L[K] - A / b, R[K] + A / b);
    let v = Math.max(kl, kr);
    for (let k = 0; k < K; k++) {
      if (a[k] === 0) continue;
      const l = logAdd(L[k] + A / b, R[k] - A / b) - kl,
        r = logAdd(L[k] - A / b, R[k] + A / b) - kr;
      v += Math.max(a[k] * l, a[k] * r);
    }
    return v;
  };
  const at = (rho: number) => {
    const { A, B } = ellipse(h, rho);
    // cos²(φ/2), φ = min(2B/b, π); exactly 0 from φ = π on (Math.cos(π/2) is 6e-17, not 0).
    const cos2 = B / b >= Math.PI / 2 ? 0 : Math.cos(B / b) ** 2;
    let logM = realSup(A);
    for (let k = 0; k <= K; k++) {
      if (entirePower(a[k])) continue;
      // |log r| at the r nearest 1 over s ∈ [−A, A]; r = 0 (one half empty) gives c = 0.
      const l0 = R[k] - L[k] - (2 * A) / b,
        l1 = R[k] - L[k] + (2 * A) / b;
      const dist = l0 > 0 ? l0 : l1 < 0 ? -l1 : 0;
      const r = Math.exp(-dist),
        oneMinus = -Math.expm1(-dist);
      const D = oneMinus * oneMinus + 4 * r * cos2;
      // A zero of m_k on (or within rounding of) the ellipse: no analytic branch of m_k^{a_k}.
      if (!(D > 1e-12)) return Infinity;
      if (a[k] < 0) logM += -a[k] * (Math.log1p(r) - 0.5 * Math.log(D)) * (1 + 8 * U) + 8 * U;
    }
    return logBernstein(logM + margin(A), h, rho);
  };
  // The bound is unimodal in ρ in practice: walk up from ρ = 3 while it improves, then down.
  // Every ρ tried gives a valid bound, so the walk affects only tightness.
  let best = Math.log(2 * h) + realSup(h) + margin(h);
  if (best < enough) return best;
  const start = 3;
  let prev = Infinity;
  for (let i = start; i < LAPLACE_RHOS.length; i++) {
    const v = at(LAPLACE_RHOS[i]);
    best = Math.min(best, v);
    if (best < enough) return best;
    if (v > prev) break;
    prev = v;
  }
  prev = Infinity;
  for (let i = start - 1; i >= 0; i--) {
    const v = at(LAPLACE_RHOS[i]);
    if (!(v < best)) break;
    best = v;
    if (best < enough) break;
  }
  return best;
}
