import { massErrorCharge } from '../distribution/scenario.js';
import type { Bounded } from '../numerics/logExpectation.js';
import { rdpToDpEq5, rdpToDpSharp } from './conversion.js';
import type { AuditRow } from './rows.js';

/** A certified upper bound on D_α of the released outputs: how it is certified, and the order its laws' mass error is charged at. */
export interface CertifiedBound extends Bounded {
  certificate: AuditRow['certificate'];
  /** The order whose mass-error charge the bound takes (α, or ∞ for a D∞ bound used at a finite order). */
  order: number;
}

/**
 * One direction P ‖ Q of a secret pair under a prior: what a kind of law supplies to be audited
 * (the audit itself, `auditRows`, is written once over these).
 */
export interface AuditDirection {
  prior: string;
  pair: [string, string];
  from: string;
  to: string;
  /** Every certified upper bound on D_α at `alpha` that applies; the audit keeps the smallest, the first on a tie. */
  bounds(alpha: number): CertifiedBound[];
  /** The ε-Pufferfish level of the direction (D∞ with every error, rounded up), null where none is computed. */
  level(): number | null;
}

/**
 * The audit rows of a law source's directions at every order: the smallest certified bound on D_α
 * with the laws' mass error charged (docs/math.md §13), its slack to ε and the (ε′, δ) it implies
 * (Eq. 5 and the sharp conversion, docs/math.md §3); at α = ∞ the level itself.
 * @example auditRows([{ prior: 'p', pair: ['a', 'b'], from: 'a', to: 'b', bounds: () => [{ value: 0.5, error: 0, certificate: 'exact', order: 2 }], level: () => null }], { alphas: [2], epsilon: 1, delta: 1e-6 }, undefined)[0].slack // 0.5
 */
export function auditRows(
  directions: readonly AuditDirection[],
  s: { alphas: readonly number[]; epsilon: number; delta: number },
  massError: number | undefined,
  onProgress?: (done: number, total: number) => void,
): AuditRow[] {
  const charge = (b: CertifiedBound) => (massError ? massErrorCharge(massError, b.order) : 0);
  const total = (b: CertifiedBound) => Math.max(0, b.value) + b.error + charge(b);
  const rows: AuditRow[] = [];
  for (const [k, dir] of directions.entries()) {
    onProgress?.(k, directions.length);
    const level = dir.level();
    for (const alpha of s.alphas) {
      const d = dir.bounds(alpha).reduce((a, b) => (total(b) < total(a) || Number.isNaN(total(a)) ? b : a));
      // Divergences are ≥ 0: a computed −1e-16 is shown as 0 (the error bound still covers it).
      const [value, error] = [Math.max(0, d.value), d.error + charge(d)];
      const finite = alpha > 1 && alpha < Infinity;
      rows.push({
        alpha,
        prior: dir.prior,
        pair: dir.pair,
        direction: [dir.from, dir.to],
        divergence: value,
        error,
        certificate: d.certificate,
        slack: s.epsilon - (value + error),
        epsilonEq5: finite ? rdpToDpEq5(value + error, alpha, s.delta) : alpha === Infinity ? value + error : null,
        epsilonSharp: finite ? rdpToDpSharp(value + error, alpha, s.delta) : alpha === Infinity ? value + error : null,
        pufferfishEpsilon: level,
      });
    }
  }
  return rows;
}
