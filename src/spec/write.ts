import type { Scenario } from '../distribution/scenario.js';
import type { Discrete } from '../distribution/discrete.js';
import type { PointLaw, PointScenario } from '../distribution/points.js';

/** A conditional's values as a spec lists them: numbers, or a vector law's atoms as coordinate arrays. */
const valuesOf = (d: Discrete | PointLaw): number[] | number[][] =>
  'points' in d ? Array.from({ length: d.masses.length }, (_, k) => Array.from(d.points.subarray(k * d.d, (k + 1) * d.d))) : [...d.values];

/**
 * A finite (or vector) scenario as a JSON spec that loads back to the same laws: exact integer
 * counts where the common denominator is below 2⁵³, else the masses as weights.
 * @example scenarioSpec(builtinScenario('heart')).priors[0].conditionals
 */
export function scenarioSpec(s: Scenario | PointScenario) {
  return {
    name: s.name,
    priors: s.priors.map((p) => ({
      name: p.name,
      conditionals: Object.fromEntries(
        Object.entries(p.conditionals as Record<string, Discrete | PointLaw>).map(([k, d]) => [
          k,
          {
            ...(d.denominator <= BigInt(Number.MAX_SAFE_INTEGER)
              ? { values: valuesOf(d), counts: d.numerators.map(Number) }
              : { values: valuesOf(d), weights: [...d.masses] }),
            ...(p.probabilities ? { probability: p.probabilities[k] } : {}),
          },
        ]),
      ),
      ...(p.absent?.length ? { absent: [...p.absent] } : {}),
    })),
    ...(s.pairs ? { pairs: s.pairs } : {}),
  };
}
