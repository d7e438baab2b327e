/**
 * Rigorous error bounds for one Gauss–Kronrod panel of the exact accountant (docs/math.md,
 * "Certified quadrature"). The integrand is f = Π_k m_k^{a_k} with Σ_k a_k = 1, each m_k a Laplace
 * or Gaussian mixture density (Rényi: p^α q^{1−α}; an output mass: p).
 *
 * Bernstein-ellipse bound. On a panel [c−h, c+h], if f continues analytically to the ellipse with
 * foci c ± h and semi-axes A = h(ρ+1/ρ)/2, B = h(ρ−1/ρ)/2 and |f| ≤ M there, its Chebyshev
 * coefficients obey |a_j| ≤ 2Mρ^{−j} (Trefethen, ATAP Thm 8.1). K21 has positive weights summing to
 * the length and is exact to degree 31, so
 *     |∫f − K21(f)| ≤ h·Σ_{j≥32} |a_j|·(|I(T_j)| + |K21(T_j)|) ≤ 8·h·M·ρ^{−31}/(ρ−1).
 * M is bounded in closed form from the mixture's structure (below) on the box |Re| ≤ A, |Im| ≤ B,
 * which contains the ellipse. A cruder bound, 2h·sup_real f, is used where it is smaller.
 */

const U = Number.EPSILON / 2;
const KRONROD_DEGREE = 31;
const LAPLACE_RHOS = [1.2, 1.5, 2, 3, 4.5, 7, 12, 25, 60, 200];
/** Ellipses tried for Gaussian panels (each costs two mixture evaluations per side). */
export const GAUSSIAN_RHOS = [1.5, 2.5, 4.5] as const;

/** log of 8·h·M·ρ^{−31}/(ρ−1). */
const logBernstein = (logM: number, h: number, rho: number) =>
  Math.log(8 * h) + logM - KRONROD_DEGREE * Math.log(rho) - Math.log(rho - 1);

const ellipse = (h: number, rho: number) => ({ A: (h * (rho + 1 / rho)) / 2, B: (h * (rho - 1 / rho)) / 2 });

/** a is a non-negative integer: m^a is entire, so zeros of m do not matter. */
const entirePower = (a: number) => a >= 0 && Number.isInteger(a);

const logAdd = (a: number, b: number) =>
  a === -Infinity ? b : b === -Infinity ? a : Math.max(a, b) + Math.log1p(Math.exp(-Math.abs(a - b)));

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
 * @returns log of a rigorous bound on |∫_panel f − K21|, `margin` nats of rounding added.
 */
export function laplacePanelError(a: readonly number[], L: readonly number[], R: readonly number[], b: number, h: number): number {
  const K = a.length - 1;
  let mag = 1, sumAbs = 0;
  for (let k = 0; k <= K; k++) {
    sumAbs += Math.abs(a[k]);
    mag += Math.abs(a[k]) * ((Number.isFinite(L[k]) ? Math.abs(L[k]) : 0) + (Number.isFinite(R[k]) ? Math.abs(R[k]) : 0));
  }
  // Rounding of the few dozen operations below: 1e-12 of the magnitudes they combine.
  const margin = (A: number) => 1e-12 * (mag + (sumAbs * 2 * A) / b);
  const realSup = (A: number) => {
    const kl = logAdd(L[K] + A / b, R[K] - A / b), kr = logAdd(L[K] - A / b, R[K] + A / b);
    let v = Math.max(kl, kr);
    for (let k = 0; k < K; k++) {
      if (a[k] === 0) continue;
      const l = logAdd(L[k] + A / b, R[k] - A / b) - kl, r = logAdd(L[k] - A / b, R[k] + A / b) - kr;
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
      const l0 = R[k] - L[k] - (2 * A) / b, l1 = R[k] - L[k] + (2 * A) / b;
      const dist = l0 > 0 ? l0 : l1 < 0 ? -l1 : 0;
      const r = Math.exp(-dist), oneMinus = -Math.expm1(-dist);
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
  const start = 3;
  let prev = Infinity;
  for (let i = start; i < LAPLACE_RHOS.length; i++) {
    const v = at(LAPLACE_RHOS[i]);
    best = Math.min(best, v);
    if (v > prev) break;
    prev = v;
  }
  prev = Infinity;
  for (let i = start - 1; i >= 0; i--) {
    const v = at(LAPLACE_RHOS[i]);
    if (!(v < best)) break;
    best = v;
  }
  return best;
}

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
    let C0 = 0, C1 = 0, mag = 1;
    for (let k = 0; k < a.length; k++) {
      if (a[k] === 0) continue;
      if (a[k] > 0) {
        const lm = Lam(k, jm, -A), lp = Lam(k, jp, A);
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
    const jm = n - 1 - i, jp = centre + 2 + i;
    let logM = realSup(A, jm, jp) + (B * B) / (2 * s2);
    for (let k = 0; k < a.length && logM < Infinity; k++) {
      if (entirePower(a[k]) || a[k] === 0) continue;
      const c = at(k, centre);
      let logS = -Infinity;
      for (const [j, z] of [[jm, -A], [jp, A]] as const) {
        const g = at(k, j);
        const delta = z - c.m1; // (c + z) − r
        // Slack for the window's effect on the posterior mean (and rounding): relative 1e-9, plus 1e-9·σ².
        const E = (Math.max(0, g.m2 - g.m1 * g.m1 + 4 * U * (g.m2 + g.m1 * g.m1)) + (g.m1 + delta) ** 2 * (1 + 4 * U)) * (1 + 1e-9) + 1e-9 * (g.m2 + delta * delta + s2);
        logS = Math.max(logS, Lam(k, j, z) + Math.log(E));
      }
      const V = Math.exp(logS - c.ld + (A * Math.abs(c.m1)) / s2 + 1e-9 * (1 + Math.abs(logS) + Math.abs(c.ld)) + 2 * err);
      const w = 1 - ((B * B) / (2 * s2 * s2)) * V;
      if (!(w > 1e-9)) { logM = Infinity; break; } // m_k may vanish on the ellipse
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
