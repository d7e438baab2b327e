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
 * The family-specific bounds on M are in each family's `certificate.ts` (mechanisms/laplace, mechanisms/gaussian).
 */

const KRONROD_DEGREE = 31;

/** log of 8·h·M·ρ^{−31}/(ρ−1). */
export const logBernstein = (logM: number, h: number, rho: number) => Math.log(8 * h) + logM - KRONROD_DEGREE * Math.log(rho) - Math.log(rho - 1);

export const ellipse = (h: number, rho: number) => ({ A: (h * (rho + 1 / rho)) / 2, B: (h * (rho - 1 / rho)) / 2 });

/** a is a non-negative integer: m^a is entire, so zeros of m do not matter. */
export const entirePower = (a: number) => a >= 0 && Number.isInteger(a);

export const logAdd = (a: number, b: number) => (a === -Infinity ? b : b === -Infinity ? a : Math.max(a, b) + Math.log1p(Math.exp(-Math.abs(a - b))));
