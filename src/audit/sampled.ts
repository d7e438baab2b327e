import { checkSetting } from '../settings.js';
import { atomSampler, type EmpiricalRow } from './rows.js';
import { empiricalAudit, type EmpiricalAuditResult } from './empirical.js';
import { priorPairs, type Scenario } from '../distribution/scenario.js';
import { InputError } from '../errors.js';
import { cryptoSource } from '../sampling/random.js';
import { coordinateNoise, type NoiseSettings } from '../release/noise.js';

/** A finite law as the sample-based audit draws from it: its atoms' masses and atom k as a vector (a number: length 1). */
export interface SampledLaw<C> {
  masses(law: C): ArrayLike<number>;
  atom(law: C, k: number): number[];
}

/** What a sample-based audit takes: the claimed (α, ε) and δ, the samples per secret and the false-alarm level. */
export type SampledSettings = NoiseSettings & {
  scale: number;
  alpha: number;
  epsilon: number;
  delta: number;
  samples?: number;
  level?: number;
};

/**
 * The one sample-based audit (docs/math.md §7, §12), for laws on ℝ and on ℝ^d alike: the real
 * release path — an atom drawn from each secret's law, then independent noise per coordinate at
 * wᵢ·scale, rounded up as `release` does, from the CSPRNG — tested through one-number statistics
 * of the released vector: the value itself on ℝ; on ℝ^d each coordinate and the sum Σ yᵢ/wᵢ. A
 * test on a statistic of Y is a test on Y (data processing), so each of the k statistics gets the
 * one-dimensional audit at level/k and a union bound keeps the whole audit's false-alarm rate at
 * `level`. A row reports the statistic with the largest lower bound.
 */
export function sampledAudit<C>(
  scenario: Scenario<C>,
  law: SampledLaw<C>,
  weights: readonly number[],
  s: SampledSettings,
  onProgress?: (done: number, total: number) => void,
): EmpiricalRow[] {
  const level = s.level ?? 1e-3;
  checkSetting('level', level);
  const noise = coordinateNoise(s, s.scale, weights);
  const release = (m: C) => {
    const atom = atomSampler(law.masses(m));
    return () => noise.draw(law.atom(m, atom()), cryptoSource);
  };
  const d = weights.length;
  const statistics: { label: string; of: (y: number[]) => number }[] =
    d === 1
      ? [{ label: 'y', of: (y) => y[0] }]
      : [
          ...Array.from({ length: d }, (_, c) => ({ label: `y${c + 1}`, of: (y: number[]) => y[c] })),
          { label: `Σ yᵢ/wᵢ`, of: (y: number[]) => y.reduce((a, x, c) => a + x / weights[c], 0) },
        ];
  const units = priorPairs(scenario).units;
  return units.map(({ prior, pair: [a, b] }, k) => {
    // Each pair's samples take seconds on many-valued laws: said as they go.
    onProgress?.(k, units.length);
    const [P, Q] = [prior.conditionals[a], prior.conditionals[b]];
    for (const [m, name] of [
      [P, a],
      [Q, b],
    ] as const)
      if (!law.masses(m).length) throw new InputError(`secret '${name}' has no values`, 'scenario');
    const [drawP, drawQ] = [release(P), release(Q)];
    let best: EmpiricalAuditResult | null = null;
    for (const t of statistics) {
      const r = empiricalAudit(
        () => t.of(drawP()),
        () => t.of(drawQ()),
        { alpha: s.alpha, epsilon: s.epsilon },
        { samples: s.samples, level: level / statistics.length, delta: s.delta },
      );
      const named = { ...r, level, witness: r.witness && { ...r.witness, set: r.witness.set.replace(/^y/, t.label) } };
      if (!best || named.lowerBound > best.lowerBound) best = named;
    }
    return {
      prior: prior.name,
      pair: [a, b] as [string, string],
      result: { ...best!, verdict: best!.lowerBound > best!.claimed ? 'violation' : 'no violation detected' },
    };
  });
}
