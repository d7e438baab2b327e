import { checkSetting } from '../settings.js';
import { coordinateWeights, dimensionOf } from '../distribution/points.js';
import { atomSampler, type EmpiricalRow } from './rows.js';
import { empiricalAudit, type EmpiricalAuditResult } from '../audit/empirical.js';
import { priorPairs } from '../distribution/scenario.js';
import { InputError } from '../errors.js';
import { cryptoSource } from '../sampling/random.js';
import { coordinateNoise } from '../release/noise.js';
import type { Mechanism } from '../calibrate/rules.js';
import { mechanismDef } from '../mechanisms/registry.js';
import { isNotApplicable } from '../mechanisms/mechanism.js';
import { atomsOf, coord, type PointLaw, type PointScenario } from '../distribution/points.js';

/**
 * The sample-based audit of a vector release (docs/math.md §7, §12): the real release path (an
 * atom drawn from each secret's law, then independent noise per coordinate at wᵢ·scale, rounded up
 * as `release` does), tested through d + 1 one-number statistics — each coordinate, and the sum
 * Σ yᵢ/wᵢ. A test on a statistic of Y is a test on Y (data processing), so each statistic gets the
 * one-dimensional audit at level/(d + 1) and a union bound keeps the whole audit's false-alarm
 * rate at `level`. The row reports the statistic with the largest lower bound.
 */
export function auditEmpiricalPoints(
  scenario: PointScenario,
  s: {
    mechanism: Mechanism;
    scale: number;
    alpha: number;
    epsilon: number;
    delta: number;
    samples?: number;
    level?: number;
    coordinateScales?: readonly number[];
  },
): EmpiricalRow[] {
  const product = mechanismDef(s.mechanism).product;
  if (isNotApplicable(product)) throw new InputError(product.notApplicable, 'mechanism');
  const d = dimensionOf(scenario);
  const w = coordinateWeights(scenario, s.coordinateScales);
  if (!(s.scale > 0) || !Number.isFinite(s.scale)) throw new InputError(`must be a finite number > 0 for an empirical audit, got ${s.scale}`, 'scale');
  const level = s.level ?? 1e-3;
  checkSetting('level', level);
  const noise = coordinateNoise({ mechanism: s.mechanism }, s.scale, w);
  const release = (m: PointLaw) => {
    const atom = atomSampler(m.masses);
    return () => {
      const k = atom();
      return noise.draw(
        Array.from({ length: d }, (_, c) => coord(m, k, c)),
        cryptoSource,
      );
    };
  };
  const statistics: { label: string; of: (y: number[]) => number }[] = [
    ...Array.from({ length: d }, (_, c) => ({ label: `y${c + 1}`, of: (y: number[]) => y[c] })),
    { label: `Σ yᵢ/wᵢ`, of: (y: number[]) => y.reduce((a, x, c) => a + x / w[c], 0) },
  ];
  return priorPairs(scenario).units.map(({ prior, pair: [a, b] }) => {
    const P = prior.conditionals[a],
      Q = prior.conditionals[b];
    if (!atomsOf(P) || !atomsOf(Q)) throw new InputError(`secret '${!atomsOf(P) ? a : b}' has no values`, 'scenario');
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
