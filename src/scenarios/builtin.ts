import { userRecord } from '../records.js';
import type { Scenario } from '../distribution/scenario.js';
import { fromCounts } from '../distribution/discrete.js';
import { unknownName } from '../errors.js';
import { EMBEDDED_COUNTS } from '../uci/embedded.js';
import { UCI_SCENARIOS, type UciScenarioDef } from '../uci/scenarios.js';

/**
 * The built-in scenarios' names (`adult`, `heart`, `student-mat`, …), one per scenario of the paper.
 * @example BUILTIN_IDS.includes('heart') // true
 */
export const BUILTIN_IDS = UCI_SCENARIOS.map((d) => d.id);

/**
 * A built-in scenario of the paper (one prior: the empirical conditionals), from the counts
 * embedded in the package, so it works with no files.
 * @example builtinScenario('adult').priors[0].conditionals.Husband.values // 1 … 16
 */
export function builtinScenario(id: string): Scenario {
  const def = UCI_SCENARIOS.find((d) => d.id === id);
  if (!def) throw unknownName('scenario', id, BUILTIN_IDS, 'scenario', 'built-in: ');
  return histogramScenario(def, EMBEDDED_COUNTS[def.id]);
}

/** A scenario from per-secret histograms, in the secret order of the definition. */
export function histogramScenario(def: UciScenarioDef, hist: Record<string, { values: number[]; counts: number[] }>): Scenario {
  const conditionals = userRecord(def.secrets.map((s) => [s, fromCounts(hist[s].values, hist[s].counts, `${def.id}.conditionals.${s}`)]));
  const probabilities = userRecord(def.secrets.map((s) => [s, hist[s].counts.reduce((a, b) => a + b, 0)]));
  return { name: def.title, priors: [{ name: 'empirical', conditionals, probabilities }], pairs: [[def.secrets[0], def.secrets[1]]], ordered: false };
}
