import type { Cost, Eta } from '../conditions/costs.js';
import { mechanismNoise } from '../calibrate/mechanismNoise.js';
import type { Mechanism } from '../calibrate/rules.js';
import { mechanismDef } from '../mechanisms/registry.js';
import type { Scenario } from '../distribution/scenario.js';
import { pairCouplings } from '../coupling/pairs.js';
import type { Discrete } from '../distribution/discrete.js';
import { discreteRenyi, exactRenyi } from '../divergence/exactRenyi.js';
import { exactLaplaceDInf } from '../mechanisms/laplace/dInf.js';
import type { Bounded } from '../numerics/logExpectation.js';
import { InputError } from '../errors.js';
import { massErrorCharge, checkMiApplicable } from '../distribution/scenario.js';
import { rdpToDpEq5, rdpToDpSharp } from './conversion.js';
import { empiricalAudit, type EmpiricalAuditResult } from './empirical.js';
import { discreteMutualInformation, exactMutualInformation } from '../mi/mutualInformation.js';
import { samplerFor } from '../release/release.js';
import { drawRelease } from '../sampling/samplers.js';
import { cryptoSource } from '../sampling/random.js';

/** What to audit: the noise family and scale, the orders, ε, and optionally δ and the number of releases. */
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

/** One audited (α, prior, direction): the certified D_α, its slack against ε and the (ε′, δ) conversions. */
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
   * `sup-at-atoms` (α = ∞: the supremum is attained at an atom, docs/math.md §4), or
   * `data-processing` (scale 0, or where the quadrature cannot certify: D_α of the data itself,
   * an upper bound on D_α of any release of it), or `coupled-bound` (vector queries: an upper bound
   * by joint convexity over a coupling, docs/math.md §12; `divergence` is then that bound).
   */
  certificate: 'bernstein-ellipse' | 'sup-at-atoms' | 'data-processing' | 'coupled-bound';
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
 * @example audit(builtinScenario('heart'), { mechanism: 'laplace', scale: 1, alphas: [2], epsilon: 1, delta: 1e-6 })[0].divergence
 */
export function audit(scenario: Scenario, s: AuditSettings, opts: { onProgress?: (done: number, total: number) => void } = {}): AuditRow[] {
  if (!(s.scale >= 0) || !Number.isFinite(s.scale)) throw new InputError(`must be a finite number ≥ 0 (0: the data's own divergence), got ${s.scale}`, 'scale');
  if (!(s.delta > 0 && s.delta < 1)) throw new InputError(`must be in (0, 1), got ${s.delta}`, 'delta');
  if (!(s.epsilon > 0) || !Number.isFinite(s.epsilon)) throw new InputError(`must be a finite number > 0, got ${s.epsilon}`, 'epsilon');
  const noise = mechanismNoise(s, s.scale > 0 ? s.scale : 1);
  const { family, scale: noiseScale } = noise;
  const none = s.scale === 0;
  for (const a of s.alphas) {
    if (!(a > 0) || a === 1) throw new InputError(`α must be > 0 and ≠ 1, got ${a}`, 'alpha');
    const def = mechanismDef(s.mechanism);
    if (a === Infinity && def.alphaRange(a)) throw new InputError(`${def.title} noise has no finite α = ∞ level`, 'alpha');
  }
  const rows: AuditRow[] = [];
  const pcs = pairCouplings(scenario);
  for (const [k, pc] of pcs.entries()) {
    opts.onProgress?.(k, pcs.length);
    const dirs: [string, string, Discrete, Discrete][] = [[pc.pair[0], pc.pair[1], pc.p, pc.q]];
    if (!scenario.ordered) dirs.push([pc.pair[1], pc.pair[0], pc.q, pc.p]);
    for (const [from, to, p, q] of dirs) {
      const dInf = none ? discreteRenyi(p, q, Infinity).value : family === 'laplace' ? exactLaplaceDInf(p, q, noiseScale).value : null;
      for (const alpha of s.alphas) {
        let d: Bounded & { certificate: AuditRow['certificate'] } = none
          ? { ...discreteRenyi(p, q, alpha), certificate: 'data-processing' }
          : alpha === Infinity
            ? { ...exactLaplaceDInf(p, q, noiseScale), certificate: 'sup-at-atoms' }
            : exactRenyi(p, q, noise, alpha);
        // No certificate at this scale (e.g. 1e-18: every panel underflows): the data's own
        // divergence bounds any release of it (data processing).
        if (!Number.isFinite(d.value) || !Number.isFinite(d.error)) d = { ...discreteRenyi(p, q, alpha), certificate: 'data-processing' };
        // Divergences are ≥ 0: a computed −1e-16 is shown as 0 (the error bound still covers it).
        d = { ...d, value: Math.max(0, d.value) };
        // Laws computed in floating point (a chain's): their mass error widens the bound (docs/math.md §13).
        if (scenario.massError) d = { ...d, error: d.error + massErrorCharge(scenario.massError, alpha) };
        const finite = alpha > 1 && alpha < Infinity;
        rows.push({
          alpha,
          prior: pc.prior,
          pair: [pc.pair[0], pc.pair[1]],
          direction: [from, to],
          divergence: d.value,
          error: d.error,
          certificate: d.certificate,
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
  checkMiApplicable(scenario);
  const noise = mechanismNoise(s, s.scale > 0 ? s.scale : 1);
  return scenario.priors.map((prior) => {
    // I(Y;S) ≤ I(X;S) (data processing): the data's own MI at scale 0, or where the
    // integration gives no usable answer (tiny scales).
    const data = discreteMutualInformation(prior);
    let r = s.scale > 0 ? exactMutualInformation(prior, noise) : { value: data.value, error: data.error, bits: data.value / Math.LN2 };
    if (!Number.isFinite(r.error) || r.value - r.error > data.value + data.error) r = { value: data.value, error: data.error, bits: data.value / Math.LN2 };
    let pp: number | null = null;
    if (noise.family === 'laplace' && s.scale > 0) {
      const secrets = Object.keys(prior.conditionals);
      let e = 0;
      for (const a of secrets)
        for (const b of secrets) if (a !== b) e = Math.max(e, exactLaplaceDInf(prior.conditionals[a], prior.conditionals[b], noise.scale).value);
      pp = e * Math.tanh(e / 2);
    }
    return { prior: prior.name, nats: r.value, bits: r.bits, error: r.error, impliedByPufferfish: pp };
  });
}

/**
 * Draws an atom index with the given masses from the platform CSPRNG (53-bit uniforms; the
 * audit's sampling need not be exact, only independent of the test): the last atom takes what
 * rounding leaves.
 */
export function atomSampler(masses: ArrayLike<number>): () => number {
  const u = new Uint32Array(2);
  return () => {
    cryptoSource.fill(new Uint8Array(u.buffer));
    let r = (u[0] * 2 ** 21 + (u[1] >>> 11)) / 2 ** 53,
      k = 0;
    while (k < masses.length - 1 && r >= masses[k]) {
      r -= masses[k];
      k++;
    }
    return k;
  };
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
  const draw = (d: Discrete) => {
    const atom = atomSampler(d.masses);
    return () => drawRelease(d.values[atom()], noise, { random: cryptoSource });
  };
  return pairCouplings(scenario).map((pc) => ({
    prior: pc.prior,
    pair: [pc.pair[0], pc.pair[1]] as [string, string],
    result: empiricalAudit(draw(pc.p), draw(pc.q), { alpha: s.alpha, epsilon: s.epsilon }, { samples: s.samples, level: s.level, delta: s.delta }),
  }));
}
