import { InputError } from '../errors.js';
/**
 * (α, ε)-RPP → (ε′, δ)-Pufferfish, α > 1.
 * Eq. (5) of Ding, Yang, Zhang (Chernoff; Mironov 2017 Prop. 3): ε′ = D_α + log(1/δ)/(α−1).
 * @example rdpToDpEq5(1, 2, 1e-6) // 1 + log(1e6) ≈ 14.82
 */
export function rdpToDpEq5(divergence: number, alpha: number, delta: number): number {
  checkConversion(alpha, delta);
  return divergence + Math.log(1 / delta) / (alpha - 1);
}

/**
 * The sharper conversion (Canonne, Kamath, Steinke 2020, Prop. 12; Balle et al. 2020):
 * ε′ = D_α + log((α−1)/α) − (log δ + log α)/(α−1). Never worse than eq. (5) for δ < 1.
 * @example rdpToDpSharp(1, 2, 1e-6) // below rdpToDpEq5(1, 2, 1e-6)
 */
export function rdpToDpSharp(divergence: number, alpha: number, delta: number): number {
  checkConversion(alpha, delta);
  return divergence + Math.log((alpha - 1) / alpha) - (Math.log(delta) + Math.log(alpha)) / (alpha - 1);
}

/** The conversions hold for α > 1 (∞ included) and 0 < δ < 1: anything else is refused by name. */
function checkConversion(alpha: number, delta: number): void {
  if (!(typeof alpha === 'number' && alpha > 1)) throw new InputError(`the (ε′, δ) conversion needs α > 1, got ${String(alpha)}`, 'alpha');
  if (!(typeof delta === 'number' && delta > 0 && delta < 1)) throw new InputError(`must be in (0, 1), got ${String(delta)}`, 'delta');
}
