import type { AuditRow, AuditSettings } from '../audit/audit.js';
import { rdpToDpEq5, rdpToDpSharp } from '../audit/conversion.js';
import { pairsOf } from '../calibrate/scenario.js';
import { scaledLaplaceRdp } from '../conditions/pierquin.js';
import { discreteRenyi } from '../divergence/exactRenyi.js';
import { InputError } from '../errors.js';
import { EPS } from '../numerics/float.js';
import { logExpectationExp, type Bounded } from '../numerics/logExpectation.js';
import { dimensionOf } from './calibrate.js';
import { distance, optimalCoupling, wInfVector, type Norm, type VectorCoupling } from './coupling.js';
import { asIdLaws, coord, type VectorLaw, type VectorScenario } from './law.js';

/**
 * (α − 1)·D_α of the product noise around two points, per coordinate pair (i of P, j of Q), as a
 * bounded number: Laplace Σ_c (α−1)·R_α(|Δ_c|/(w_c·b)) (certified R_α), Gaussian
 * α(α−1)·Σ_c (Δ_c/w_c)²/(2σ²) (a few roundings per coordinate).
 */
function pairExponent(
  P: VectorLaw,
  Q: VectorLaw,
  i: number,
  j: number,
  mechanism: 'laplace' | 'gaussian',
  w: readonly number[],
  scale: number,
  alpha: number,
): Bounded {
  let sum = 0,
    err = 0;
  for (let c = 0; c < P.d; c++) {
    const t = Math.abs(coord(P, i, c) - coord(Q, j, c)) / w[c] / scale;
    if (mechanism === 'laplace') {
      const r = scaledLaplaceRdp(alpha, t);
      sum += r.value;
      err += r.error + EPS * Math.abs(sum);
    } else {
      sum += t * t;
      err += 4 * EPS * Math.abs(sum);
    }
  }
  const k = mechanism === 'laplace' ? 1 : (alpha * (alpha - 1)) / 2; // scaledLaplaceRdp is already (α−1)·R_α
  return { value: k * sum, error: k * err + 4 * EPS * Math.abs(k * sum) };
}

/** D_α ≤ (1/(α−1))·log E_π exp((α−1)·D_α(pair)) over the coupling π (joint convexity, α > 1), with its error. */
function coupledBound(c: VectorCoupling, t: (i: number, j: number) => Bounded, alpha: number): Bounded {
  const values = new Float64Array(c.mass.length);
  let inner = 0;
  for (let k = 0; k < values.length; k++) {
    const e = t(c.p[k], c.q[k]);
    values[k] = e.value;
    inner = Math.max(inner, e.error);
  }
  const outer = logExpectationExp(c.mass, values);
  const value = outer.value / (alpha - 1);
  return { value, error: (outer.error + inner) / (alpha - 1) + 2 * EPS * Math.abs(value) };
}

/**
 * Audits a noise scale on a vector query (docs/math.md §12): independent noise per coordinate at
 * wᵢ·scale, and for every α, prior, pair and direction a certified *upper bound* on D_α of the
 * released vectors — the coupled bound (joint convexity over a coupling of the two laws, with each
 * coupled pair's exact divergence), over the better of two couplings (the W₁/W₂ transport and the
 * transport for the bound's own cost at this scale), or the data's own D_α where that is smaller
 * (data processing). α = ∞ (Laplace): the W∞ coupling's largest weighted ℓ₁ displacement over b.
 * The exact divergence would need a d-dimensional integral; a row that passes is certified, a row
 * that fails may be the bound's looseness.
 */
export function auditVector(scenario: VectorScenario, s: AuditSettings & { coordinateScales?: readonly number[] }): AuditRow[] {
  if (!(s.scale >= 0) || !Number.isFinite(s.scale)) throw new InputError(`must be a finite number ≥ 0 (0: the data's own divergence), got ${s.scale}`, 'scale');
  if (!(s.delta > 0 && s.delta < 1)) throw new InputError(`must be in (0, 1), got ${s.delta}`, 'delta');
  if (!(s.epsilon > 0) || !Number.isFinite(s.epsilon)) throw new InputError(`must be a finite number > 0, got ${s.epsilon}`, 'epsilon');
  if (s.mechanism !== 'laplace' && s.mechanism !== 'gaussian')
    throw new InputError('vector queries take laplace or gaussian noise (independent per coordinate)', 'mechanism');
  const mechanism = s.mechanism;
  const d = dimensionOf(scenario);
  const w = s.coordinateScales ?? Array(d).fill(1);
  if (w.length !== d || !w.every((x) => Number.isFinite(x) && x > 0)) throw new InputError(`needs ${d} finite numbers > 0`, 'coordinateScales');
  for (const a of s.alphas) {
    if (!(a > 1)) throw new InputError(`vector audits bound D_α for α > 1 (the coupled bound), got ${a}`, 'alpha');
    if (a === Infinity && mechanism === 'gaussian') throw new InputError('Gaussian noise has no finite α = ∞ level', 'alpha');
  }
  const norm: Norm = { kind: mechanism === 'laplace' ? 'l1' : 'l2', weights: w };
  const p = mechanism === 'laplace' ? 1 : 2;
  const rows: AuditRow[] = [];
  for (const prior of scenario.priors)
    for (const pair of pairsOf(scenario)) {
      const dirs: [string, string][] = [[pair[0], pair[1]]];
      if (!scenario.ordered) dirs.push([pair[1], pair[0]]);
      for (const [from, to] of dirs) {
        const P = prior.conditionals[from],
          Q = prior.conditionals[to];
        const [ip, iq] = asIdLaws(P, Q);
        const transport = s.scale > 0 ? optimalCoupling(P, Q, (i, j) => distance(P, Q, i, j, norm) ** p) : null;
        for (const alpha of s.alphas) {
          const data = discreteRenyi(ip, iq, alpha);
          let best: Bounded & { certificate: AuditRow['certificate'] } = { ...data, certificate: 'data-processing' };
          if (transport && alpha === Infinity) {
            const v = wInfVector(P, Q, norm) / s.scale;
            const bound = { value: v, error: 4 * EPS * v, certificate: 'coupled-bound' as const };
            if (bound.value + bound.error < best.value + best.error) best = bound;
          } else if (transport) {
            const t = (i: number, j: number) => pairExponent(P, Q, i, j, mechanism, w, s.scale, alpha);
            // Re-solve the transport for the bound's own cost at this scale (relative to the current
            // coupling's worst pair, capped at e^10, as calibrateVector does) until it stops improving;
            // any coupling gives a valid bound, so the smallest is kept.
            let coupling = transport;
            let bound = coupledBound(coupling, t, alpha);
            for (let round = 0; round < 6; round++) {
              let ref = -Infinity;
              for (let k = 0; k < coupling.mass.length; k++) ref = Math.max(ref, t(coupling.p[k], coupling.q[k]).value);
              const next = optimalCoupling(P, Q, (i, j) => Math.exp(Math.min(t(i, j).value - ref, 10)), coupling.basis);
              const nb = coupledBound(next, t, alpha);
              if (!(nb.value + nb.error < (bound.value + bound.error) * (1 - 1e-9))) break;
              [coupling, bound] = [next, nb];
            }
            if (bound.value + bound.error < best.value + best.error) best = { ...bound, certificate: 'coupled-bound' };
          }
          const total = best.value + best.error;
          const finite = alpha < Infinity;
          rows.push({
            alpha,
            prior: prior.name,
            pair: [pair[0], pair[1]],
            direction: [from, to],
            divergence: Math.max(0, best.value),
            error: best.error,
            certificate: best.certificate,
            slack: s.epsilon - total,
            epsilonEq5: finite ? rdpToDpEq5(total, alpha, s.delta) : total,
            epsilonSharp: finite ? rdpToDpSharp(total, alpha, s.delta) : total,
            pufferfishEpsilon: null,
          });
        }
      }
    }
  return rows;
}
