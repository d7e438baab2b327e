import { EPS } from '../numerics/float.js';

import type { Component } from '../distribution/mixture.js';

import type { Bounded } from '../numerics/logExpectation.js';

export type { Bounded };

/** Unit roundoff 2^-53; the bounds below are first-order multiples of it (docs/math.md §11). */
const U = EPS / 2;
/** Covers the second-order terms of every first-order bound below (each relative error < 1e-14). */
const SECOND_ORDER = 1.001;

/**
 * log1p(y) for y known only as ỹ = y(1 + δ), |δ| ≤ d: the computed value and a bound on its
 * distance to log1p(y) (mean value theorem, plus one ulp for the library's log1p). Infinite
 * error when the perturbed argument may reach −1.
 */
function log1pPerturbed(y: number, d: number): Bounded {
  const floor = 1 + y - Math.abs(y) * d;
  const value = Math.log1p(y);
  if (!(floor > 0)) return { value, error: Infinity };
  return { value, error: (Math.abs(y) * d) / floor + 2 * U * Math.abs(value) };
}

/**
 * σ² below which D_α(N(μ₁, τ₁² + σ²) ‖ N(μ₂, τ₂² + σ²)) is infinite (α > 1): the divergence is
 * finite iff ατ₂² − (α−1)τ₁² + σ² > 0 (docs/math.md §11). Zero when every σ works.
 */
export function infiniteBelow(p: Component, q: Component, alpha: number): number {
  return Math.max(0, (alpha - 1) * p.sd * p.sd - alpha * q.sd * q.sd);
}

/**
 * Rényi divergence of two Gaussian conditionals after Gaussian noise N(0, σ²), α > 1, with a
 * rigorous bound on its rounding error (docs/math.md §11):
 *     D_α = αΔ²/(2v_α) + (α·log1p(r) − log1p(αr)) / (2(α−1)),
 * v₁ = τ₁² + σ², r = (τ₂² − τ₁²)/v₁, v_α = v₁(1 + αr), Δ = μ₁ − μ₂. Infinite when 1 + αr ≤ 0
 * (the threshold of `infiniteBelow`). The log1p form keeps full relative accuracy when the
 * widths are close (r → 0), where ln(v₂/v₁) would cancel.
 * @example gaussianRenyi({ mean: 0, sd: 1 }, { mean: 1, sd: 1 }, 1, 2).value // 2·1/(2·2) = 0.5
 */
export function gaussianRenyi(p: Component, q: Component, sigma: number, alpha: number): Bounded {
  const s2 = sigma * sigma;
  const v1 = p.sd * p.sd + s2; // rel. error ≤ 2u (sum of rounded non-negative squares)
  if (!(v1 > 0)) return p.mean === q.mean && q.sd === 0 ? { value: 0, error: 0 } : { value: Infinity, error: 0 };
  const dv = (q.sd - p.sd) * (q.sd + p.sd); // τ₂² − τ₁², rel. error ≤ 3u
  const r = dv / v1; // ≤ 6u
  const x = alpha * r; // ≤ 7u
  const dR = 6 * U;
  const dX = 7 * U;
  const onePlusX = 1 + x;
  // 1 + αr > 0 certified (its absolute error is ≤ |x|·7u + u), else the divergence is (or may be) infinite.
  if (!(onePlusX - Math.abs(x) * dX - U > 0)) return { value: Infinity, error: 0 };
  const l1 = log1pPerturbed(r, dR);
  const l2 = log1pPerturbed(x, dX);
  const am1 = alpha - 1; // rel. error ≤ u
  const logs = alpha * l1.value - l2.value;
  const B = logs / (2 * am1);
  // α·l1 (u), the subtraction (u), α−1 (u), the division (u): ≤ 4u of the magnitudes, first order.
  const errB = (alpha * l1.error + l2.error + 4 * U * (alpha * Math.abs(l1.value) + Math.abs(l2.value))) / (2 * am1);
  const delta = p.mean - q.mean; // rel. error ≤ u
  const va = v1 * onePlusX; // rel. error ≤ 2u + u + (|x|·7u + u)/(1 + x)
  const dVa = 3 * U + (Math.abs(x) * dX + U) / (onePlusX - Math.abs(x) * dX - U);
  const A = (alpha * delta * delta) / (2 * va); // Δ² (3u), α· (u), / (u), plus v_α's
  const errA = Math.abs(A) * (5 * U + dVa);
  const value = A + B;
  if (!Number.isFinite(value)) return { value: Infinity, error: 0 };
  const error = SECOND_ORDER * (errA + errB + U * (Math.abs(A) + Math.abs(B)));
  return { value: Math.max(value, 0), error: error + Math.max(0, -value) };
}

/**
 * log E[exp(t·W²)] for W ~ N(a, c²): −½·log1p(−2tc²) + t·a²/(1 − 2tc²), finite iff 2tc² < 1.
 * The moment of Theorem 2 over the quantile coupling of two Gaussians (W = X − X′, a = μ₁ − μ₂,
 * c = τ₁ − τ₂), with its rounding bound (docs/math.md §11). `t` may carry a relative rounding
 * error of up to 4u (t = α(α−1)/(2σ²) as computed); the bound covers it.
 */
export function logSquareMoment(a: number, c: number, t: number): Bounded {
  if (c === 0 && a === 0) return { value: 0, error: 0 };
  const y = -2 * t * c * c; // rel. error ≤ 4u, plus t's 4u
  const dY = 8 * U;
  const den = 1 + y;
  if (!(den - Math.abs(y) * dY - U > 0)) return { value: Infinity, error: 0 };
  const l = log1pPerturbed(y, dY);
  const first = -0.5 * l.value;
  const dDen = (Math.abs(y) * dY + U) / (den - Math.abs(y) * dY - U);
  const second = (t * a * a) / den; // t (4u), t·a² (3u), the division (u), plus den's
  const value = first + second;
  if (!Number.isFinite(value)) return { value: Infinity, error: 0 };
  const error = SECOND_ORDER * (0.5 * l.error + Math.abs(second) * (8 * U + dDen) + U * (Math.abs(first) + Math.abs(second)));
  return { value, error };
}
