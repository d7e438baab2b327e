import { createHash } from 'node:crypto';
import type { Scenario } from '../distribution/scenario.js';
import { InputError } from '../errors.js';
import { byLaw, type AnyScenario } from '../distribution/lawKind.js';
import { windowScenario, type SeriesOrigin, type WindowScenario } from '../markov/windowScenario.js';
import { validateSpec } from '../markov/chain.js';
import { calendarDays, calendarUnit, calendarWindows, windowLabels } from '../markov/calendar.js';

/** A law's atoms and exact masses, whatever its dimension: what the accountant reads of it. */
function lawText(law: unknown): unknown {
  const l = law as { values?: Float64Array; points?: Float64Array; d?: number; masses: Float64Array; numerators?: readonly bigint[]; denominator?: bigint };
  const atoms = Array.from(l.values ?? l.points ?? [], (x) => (Object.is(x, -0) ? 0 : x));
  return {
    d: l.d ?? 1,
    atoms,
    // Exact rational masses where the law has them (tables, specs); the doubles otherwise (a chain's laws).
    masses: l.numerators ? [...l.numerators.map(String), String(l.denominator)] : Array.from(l.masses),
  };
}

/**
 * The identity of a scenario's secret-conditional laws: SHA-256 of their canonical text (every
 * prior by name, every secret by name, atoms and exact masses, the pairs, their order and the
 * laws' floating-point error). Two sources yield the same digest exactly when the accountant
 * sees the same laws, so a ledger opened for one is refused for another. The digest keeps no
 * value that could be read back beyond what the laws are.
 * @example lawsDigest(builtinScenario('heart')) // 'sha256:…'
 */
export function lawsDigest(scenario: AnyScenario): string {
  // A source whose laws grow with what is released is bound by its own identity (docs/math.md §20).
  if ((scenario as { identity?: string }).identity) return (scenario as { identity: string }).identity;
  const refuse = { mixture: { reason: 'is not taken with Gaussian priors: the joint accountant covers finite laws', field: 'ledger' } };
  return byLaw(scenario, { finite: digestOf, points: digestOf, windows: windowsDigest }, 'a ledger', 'ledger', refuse);
}

/**
 * A spec statistic's laws bound to the statistic itself (its kind, column or predicate, unit and
 * n): one unit's contribution laws can coincide for two different statistics (two columns with the
 * same per-unit laws), which a ledger of typed values must not take for repeats of one value.
 * @example statisticBound(builtinScenario('heart'), { kind: 'sum', column: 'x', units: 3 }).identity.startsWith('sha256:') // true
 */
export function statisticBound<S extends AnyScenario>(scenario: S, statistic: object): S & { identity: string } {
  const text = JSON.stringify({ laws: lawsDigest(scenario), statistic });
  return { ...scenario, identity: `sha256:${createHash('sha256').update(text).digest('hex')}` };
}

/** A series' window counts: the chains (kernels and initial laws), the states, the query and the windows. */
function windowsDigest(s: WindowScenario): string {
  const m = s.model;
  const chains = m.chains.map((c) => ({ transition: c.transition, initial: c.initial === 'any' ? 'any' : c.initial.law }));
  const text = JSON.stringify({ windows: s.lengths, states: m.states, query: m.query, length: m.length, chains });
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}

function digestOf(scenario: Scenario<unknown>): string {
  if (scenario.lawsNotApplicable)
    throw new InputError(`the joint accountant needs the secret-conditional laws, and this source has none: ${scenario.lawsNotApplicable}`, 'ledger');
  const priors = [...scenario.priors]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((p) => ({
      name: p.name,
      conditionals: Object.keys(p.conditionals)
        .sort()
        .map((k) => [k, lawText(p.conditionals[k])]),
      absent: p.absent ? [...p.absent].sort() : [],
      probabilities: p.probabilities
        ? Object.keys(p.probabilities)
            .sort()
            .map((k) => [k, p.probabilities![k]])
        : null,
    }));
  const text = JSON.stringify({ priors, pairs: scenario.pairs ?? null, ordered: scenario.ordered ?? false, massError: scenario.massError ?? 0 });
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}

/**
 * What a series' ledger records of a table's series when it is opened (JSON text): the chain spec it
 * was estimated as, the windows, their labels and where the series lies; null for any other source.
 */
export function seriesRecord(scenario: AnyScenario): string | null {
  const s = scenario as Partial<WindowScenario>;
  if (s.lawKind !== 'windows' || !s.origin) return null;
  return JSON.stringify({ name: s.name, lengths: s.lengths, labels: s.labels, origin: s.origin });
}

/**
 * The series a ledger recorded (`seriesRecord`), rebuilt: its chain validated from the spec it was
 * estimated as, which must give the ledger's own identity `laws` again (else the record is refused
 * as damaged: a chain that is not the one accounted is never used).
 */
export function recordedSeries(record: string, laws: string): WindowScenario {
  const damaged = (why: string) => new InputError(`its series record ${why}; it was left as it is`, 'ledger');
  let r: { name: string; lengths: number[]; labels: string[]; origin: SeriesOrigin };
  try {
    r = JSON.parse(record);
  } catch {
    throw damaged('is not JSON');
  }
  let s: WindowScenario;
  try {
    s = windowScenario(validateSpec(r.origin.markov, 'markov'), r.lengths, r.name, r.labels, r.origin);
  } catch (e) {
    throw damaged(`does not give a chain (${(e as Error).message})`);
  }
  if (lawsDigest(s) !== laws) throw damaged('does not give the chain the ledger was opened for (its identity differs)');
  // Calendar windows follow from the start: a record whose windows or labels do not is not the one written.
  const unit = calendarUnit(r.origin.window);
  if (unit) {
    const days = r.origin.start === null ? null : calendarDays(r.origin.start, s.model.length, unit, 'ledger');
    const lengths = days && calendarWindows(days, s.model.length, unit, 'ledger');
    if (!days || JSON.stringify(lengths) !== JSON.stringify(s.lengths) || JSON.stringify(windowLabels(unit, lengths!, days)) !== JSON.stringify(s.labels))
      throw damaged(`does not give its ${unit} windows from its start (${r.origin.start ?? 'none'})`);
  }
  return s;
}
