import { InputError } from '../errors.js';
import { checkScenarioShape } from '../shapes.js';
import type { GaussianScenario } from './mixture.js';
import { dimensionOf, type PointScenario } from './points.js';
import type { Scenario } from './scenario.js';
import type { WindowScenario } from '../markov/windowScenario.js';

/**
 * The kinds of secret-conditional law a law source yields: finite laws on ℝ (`finite`, d = 1),
 * finite laws on ℝ^d (`points`, d > 1, or d = 1 given as vectors), Gaussian mixtures (`mixture`)
 * and the window counts of a chain (`windows`, read from the chain itself).
 */
export type LawKind = 'finite' | 'points' | 'mixture' | 'windows';

/** A prior class of any kind of law. */
export type AnyScenario = Scenario | PointScenario | GaussianScenario | WindowScenario;

/**
 * The kind of a scenario's laws (read off its first conditional; every conditional has the same kind).
 * @example lawKindOf(builtinScenario('heart')) // 'finite'
 */
export function lawKindOf(s: Scenario<unknown> | WindowScenario): LawKind {
  checkScenarioShape(s);
  if (s.lawKind) return s.lawKind;
  const first = s.priors[0] && Object.values(s.priors[0].conditionals)[0];
  if (Array.isArray(first)) return 'mixture';
  if (typeof first === 'object' && first !== null && 'points' in first) return 'points';
  return 'finite';
}

/** One implementation of an operation per kind of law; a kind left out does not support it. */
export interface ByKind<R> {
  finite: (s: Scenario) => R;
  points?: (s: PointScenario) => R;
  mixture?: (s: GaussianScenario) => R;
  windows?: (s: WindowScenario) => R;
}

const KIND_TEXT: Record<LawKind, string> = {
  finite: 'finite laws',
  points: 'vector-valued queries',
  mixture: 'Gaussian priors',
  windows: 'window counts of a chain',
};

/** Why a kind does not support an operation, and the field to name (default the scenario). */
export type Refusals = Partial<Record<LawKind, { reason: string; field?: string }>>;

/**
 * Runs the operation's implementation for the scenario's kind of law: the one place that
 * dispatches on it. A kind without one is refused, naming the operation (or the reason given)
 * and the field.
 * @example byLaw(scenario, { finite: (s) => calibrate(s, settings) }, 'calibrate')
 */
export function byLaw<R>(s: AnyScenario, impl: ByKind<R>, operation: string, field = 'scenario', refusals: Refusals = {}): R {
  const kind = lawKindOf(s);
  const run = impl[kind] as ((s: AnyScenario) => R) | undefined;
  if (!run) {
    const r = refusals[kind];
    throw new InputError(r?.reason ?? `${operation} is not available for ${KIND_TEXT[kind]}`, r?.field ?? field);
  }
  return run(s);
}

/**
 * The dimension d of a scenario's laws: 1 on ℝ (finite laws, Gaussian mixtures), the vectors'
 * length on ℝ^d (the first conditional's; calibration checks every conditional has it).
 * @example lawDimension(builtinScenario('heart')) // 1
 */
export function lawDimension(s: AnyScenario): number {
  return byLaw(s, { finite: () => 1, mixture: () => 1, points: dimensionOf }, 'the dimension');
}
