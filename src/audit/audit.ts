import type { Cost, Eta } from '../conditions/costs.js';
import { mechanismNoise } from '../divergence/mechanismNoise.js';
import type { Mechanism } from '../calibrate/rules.js';
import { pairCouplings, type Scenario } from '../calibrate/scenario.js';
import type { Discrete } from '../distribution/discrete.js';
import { exactLaplaceDInf, exactRenyi } from '../divergence/exactRenyi.js';
import { InputError } from '../errors.js';
import { rdpToDpEq5, rdpToDpSharp } from './conversion.js';
import { empiricalAudit, type EmpiricalAuditResult } from './empirical.js';
import { exactMutualInformation } from '../mi/mutualInformation.js';
import { samplerFor } from '../release/release.js';
import { drawRelease } from '../release/samplers.js';
import { cryptoSource } from '../release/random.js';

export interface AuditSettings {
  mechanism: Mechanism;
  /** Laplace b, Gaussian σ, exponential θ. */
  scale: number;
  alphas: number[];
  /** Budget to report the slack against. */
  epsilon: number;
  /** δ for the (ε′, δ) conversions. */
  delta: number;
  cost?: Cost;
  eta?: Eta;
}

export interface AuditRow {
  alpha: number;
  prior: string;
  pair: [string, string];
  /** `from‖to`: the direction of the divergence. */
  direction: [string, string];
  divergence: number;
  error: number;
  /**
   * How `error` is proven: `bernstein-ellipse` (certified quadrature, docs/math.md §8) or
   * `sup-at-atoms` (α = ∞: the supremum is attained at an atom, docs/math.md §4).
   */
  certificate: 'bernstein-ellipse' | 'sup-at-atoms';
  /** ε − (D_α + error): ≥ 0 means the guarantee is certified at this scale. */
  slack: number;
  /** (ε′, δ) by eq. (5) and by the sharper conversion; null for α < 1. */
  epsilonEq5: number | null;
  epsilonSharp: number | null;
  /** Laplace-shaped noise: the exact ε-Pufferfish level sup log p/q (α = ∞). */
  pufferfishEpsilon: number | null;
}

/**
 * Audits a noise scale: the exact D_α of the released outputs for every α, prior, pair and
 * direction (both unless the scenario is ordered), with its slack to ε, the (ε′, δ) it implies,
 * and for Laplace-shaped noise the exact ε-Pufferfish level.
 */
export function audit(scenario: Scenario, s: AuditSettings): AuditRow[] {
  if (!(s.scale > 0) || !Number.isFinite(s.scale)) throw new InputError(`must be a finite number > 0, got ${s.scale}`, 'scale');
  if (!(s.delta > 0 && s.delta < 1)) throw new InputError(`must be in (0, 1), got ${s.delta}`, 'delta');
  if (!(s.epsilon > 0) || !Number.isFinite(s.epsilon)) throw new InputError(`must be a finite number > 0, got ${s.epsilon}`, 'epsilon');
  const { family, scale: noiseScale } = mechanismNoise(s, s.scale);
  for (const a of s.alphas) {
    if (!(a > 0) || a === 1) throw new InputError(`α must be > 0 and ≠ 1, got ${a}`, 'alpha');
    if (a === Infinity && family === 'gaussian') throw new InputError('Gaussian noise has no finite α = ∞ level', 'alpha');
  }
  const rows: AuditRow[] = [];
  for (const pc of pairCouplings(scenario)) {
    const dirs: [string, string, Discrete, Discrete][] = [[pc.pair[0], pc.pair[1], pc.p, pc.q]];
    if (!scenario.ordered) dirs.push([pc.pair[1], pc.pair[0], pc.q, pc.p]);
    for (const [from, to, p, q] of dirs) {
      const dInf = family === 'laplace' ? exactLaplaceDInf(p, q, noiseScale).value : null;
      for (const alpha of s.alphas) {
        const d = alpha === Infinity ? exactLaplaceDInf(p, q, noiseScale) : exactRenyi(p, q, { family, scale: noiseScale }, alpha);
        const finite = alpha > 1 && alpha < Infinity;
        rows.push({
          alpha,
          prior: pc.prior,
          pair: [pc.pair[0], pc.pair[1]],
          direction: [from, to],
          divergence: d.value,
          error: d.error,
          certificate: 'certificate' in d ? d.certificate as 'bernstein-ellipse' : 'sup-at-atoms',
          slack: s.epsilon - (d.value + d.error),
          epsilonEq5: finite ? rdpToDpEq5(d.value + d.error, alpha, s.delta) : alpha === Infinity ? d.value + d.error : null,
          epsilonSharp: finite ? rdpToDpSharp(d.value + d.error, alpha, s.delta) : alpha === Infinity ? d.value + d.error : null,
          pufferfishEpsilon: dInf,
        });
      }
    }
  }
  return rows;
}

export interface MiAuditRow {
  prior: string;
  nats: number;
  bits: number;
  error: number;
  /** Laplace-shaped noise: the MI level the exact ε-PP level implies, ε·tanh(ε/2) (docs/math.md §7). */
  impliedByPufferfish: number | null;
}

/** I(Y; S) per prior at the audited scale, next to what the ε-Pufferfish level implies. */
export async function auditMI(scenario: Scenario, s: Pick<AuditSettings, 'mechanism' | 'scale' | 'eta' | 'cost'>): Promise<MiAuditRow[]> {
  const { family, scale } = mechanismNoise(s, s.scale);
  return scenario.priors.map((prior) => {
    const r = exactMutualInformation(prior, { family, scale });
    let pp: number | null = null;
    if (family === 'laplace') {
      const secrets = Object.keys(prior.conditionals);
      let e = 0;
      for (const a of secrets) for (const b of secrets) if (a !== b) e = Math.max(e, exactLaplaceDInf(prior.conditionals[a], prior.conditionals[b], scale).value);
      pp = e * Math.tanh(e / 2);
    }
    return { prior: prior.name, nats: r.value, bits: r.bits, error: r.error, impliedByPufferfish: pp };
  });
}

export interface EmpiricalRow {
  prior: string;
  pair: [string, string];
  result: EmpiricalAuditResult;
}

/**
 * Drives the real release path (the samplers `release` uses, CSPRNG randomness) under each
 * secret of each pair — X drawn from the secret's conditional, then privatized — and tests the
 * claimed (α, ε) guarantee with `empiricalAudit`.
 */
export async function auditEmpirical(scenario: Scenario, s: AuditSettings & { alpha: number; samples?: number; level?: number }): Promise<EmpiricalRow[]> {
  const noise = samplerFor(s, s.scale);
  const u = new Uint32Array(2);
  const uniform = () => { cryptoSource.fill(new Uint8Array(u.buffer)); return (u[0] * 2 ** 21 + (u[1] >>> 11)) / 2 ** 53; };
  const draw = (d: Discrete) => () => {
    let r = uniform(), k = 0;
    while (k < d.masses.length - 1 && r >= d.masses[k]) { r -= d.masses[k]; k++; }
    return drawRelease(d.values[k], noise, { random: cryptoSource });
  };
  return pairCouplings(scenario).map((pc) => ({
    prior: pc.prior,
    pair: [pc.pair[0], pc.pair[1]] as [string, string],
    result: empiricalAudit(draw(pc.p), draw(pc.q), { alpha: s.alpha, epsilon: s.epsilon }, { samples: s.samples, level: s.level, delta: s.delta }),
  }));
}
