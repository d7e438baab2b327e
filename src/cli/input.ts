import { layoutNames } from './format.js';
import { existsSync, statSync } from 'node:fs';
import { userRecord } from '../records.js';
import type { Command } from 'commander';
import { availableParallelism } from 'node:os';
import { basename } from 'node:path';
import { checkOutput, writeTextAtomically } from '../io/atomicWrite.js';
import { sourceKind, sourceLabel, type TableSource } from '../sources/table.js';
import { uciQuirks } from '../uci/formats.js';
import { defaultMechanism, MECHANISMS, METHODS, type CalibrationSettings, type Method } from '../calibrate/calibrate.js';
import type { Scenario } from '../distribution/scenario.js';
import { FAMILY_OF, mechanismDef, REGISTRY } from '../mechanisms/registry.js';
import { checkSetting, SETTINGS, settingDefault, TABLE_SETTINGS, wholeNumber } from '../settings.js';
import { statisticBound } from '../ledger/identity.js';
import { InputError, unknownName } from '../errors.js';
import { SOURCE_METHOD_NAMES } from '../distribution/scenario.js';
import { decimal } from './numbers.js';
import { decimalValue } from '../numerics/float.js';
import { asFlagError, collect, gridSetting, numberSetting, parseCost, refuseIn, checkColumnNames, settingOption, fromSetting } from './flags.js';
import { defaultThreads } from '../calibrate/pool.js';
import { BUILTIN_IDS, builtinScenario } from '../scenarios/builtin.js';
import { uciScenario } from '../uci/files.js';
import { availableDir, SCENARIO_DATASET } from '../uci/datasets.js';
import type { SpecDefaults } from '../spec/load.js';
import type { PointScenario } from '../distribution/points.js';
import { scenarioSpec } from '../spec/write.js';
import type { BoxContamination } from '../calibrate/points.js';
import type { AnyScenario } from '../distribution/lawKind.js';
import { parseNames } from './grid.js';
import { divisorOf, parseStatistic, perUnit, statisticLabel, statisticText, type Statistic } from '../sources/statistic.js';
import { checkSecretGiven } from '../sources/histograms.js';
import { parsePriorClass as parseClass, unitBootstrap } from '../sources/priors.js';
import type { UnitBootstrap } from '../sources/histogramTypes.js';
import type { PrivateGroups, TableStatistic } from '../api/statistic.js';
import type { StatisticsSource } from '../api/sourceLedger.js';
import type { MarkovModel } from '../markov/chain.js';
import type { SequenceQuery } from '../sources/chainCounts.js';
import { calendarDays, calendarUnit, checkDays, startsAt } from '../markov/calendar.js';
import type { WindowScenario } from '../markov/windowScenario.js';

// Scenario inputs shared by calibrate, audit and release: --spec, --scenario or a table.
export interface SourceOptions {
  data?: string;
  query?: string;
  secretColumn?: string;
  values?: string;
  secret?: string[];
  pairs?: string;
  given?: string;
  prior?: string;
  seed?: string;
  header?: boolean;
  separator?: string;
  columns?: string;
  table?: string;
  sql?: string;
  specOut?: string;
  /** A sequence table: the state column, its order and independent sequences (a Markov chain). */
  sequence?: string;
  orderBy?: string;
  groupBy?: string;
  groupPrivate?: boolean;
  /** Release per group even where some groups are left out (rows of one secret value). */
  leaveOutGroups?: boolean;
  length?: string;
  /** A statistic's unit column (docs/math.md §18). */
  unit?: string;
}

export interface CalibrateOptions extends SourceOptions {
  spec?: string;
  /** Error bars: the share of the noise each ± half-width covers. */
  confidence?: string;
  /** The projection mechanism's k×d matrix: a file, or random:K (a seeded Gaussian sketch). */
  projection?: string;
  /** With a mean query: the expected squared error the rows must reach. */
  targetMse?: string;
  scenario?: string;
  guarantee?: string;
  mechanism?: string;
  method?: string;
  alpha?: string;
  epsilon?: string;
  cost?: string;
  /** Releases of the same value to account together. */
  releases?: string;
  /** calibrate: an (ε, δ) target. */
  delta?: string;
  /** Vector queries: each coordinate's noise weight. */
  coordinateScales?: string;
  /** Worker threads (default: the cores available). */
  threads?: string;
  /** Fit Gaussian (`gaussian`) or mixture (`mixture:K`) priors to the table's conditionals. */
  fit?: string;
  /** ε-contamination λ and its domain LO,HI. */
  contamination?: string;
  domain?: string;
  json?: boolean;
  /** release: the privatized table written (another output, never the same file as --spec-out). */
  out?: string;
}

export interface SourceInfo {
  rows: number;
  dropped: number;
  priors: number;
  skippedGiven: string[];
  /** Public values where some secrets have no rows: those secrets' pairs are not constrained there. */
  absentGiven: { value: string; absent: string[] }[];
  /** How given secret names matched the table's texts. */
  notes: string[];
}

/** A statistic's laws (docs/math.md §18): what its scales are divided by, in words and as n. */
export interface LoadedStatistic {
  label: string;
  units: number;
  divisor: number;
}

type Loaded<S> = { scenario: S; d: SpecDefaults; source?: SourceInfo; fit?: string[]; statistic?: LoadedStatistic };

/** The run's settings that travel with a spec written from a table: single-valued flags (or the defaults). */
function runSettings(o: CalibrateOptions) {
  const one = (name: 'alpha' | 'epsilon') => {
    const v = gridSetting(name, o[name]);
    return v.length === 1 ? v[0] : undefined;
  };
  const alpha = one('alpha');
  return {
    mechanism: o.mechanism ?? FAMILY_OF.default,
    ...(o.method && !o.method.includes(',') ? { method: o.method } : {}),
    ...(alpha !== undefined ? { alpha: alpha === Infinity ? 'inf' : alpha } : {}),
    ...(one('epsilon') !== undefined ? { epsilon: one('epsilon') } : {}),
    ...(o.cost ? { cost: o.cost } : {}),
  };
}

/**
 * A sequence table's chain class, as `--sequence` reads it: the query, the transition counts (one
 * aggregate in the engine), the chain length and the model; errors name the flags.
 */
async function sequenceModel(o: SourceOptions) {
  const [{ transitionCounts }, { sequenceChain, parseSequenceQuery }, { parsePriorClass }] = await Promise.all([
    import('../sources/sequence.js'),
    import('../sources/chainCounts.js'),
    import('../sources/priors.js'),
  ]);
  const query = (() => {
    try {
      return parseSequenceQuery(o.query!);
    } catch (e) {
      throw asFlagError(e);
    }
  })();
  refuseIdleSeed(o, '--prior bootstrap:N | dirichlet:N');
  const seed = numberSetting('seed', o.seed, 0);
  const prior = o.prior ? parsePriorClass(o.prior, seed) : undefined;
  const source = tableSourceOf(o);
  const q: SequenceQuery = { sequence: o.sequence!, orderBy: o.orderBy!, ...(o.groupBy ? { groupBy: o.groupBy } : {}) };
  const t = await transitionCounts(source, q).catch((e) => {
    throw asFlagError(e);
  });
  const length = numberSetting('length', o.length, t.longest);
  const { markov, model } = (() => {
    try {
      return sequenceChain(t, { query, length, ...(prior ? { prior } : {}) });
    } catch (e) {
      throw chainFlagError(e);
    }
  })();
  return { query, source, q, t, length, markov, model };
}

/** A chain's error as the CLI names it: the chain class's fields are flags (--prior, --sequence); the spec it makes keeps its path, but its query is --query. */
function chainFlagError(e: unknown): unknown {
  if (!(e instanceof InputError)) return e;
  return e.path?.startsWith('markov.query') ? new InputError(e.reason, '--query') : e.path?.startsWith('markov') ? e : asFlagError(e);
}

/**
 * `--data T --sequence COL --order-by COL [--group-by COL] --query count:S|sum:…|histogram`: the
 * chain estimated from the table's transition counts (docs/math.md §13) as a law source.
 */
async function loadSequence(o: CalibrateOptions): Promise<Loaded<AnyScenario>> {
  if (!o.orderBy) throw new InputError('is required with --sequence (the column giving the order of the steps)', '--order-by');
  if (!o.query) throw new InputError('is required with --sequence: count:STATE, sum:STATE=V,… or histogram', '--query');
  refuseIn('sequence', o);
  if (o.specOut) checkOutput(o.specOut, '--spec-out', [{ path: o.data!, flag: '--data' }], [{ path: o.out, flag: '--out' }]);
  const [{ t, length, markov, model }, { markovScenario }] = await Promise.all([sequenceModel(o), import('../markov/source.js')]);
  const chains = markov.chains;
  const name = `${basename(o.data!)}: ${o.query} over ${o.sequence}${o.groupBy ? ` by ${o.groupBy}` : ''} (T = ${length})`;
  // The laws' table grows with the chain length (and the query's grid): a refusal names --length.
  const { scenario } = markovScenario(model, name, '--length');
  if (o.specOut) {
    const spec = { name, ...runSettings(o), markov: { ...markov, chains: markov.chains.map((c, i) => (i === 0 ? { ...c, transitionCounts: t.counts } : c)) } };
    await writeTextAtomically(o.specOut, '--spec-out', `${JSON.stringify(spec, null, 2)}\n`);
  }
  return {
    scenario,
    d: {},
    source: {
      rows: t.rows,
      dropped: t.dropped,
      priors: chains.length,
      skippedGiven: [],
      absentGiven: [],
      // A state of probability 0 is said by the chain's calibration itself (its notes).
      notes: [`${t.sequences} sequence(s), the longest ${t.longest} steps; states ${t.states.join(', ')}; chain length ${length}`],
    },
  };
}

/** `--group-private` belongs to a statistic of a table with `--group-by`, `--leave-out-groups` to its public groups: refused anywhere else. */
export function checkGroupPrivate(o: CalibrateOptions & { leaveOutGroups?: boolean }): void {
  const statistic = o.data !== undefined && o.sequence === undefined && o.query !== undefined && parseStatisticFlag(o.query) !== null;
  if (o.leaveOutGroups && (!statistic || o.groupBy === undefined || o.groupPrivate))
    throw new InputError('goes with a release of a statistic of a table per public --group-by column', '--leave-out-groups');
  if (!o.groupPrivate) return;
  if (!statistic || o.groupBy === undefined)
    throw new InputError('goes with a statistic of a table (--query sum:|mean:|count|share:) and its --group-by column', '--group-private');
  refuseIn('groupPrivate', o);
}

/** `--query` as a statistic of the table (`sum:COL`, `mean:COL`, `count[:P]`, `share[:P]`), or null for a column. */
export function parseStatisticFlag(text: string): Statistic | null {
  try {
    return parseStatistic(text);
  } catch (e) {
    throw asFlagError(e);
  }
}

/** `--pairs A:B,C:D`: the secret pairs, each of two different secrets (of `secrets`, when known). */
function parsePairs(text: string, secrets?: readonly string[]): [string, string][] {
  return text.split(',').map((p) => {
    const [a, b, extra] = p.split(':').map((x) => x.trim());
    if (!a || !b || extra !== undefined) throw new InputError(`must be A:B[,C:D…], got '${p}'`, '--pairs');
    if (a === b) throw new InputError(`pairs secret '${a}' with itself in '${p}'`, '--pairs');
    if (secrets) for (const x of [a, b]) if (!secrets.includes(x)) throw unknownName('secret', x, secrets, '--pairs');
    return [a, b] as [string, string];
  });
}

/**
 * A statistic's contribution laws for a command that takes one scale for the whole table (audit):
 * one group, and the divisor its scales are converted by. Other commands refuse statistics.
 */
async function loadStatisticLaws(o: CalibrateOptions, s: Statistic, taken: boolean): Promise<Loaded<Scenario>> {
  if (!taken)
    throw new InputError(
      "a statistic (sum:, mean:, count, share:) is taken by calibrate, release, audit and a source ledger's account --next; a source ledger is opened on the table and secret alone (ledger init --data … --secret-column …, no --query) and takes each statistic as it is released (release … --ledger L)",
      '--query',
    );
  refuseIn('statisticOneScale', o);
  const t = await loadStatistic(o, s);
  const g = t.groups[0];
  return { scenario: g.scenario, d: {}, statistic: { label: t.label, units: g.units, divisor: g.divisor } };
}

/** The table's statistic per group, after refusing what a statistic does not take; `--spec-out` writes its laws and n. */
export async function loadStatistic(o: CalibrateOptions, s: Statistic): Promise<TableStatistic> {
  const args = statisticArgs(o, s);
  if (o.specOut) checkOutput(o.specOut, '--spec-out', [{ path: o.data!, flag: '--data' }], [{ path: o.out, flag: '--out' }]);
  const { statisticFromTable } = await import('../api/statistic.js');
  let t: TableStatistic;
  try {
    t = await statisticFromTable(tableSourceOf(o), {
      ...args,
      ...((o.groupBy ?? o.given) !== undefined ? { groupBy: (o.groupBy ?? o.given)! } : {}),
      ...(o.prior !== undefined ? { prior: o.prior } : {}),
    });
  } catch (e) {
    throw fromSetting(await inLedger(o, e), o, false);
  }
  if (o.specOut) await writeStatisticSpec(o, t);
  return t;
}

/** `--spec-out` of a statistic: one unit's contribution laws and n, which `calibrate --spec` reads back to the same scales. */
async function writeStatisticSpec(o: CalibrateOptions, t: TableStatistic): Promise<void> {
  if (t.groups.length !== 1)
    throw new InputError('writes one statistic of the whole table (a spec per group is not written): leave out --group-by', '--spec-out');
  const g = t.groups[0];
  const statistic = { ...t.statistic, units: g.units };
  const spec = { statistic, ...scenarioSpec(g.scenario), ...runSettings(o) };
  await writeTextAtomically(o.specOut!, '--spec-out', `${JSON.stringify(spec, null, 2)}\n`);
}

/**
 * A spec's `"statistic"` as the one group of a statistic (docs/math.md §18): its laws are one unit's
 * contribution, n is the spec's; null for a spec without one.
 */
export async function specStatistic(o: CalibrateOptions): Promise<{ t: TableStatistic; d: SpecDefaults } | null> {
  const { loadAnySpecFile, specNames } = await import('../spec/loadFile.js');
  // Only a spec that names a statistic is validated here; any other is read by its own path, once.
  if (!specNames(o.spec!, ['statistic'])) return null;
  const spec = loadAnySpecFile(o.spec!);
  const defaults = spec.defaults;
  // A statistic's laws are finite (the spec loader checks it).
  if (!defaults.statistic || spec.kind !== 'finite') return null;
  const scenario = spec.scenario;
  refuseIn('spec', o, tableOnly(o));
  const { units, ...statistic } = defaults.statistic;
  layoutNames(scenario);
  const group = { group: '', scenario, total: Number.NaN, units, divisor: divisorOf(statistic, units) };
  const t: TableStatistic = {
    statistic,
    label: statisticLabel(statistic),
    groups: [group],
    rows: 0,
    droppedFromLaws: 0,
    droppedFromValue: 0,
    zeroed: 0,
    skipped: [],
    uninformative: false,
    notes: [],
    spec: o.spec!,
  };
  return { t, d: defaults };
}

/** The table's statistic per private group (`--group-private`): one vector law for the groups. */
export async function loadPrivateGroups(o: CalibrateOptions, s: Statistic): Promise<PrivateGroups> {
  refuseIn('groupPrivateYet', o);
  // The vector of private groups is a joint law: its class is a source ledger's (bootstrap draws shared by every coordinate).
  sourceClass(o, '--group-private');
  const args = statisticArgs(o, s);
  const { privateGroupsStatistic } = await import('../api/statistic.js');
  try {
    return await privateGroupsStatistic(tableSourceOf(o), {
      ...args,
      ...(o.prior !== undefined ? { prior: o.prior } : {}),
      groupBy: o.groupBy!,
      name: `${args.name} per private group of ${o.groupBy}`,
    });
  } catch (e) {
    throw fromSetting(await inLedger(o, e), o, false);
  }
}

/** A statistic released into a source ledger: a class too large is the ledger's, whose class is fixed. */
async function inLedger(o: CalibrateOptions, e: unknown): Promise<unknown> {
  if ((o as { ledger?: string }).ledger === undefined) return e;
  const { asLedgerClass } = await import('../api/jointStatistics.js');
  return asLedgerClass(e);
}

/**
 * The noise asked for (calibrate, release: --mechanism) or planned (account: --next) on a mean or
 * share: a family on the integers adds an integer to a count or a sum, so it is refused, naming the
 * flag and the sum or count to release instead.
 */
export function refuseLatticeMean(o: { mechanism?: string; next?: string }, s: Statistic): void {
  for (const [flag, text] of [
    ['--mechanism', o.mechanism],
    ['--next', o.next],
  ] as const) {
    const lattice = (text ?? '').split(',').find((m) => Object.hasOwn(REGISTRY, m.trim()) && mechanismDef(m.trim()).composes === 'lattice');
    if (lattice && perUnit(s))
      throw new InputError(
        `${lattice.trim()} noise adds an integer to a count or a sum; a ${s.kind} divides by n: release ${statisticText({ ...s, kind: s.kind === 'mean' ? 'sum' : 'count' })} (dividing by n afterwards is post-processing)`,
        flag,
      );
  }
}

/** What every statistic's law source reads from the options, after refusing what a statistic does not take. */
function statisticArgs(o: CalibrateOptions, s: Statistic) {
  if (o.groupBy !== undefined) refuseIn('statisticGroups', o);
  refuseIn('statistic', o);
  refuseIdleSeed(o, '--prior bootstrap:N | dirichlet:N');
  refuseLatticeMean(o, s);
  const seed = o.seed === undefined ? undefined : numberSetting('seed', o.seed);
  return {
    statistic: { ...s, ...(o.unit !== undefined ? { unit: o.unit } : {}) },
    ...(o.secretColumn !== undefined ? { secretColumn: o.secretColumn } : {}),
    ...(o.values !== undefined ? { values: o.values.split(',').map((v) => v.trim()) } : {}),
    ...(o.secret?.length ? { predicates: secretPredicates(o.secret) } : {}),
    ...(o.pairs !== undefined ? { pairs: parsePairs(o.pairs) } : {}),
    ...(seed !== undefined ? { seed } : {}),
    name: `${o.data!.split(/[\\/]/).pop()}: ${o.query} by ${o.secretColumn ?? 'predicates'}`,
  };
}

/**
 * The data source a source ledger accounts (`ledger init --data T --secret-column S [--unit U]`,
 * and every release of a statistic into it): the table, the secret, the unit.
 */
export function statisticsSourceOf(o: CalibrateOptions): StatisticsSource {
  refuseIn('sourceLedger', o);
  const prior = sourceClass(o);
  if (o.data === undefined) throw new InputError('is required: the table whose statistics the ledger accounts', '--data');
  // Without its secret the source is another one: say which flag is missing, not that the ledger differs.
  try {
    checkSecretGiven({ ...(o.secretColumn !== undefined ? { secretColumn: o.secretColumn } : {}), ...(o.secret?.length ? { predicates: {} } : {}) });
  } catch (e) {
    throw asFlagError(e);
  }
  return {
    source: tableSourceOf(o),
    ...(o.secretColumn !== undefined ? { secretColumn: o.secretColumn } : {}),
    ...(o.values !== undefined ? { values: o.values.split(',').map((v) => v.trim()) } : {}),
    ...(o.secret?.length ? { predicates: secretPredicates(o.secret) } : {}),
    ...(o.pairs !== undefined ? { pairs: parsePairs(o.pairs) } : {}),
    ...(o.unit !== undefined ? { unit: o.unit } : {}),
    ...(prior ? { prior } : {}),
  };
}

/**
 * `--seed` seeds a drawn prior class (or a random projection): refused where nothing is drawn, so a
 * seed is never taken and silently ignored.
 */
function refuseIdleSeed(o: Pick<CalibrateOptions, 'seed' | 'prior'>, drawnBy: string): void {
  if (o.seed === undefined || (o.prior !== undefined && parseClass(o.prior).kind !== 'empirical')) return;
  const why = o.prior === undefined ? 'no --prior is given' : `--prior ${o.prior} draws nothing`;
  throw new InputError(`seeds the draws of ${drawnBy}; ${why} (releases always draw from the CSPRNG)`, '--seed');
}

/**
 * A source ledger's prior class: the empirical prior, or a bootstrap class whose draws weigh each
 * unit the same for every statistic (a Dirichlet class draws per histogram, which two statistics do not share).
 */
function sourceClass(o: CalibrateOptions, who = 'a source ledger'): UnitBootstrap | undefined {
  refuseIdleSeed(o, '--prior bootstrap:N');
  if (o.prior === undefined) return undefined;
  const seed = o.seed === undefined ? 0 : numberSetting('seed', o.seed);
  const shared = who === 'a source ledger' ? ['statistic', 'statistics'] : ['group', 'groups'];
  if (parseClass(o.prior, seed).kind === 'dirichlet')
    throw new InputError(
      `${who} takes empirical or bootstrap:N: a bootstrap draw weighs each unit the same for every ${shared[0]}, so the class is one set of priors for all of them; a Dirichlet draw is made per ${shared[0]}'s histogram, which two ${shared[1]} do not share`,
      '--prior',
    );
  return unitBootstrap(o.prior, seed);
}

/** A series' window counts as a law source (its ledger's identity; with `ledger`, the series it recorded). */
async function windowsOf(o: WindowOptions, ledger?: string): Promise<WindowScenario> {
  return (await tableWindows(o, ledger)).scenario;
}

/** The series a ledger recorded when it was opened (null: another kind of ledger, or an older one), and its releases so far. */
async function recordedSeriesOf(location: string): Promise<{ series: WindowScenario | null; released: number; damaged: boolean }> {
  const [{ ledgerStore }, { ledgerSeries }] = await Promise.all([import('../ledger/store.js'), import('../ledger/ledger.js')]);
  try {
    return await ledgerSeries(ledgerStore(location));
  } catch (e) {
    throw e instanceof InputError && e.path === 'ledger' ? new InputError(e.reason, '--ledger') : e;
  }
}

/**
 * A series a ledger recorded: its chain and windows as they were when it was opened, the table read
 * only for the windows' counts (from the recorded start), and its days so far checked against the
 * recorded calendar. A flag that would shape another series (its query, windows, start, length, chain
 * class, columns) must be the recorded one.
 */
async function pinnedWindows(
  o: WindowOptions,
  s: WindowScenario,
  released: number,
  damaged: boolean,
): Promise<{ scenario: WindowScenario; source: TableSource; q: SequenceQuery; start: string | null; recorded: true }> {
  const r = s.origin!;
  const given: [string, string | undefined, string | null][] = [
    ['--sequence', o.sequence, r.sequence],
    ['--order-by', o.orderBy, r.orderBy],
    ['--query', o.query?.trim(), r.query],
    ['--window', o.window?.trim(), r.window],
    ['--start', o.start, r.start],
    ['--length', o.length, String(s.model.length)],
    ['--prior', o.prior, r.prior],
    ['--seed', o.seed, r.seed],
  ];
  // Numbers as numbers (--length 365.0), and a seed given as its default where none was recorded.
  const same = (flag: string, v: string, recorded: string | null) =>
    v === recorded || (flag === '--length' && Number(v) === s.model.length) || (flag === '--seed' && Number(v) === Number(recorded ?? 0));
  for (const [flag, v, recorded] of given)
    if (!damaged && v !== undefined && !same(flag, v, recorded))
      throw new InputError(
        `is ${JSON.stringify(v)}, but this ledger's series was opened with ${recorded === null ? 'none' : JSON.stringify(recorded)}: its releases are that series' windows`,
        flag,
      );
  const { orderValues } = await import('../sources/sequence.js');
  const source = tableSourceOf(o);
  const q: SequenceQuery = { sequence: r.sequence, orderBy: r.orderBy };
  // The days of the windows recorded and the next one must be the calendar's (a gap further on waits for its window).
  const unit = calendarUnit(r.window);
  const through = s.lengths.slice(0, released + 1).reduce((a, b) => a + b, 0);
  if (unit && r.start !== null) checkDays(await orderValues(source, q, through, r.start), calendarDays(r.start, through, unit), unit);
  else if (r.start !== null) startsAt(await orderValues(source, q, 1, r.start), r.start);
  return { scenario: s, source, q, start: r.start, recorded: true };
}

/** Options of a window calibration, release or ledger. */
export interface WindowOptions extends CalibrateOptions {
  window?: string;
  windowsReleased?: string;
  start?: string;
}

/** A spec whose chain query gives windows (docs/math.md §19), or null for any other spec. */
async function specWindows(file: string): Promise<{ scenario: WindowScenario; d: SpecDefaults } | null> {
  const { loadAnySpecFile } = await import('../spec/loadFile.js');
  const spec = loadAnySpecFile(file);
  return spec.kind === 'windows' ? { scenario: spec.scenario, d: spec.defaults } : null;
}

/** A window spec's chain class and windows are the spec's: a table's options would silently change nothing. */
function refuseBesideWindowSpec(o: WindowOptions): void {
  if (o.data !== undefined || o.scenario !== undefined)
    throw new InputError(
      `give one of --spec, --scenario, --data (got --spec and ${o.data !== undefined ? '--data' : '--scenario'})`,
      o.data !== undefined ? '--data' : '--scenario',
    );
  refuseIn('windowSpecFile', o, tableOnly(o));
}

/** Whether `--spec` names a spec with windows (an unreadable one is not: its own path reports it). */
export async function givesWindows(o: WindowOptions): Promise<boolean> {
  if (o.window !== undefined) return true;
  if (o.spec === undefined) return false;
  const { specNames } = await import('../spec/loadFile.js');
  // Only a spec that names windows is validated here; any other is read by its own path, once.
  return specNames(o.spec, ['windows', 'windowLength']) && (await specWindows(o.spec).catch(() => null)) !== null;
}

type LoadedWindows = {
  model: MarkovModel;
  lengths: number[];
  labels: string[];
  d: SpecDefaults;
  /** The series as a law source (a table's carries where it lies: a series' ledger records it). */
  scenario: WindowScenario;
  /** Where a table's series is read: its rows from `start` on (the table's first row where null). */
  table?: { source: TableSource; q: SequenceQuery; start: string | null };
  /** The chain and windows are those a series' ledger recorded when it was opened (not the table's estimate now). */
  recorded?: boolean;
};

/**
 * The chain class and windows of `--spec` (its query's windows) or of a sequence table with
 * `--window`; with `ledger`, a series' ledger that recorded its series when it was opened gives the
 * chain and windows, and the table only the counts (`tableWindows`).
 */
export async function loadWindows(o: WindowOptions, ledger?: string): Promise<LoadedWindows> {
  if (o.spec !== undefined) {
    if (o.window !== undefined) throw new InputError("is not taken with --spec: the spec's query gives the windows", '--window');
    const w = await specWindows(o.spec);
    if (!w) throw new InputError('gives no windows: its markov query needs "windows" or "windowLength"', 'spec');
    refuseBesideWindowSpec(o);
    refuseIn('windowSpec', o);
    return { model: w.scenario.model, lengths: [...w.scenario.lengths], labels: [...w.scenario.labels], d: w.d, scenario: w.scenario };
  }
  const t = await tableWindows(o, ledger);
  const s = t.scenario;
  return {
    model: s.model,
    lengths: [...s.lengths],
    labels: [...s.labels],
    d: {},
    scenario: s,
    table: { source: t.source, q: t.q, start: t.start },
    ...(t.recorded ? { recorded: true } : {}),
  };
}

/**
 * The chain class of a sequence table and its windows, as a law source that knows where the series
 * lies. With a series' ledger that recorded its series, that record instead (`pinnedWindows`).
 */
async function tableWindows(
  o: WindowOptions,
  ledger?: string,
): Promise<{ scenario: WindowScenario; source: TableSource; q: SequenceQuery; start: string | null; recorded?: true }> {
  if (o.sequence === undefined || o.data === undefined)
    throw new InputError('is taken with --data … --sequence COL --order-by COL (windows of one time series)', '--window');
  if (!o.orderBy) throw new InputError('is required with --window (the order of the steps, and their dates for calendar windows)', '--order-by');
  if (!o.query) throw new InputError('is required with --window: count:STATE', '--query');
  if (calendarUnit(o.window!) && o.groupBy)
    throw new InputError('calendar windows read the dates of one series; give no --group-by, or window lengths', '--window');
  const recorded = ledger === undefined ? null : await recordedSeriesOf(ledger);
  // A damaged ledger's record, where it still reads, is taken as it is (its flags not held against
  // it: the ledger's use refuses it, or lists its problems); where it does not, the table's series.
  if (recorded?.series) return pinnedWindows(o, recorded.series, recorded.released, recorded.damaged);
  if (recorded?.damaged) return tableWindows(o);
  // A ledger opened before series were recorded reads the table's first rows: another start would move its windows.
  if (recorded && o.start !== undefined)
    throw new InputError(
      "is not taken by this ledger: it records no series start (opened before ledgers kept one, or not on a table), and reads the series from the table's first row",
      '--start',
    );
  const { windowsFromTable } = await import('../api/table.js');
  refuseIdleSeed(o, '--prior bootstrap:N | dirichlet:N');
  const w = await windowsFromTable(tableSourceOf(o), {
    sequence: o.sequence,
    orderBy: o.orderBy,
    ...(o.groupBy ? { groupBy: o.groupBy } : {}),
    query: o.query,
    window: o.window!,
    ...(o.length !== undefined ? { length: numberSetting('length', o.length) } : {}),
    ...(o.start !== undefined ? { start: o.start } : {}),
    ...(o.prior !== undefined ? { prior: o.prior } : {}),
    ...(o.seed !== undefined ? { seed: numberSetting('seed', o.seed) } : {}),
  }).catch((e) => {
    throw chainFlagError(e);
  });
  const name = `${o.data.split(/[\\/]/).pop()}: ${o.query} per window over ${o.sequence} (T = ${w.model.length}, --window ${o.window!.trim()})`;
  return { scenario: { ...w.scenario, name }, source: w.source, q: w.q, start: w.start };
}

/** `--secret NAME=PREDICATE …` by name (undefined without any). */
export function secretPredicates(texts: readonly string[] | undefined): Record<string, string> | undefined {
  if (!texts?.length) return undefined;
  return userRecord(
    texts.map((t, k, all): [string, string] => {
      const i = t.indexOf('=');
      if (i <= 0) throw new InputError(`must be NAME=PREDICATE, got '${t}'`, '--secret');
      const name = t.slice(0, i).trim();
      if (all.slice(0, k).some((u) => u.slice(0, u.indexOf('=')).trim() === name)) throw new InputError(`secret '${name}' is given twice`, '--secret');
      return [name, t.slice(i + 1)];
    }),
  );
}

/**
 * The scenario of `--spec`, `--scenario` or `--data`, with the spec's defaults. With
 * `gaussian`, also Gaussian priors (a spec's Gaussian conditionals, or `--fit`; docs/math.md §11).
 */
export async function loadScenario(o: CalibrateOptions): Promise<Loaded<Scenario>>;
export async function loadScenario(o: CalibrateOptions, opts: { gaussian: true }): Promise<Loaded<AnyScenario>>;
export async function loadScenario(o: CalibrateOptions, opts: { vector: true; statistic?: boolean }): Promise<Loaded<Scenario | PointScenario>>;
export async function loadScenario(
  o: CalibrateOptions,
  opts: { vector: true; windows: true; statistic?: boolean; ledger?: string },
): Promise<Loaded<AnyScenario>>;
export async function loadScenario(
  o: CalibrateOptions,
  opts: { gaussian?: boolean; vector?: boolean; statistic?: boolean; windows?: boolean; ledger?: string } = {},
): Promise<Loaded<AnyScenario>> {
  if (o.fit !== undefined && !opts.gaussian) throw new InputError('is taken by calibrate and release only', '--fit');
  // With a series' ledger, the series it recorded (its chain as it was when opened).
  if (opts.windows && (o as WindowOptions).window !== undefined) return { scenario: await windowsOf(o, opts.ledger), d: {} };
  if (opts.windows && o.spec !== undefined) {
    const w = await specWindows(o.spec).catch(() => null);
    if (w) {
      refuseBesideWindowSpec(o);
      return w;
    }
  }
  // Window counts' paths return above (or before this loader): here the flag would change nothing.
  if ((o as WindowOptions).windowsReleased !== undefined) throw new InputError("goes with window counts (--window, or a spec's windows)", '--windows-released');
  if ((o as WindowOptions).start !== undefined) throw new InputError('goes with window counts of a sequence table (--window)', '--start');
  const statistic = o.data && o.sequence === undefined && o.query ? parseStatisticFlag(o.query) : null;
  if (statistic) return loadStatisticLaws(o, statistic, opts.statistic ?? false);
  const loaded = await loadFinite(o, opts.gaussian ?? false, opts.vector ?? false, opts.statistic ?? false);
  layoutNames(loaded.scenario);
  layoutNames(loaded.source);
  if (o.fit === undefined) return loaded;
  const { fitScenario, parseFit } = await import('../gaussianPriors/fit.js');
  const kind = parseFit(o.fit);
  let f: ReturnType<typeof fitScenario>;
  try {
    f = fitScenario(loaded.scenario, kind);
  } catch (e) {
    throw asFlagError(e);
  }
  return { ...loaded, scenario: f.scenario, fit: f.report };
}

/**
 * A spec statistic's laws as a ledger binds them: with the statistic itself (kind, column or
 * predicate, unit, n), so two statistics whose per-unit laws coincide never share a ledger of
 * typed values. Other laws as they are.
 */
export function ledgerLaws<S extends AnyScenario>(scenario: S, d: SpecDefaults): S {
  const st = d.statistic;
  if (!st) return scenario;
  return statisticBound(scenario, { kind: st.kind, column: st.column ?? null, predicate: st.predicate ?? null, unit: st.unit ?? null, units: st.units });
}

/** Where a spec's `"statistic"` is taken: the other commands take the statistic from its table. */
const SPEC_STATISTIC_TAKEN =
  'is calibrated (calibrate), audited (audit), accounted (account --release, in its units) and released with its value typed (release --value) from a spec, and kept in a ledger opened on it (ledger init --spec: its releases typed, taken as one and the same value); a ledger of every statistic of a table is opened on the table (--data …)';

async function loadFinite(o: CalibrateOptions, gaussian: boolean, vector = false, statistic = false): Promise<Loaded<AnyScenario>> {
  if (o.projection === undefined) refuseIdleSeed(o, '--prior bootstrap:N | dirichlet:N or --projection random:K');
  const given = [o.spec && '--spec', o.scenario && '--scenario', o.data && '--data'].filter(Boolean);
  if (given.length > 1) throw new InputError(`give one of --spec, --scenario, --data (got ${given.join(' and ')})`, String(given[1]));
  if (given.length === 0) throw new InputError(`give --spec FILE, --scenario NAME (${BUILTIN_IDS.join(', ')}) or --data FILE --query COL`, '--spec');
  if (!o.data) {
    // A table's options would silently change nothing (a prior class asked for and not applied: less noise than meant).
    refuseIn(o.spec ? 'spec' : 'scenario', o, tableOnly(o));
  }
  if (o.spec) {
    // The spec loader (with the chain models a spec may hold) is read only when a spec is given.
    const [{ finiteSupport }, { loadAnySpecFile, loadSpecFile }] = await Promise.all([import('../spec/load.js'), import('../spec/loadFile.js')]);
    const { scenario, defaults } = gaussian ? loadAnySpecFile(o.spec) : vector ? finiteSupport(loadAnySpecFile(o.spec)) : loadSpecFile(o.spec);
    const st = defaults.statistic;
    if (!st) return { scenario, d: defaults };
    if (!statistic) throw new InputError(SPEC_STATISTIC_TAKEN, 'spec.statistic');
    return { scenario, d: defaults, statistic: { label: statisticLabel(st), units: st.units, divisor: divisorOf(st, st.units) } };
  }
  if (o.scenario) {
    // The UCI files when a verified copy is at hand ($PUFFERFISH_DATA_DIR or the cache), else the embedded counts.
    builtinScenario(o.scenario); // validates the name
    const dir = availableDir(SCENARIO_DATASET[o.scenario]);
    return { scenario: uciScenario(o.scenario, dir ?? undefined), d: {} };
  }
  if (o.sequence !== undefined) return loadSequence(o);
  refuseIn('column', o);
  if (!o.query) throw new InputError('is required with --data (the numeric column to release)', '--query');
  if (o.given !== undefined && o.given === o.secretColumn)
    throw new InputError(`names the secret column '${o.given}'; --given names a public column whose value the adversary knows`, '--given');
  const file = sourceKind(o.data!) !== 'postgres' && existsSync(o.data!) ? statSync(o.data!) : null;
  if (file?.isFile() && file.size === 0) throw new InputError(`'${o.data}' is empty (no header, no rows)`, '--data');
  if (o.specOut) checkOutput(o.specOut, '--spec-out', [{ path: o.data!, flag: '--data' }], [{ path: o.out, flag: '--out' }]);
  // DuckDB and pg load only when a table is read.
  const [{ tableHistograms }, { parsePriorClass, tableLaws }] = await Promise.all([import('../sources/histograms.js'), import('../sources/priors.js')]);
  const source = tableSourceOf(o);
  const predicates = secretPredicates(o.secret);
  // Values are compared with the table's text (a typed number matches its one text, said in the output).
  const values = o.values?.split(',').map((v) => v.trim());
  // --query A,B: a vector query (the columns' joint law per secret; docs/math.md §12).
  const queries = o.query.split(',').map((c) => c.trim());
  if (queries.length > 1 && !gaussian && !vector)
    throw new InputError('takes one column for this command; several columns (a vector query) are taken by calibrate, release, audit and account', '--query');
  checkColumnNames(queries, o.query!, '--query');
  const hist = await tableHistograms(source, {
    query: queries[0],
    ...(queries.length > 1 ? { queries } : {}),
    secretColumn: o.secretColumn,
    values,
    predicates,
    given: o.given,
  });
  const pairs = o.pairs === undefined ? undefined : parsePairs(o.pairs, hist.secrets);
  const seed = numberSetting('seed', o.seed, 0);
  const prior = o.prior ? parsePriorClass(o.prior, seed) : undefined;
  const label = sourceLabel(o.data!);
  const name = `${label.startsWith('postgres://') ? `${label}${o.table ? `/${o.table}` : ''}` : basename(o.data!)}: ${o.query} by ${o.secretColumn ?? 'predicates'}${o.given ? ` given ${o.given}` : ''}`;
  const t = tableLaws(hist, { name, prior, pairs, given: o.given });
  const scenario = t.scenario;
  if (o.specOut) {
    const settings = runSettings(o);
    await writeTextAtomically(o.specOut, '--spec-out', JSON.stringify({ ...scenarioSpec(scenario), ...settings }, null, 2) + '\n');
  }
  return {
    scenario,
    d: {},
    source: {
      rows: hist.rows,
      dropped: hist.dropped,
      priors: t.scenario.priors.length,
      skippedGiven: t.skippedGiven,
      absentGiven: t.absentGiven,
      notes: hist.notes ?? [],
    },
  };
}

/** The options that only a table (`--data`) reads, with their values. */
const tableOnly = (o: SourceOptions): [string, unknown][] =>
  TABLE_SETTINGS.map((name) => {
    const v = (o as Record<string, unknown>)[name];
    // --no-header sets `header` to false: given all the same.
    return [SETTINGS[name].flag, v === false ? true : v];
  });

/** The table source of `--data` and its reading options (UCI quirks by file name unless overridden). */
export function tableSourceOf(o: SourceOptions): TableSource {
  const kind = sourceKind(o.data!);
  // A file is one table: a table name or a query belongs to a database.
  if (kind !== 'postgres') refuseIn('fileTable', o);
  return {
    kind,
    location: o.data!,
    ...(kind === 'csv' ? uciQuirks(o.data!) : {}),
    ...(o.header !== undefined ? { header: o.header } : {}),
    ...(o.separator !== undefined ? { separator: o.separator.replace(/\\t/g, '\t') } : {}),
    ...(o.columns ? { columns: o.columns.split(',').map((c) => c.trim()) } : {}),
    table: o.table,
    sql: o.sql,
  };
}

/** Loads the scenario and builds the grid method × α × ε of settings (flags override the spec). */
export async function plan(o: CalibrateOptions): Promise<{ scenario: Scenario; grid: CalibrationSettings[]; source?: SourceInfo; d: SpecDefaults }>;
export async function plan(
  o: CalibrateOptions,
  opts: { gaussian: true },
): Promise<{ scenario: AnyScenario; grid: CalibrationSettings[]; source?: SourceInfo; fit?: string[]; d: SpecDefaults }>;
export async function plan(
  o: CalibrateOptions,
  opts: { gaussian?: boolean } = {},
): Promise<{ scenario: AnyScenario; grid: CalibrationSettings[]; source?: SourceInfo; fit?: string[]; d: SpecDefaults }> {
  const { scenario, d, source, fit } = opts.gaussian ? await loadScenario(o, { gaussian: true }) : await loadScenario(o);
  return { scenario, grid: settingsGrid(o, scenario, d), source, d, ...(fit ? { fit } : {}) };
}

/** The grid method × α × ε of settings for a scenario (flags override the spec's defaults `d`). */
export function settingsGrid(o: CalibrateOptions, scenario: AnyScenario, d: SpecDefaults): CalibrationSettings[] {
  const mechanism = o.mechanism ? parseNames(o.mechanism, 'mechanism', MECHANISMS) : [d.mechanism ?? defaultMechanism(scenario)];
  if (mechanism.length !== 1) throw new InputError('takes one mechanism', '--mechanism');
  // A law source's own methods (a chain's MQM, GK16, GroupDP) are named like the others.
  const methods = (o.method ? parseNames(o.method, 'method', [...METHODS, ...SOURCE_METHOD_NAMES]) : [d.method ?? settingDefault('method')]) as Method[];
  const alphas = gridSetting('alpha', o.alpha, d.alpha);
  const epsilons = gridSetting('epsilon', o.epsilon, d.epsilon);
  if (d.epsilon === undefined && !o.epsilon && o.spec) throw new InputError('no epsilon in the spec; give "epsilon" or --epsilon', 'spec.epsilon');
  // An (ε, δ) target searches the orders itself.
  if (d.alpha === undefined && !o.alpha && o.spec && d.delta === undefined && o.delta === undefined)
    throw new InputError('no alpha in the spec; give "alpha" or --alpha', 'spec.alpha');
  const cost = parseCost(o.cost, mechanism[0], '--cost') ?? d.cost;
  const releases = o.releases !== undefined ? numberSetting('releases', o.releases) : d.releases;
  const contamination = contaminationOf(o, d);
  return methods.flatMap((method) =>
    alphas.flatMap((alpha) =>
      epsilons.map((epsilon) => ({
        mechanism: mechanism[0],
        method,
        alpha,
        epsilon,
        cost,
        eta: d.eta,
        ...(releases !== undefined ? { releases } : {}),
        ...(contamination ? { contamination } : {}),
      })),
    ),
  );
}

/** `--domain LO,HI` or, for a vector query, `LO,HI;LO,HI;…` (one range per coordinate). */
export function parseRanges(text: string): [number, number][] {
  return text.split(';').map((range) => {
    const parts = range.split(',').map((x) => x.trim());
    const [lo, hi] = parts.map((x) => decimalValue(x));
    if (parts.length !== 2 || parts.some((x) => x === '') || !(Number.isFinite(lo) && Number.isFinite(hi) && lo < hi))
      throw new InputError(`must be LO,HI with finite LO < HI (a vector query: one LO,HI per coordinate, separated by ';'), got '${text}'`, '--domain');
    return [lo, hi];
  });
}

/**
 * `--contamination λ --domain LO,HI` (flags override the spec's fields); both or neither. A vector
 * query may give one range per coordinate, `LO,HI;LO,HI;…` (a spec: `[[LO, HI], …]`), the box.
 */
function contaminationOf(o: CalibrateOptions, d: SpecDefaults): BoxContamination | undefined {
  const lambda = o.contamination !== undefined ? decimal(o.contamination, '--contamination') : d.contamination;
  if (o.contamination !== undefined)
    checkSetting('contamination', o.contamination.trim() === '' ? Number.NaN : lambda, '--contamination', `'${o.contamination}'`);
  let ranges: [number, number][] | undefined =
    d.domain === undefined ? undefined : Array.isArray(d.domain[0]) ? (d.domain as [number, number][]) : [d.domain as [number, number]];
  if (o.domain !== undefined) ranges = parseRanges(o.domain);
  if (lambda === undefined && ranges === undefined) return undefined;
  if (lambda === undefined) throw new InputError('is needed with --domain (the share of each conditional the adversary may move)', '--contamination');
  if (ranges === undefined) throw new InputError('is needed with --contamination (the interval the moved mass may go to, covering every value)', '--domain');
  return { lambda, domain: ranges[0], ...(ranges.length > 1 || Array.isArray(d.domain?.[0]) ? { box: ranges } : {}) };
}

/** `--coordinate-scales w1,w2,…`: positive finite numbers, read exactly. */
export function parseCoordinateScales(text: string | undefined): number[] | undefined {
  if (text === undefined) return undefined;
  const parts = text.split(',').map((x) => x.trim());
  const ws = parts.map((x) => decimalValue(x));
  if (parts.some((x) => x === '') || !ws.every((w) => Number.isFinite(w) && w > 0))
    throw new InputError(`must be positive numbers separated by commas, got '${text}'`, '--coordinate-scales');
  return ws;
}

/**
 * `--threads N`: 1 to 256; default one fewer than the cores this process may use, or every core for
 * `heavy` work (`defaultThreads`).
 */
export function parseThreads(text: string | undefined, heavy = false): number {
  if (text === undefined) return defaultThreads(availableParallelism(), 256, heavy);
  return wholeNumber(text, '--threads', 1, 256);
}

/** The table-source options shared by calibrate, audit and release. */
export function withSourceOptions(c: Command): Command {
  const o = (name: Parameters<typeof settingOption>[0]) => c.addOption(settingOption(name));
  for (const name of ['data', 'query', 'secretColumn', 'values'] as const) o(name);
  c.addOption(settingOption('secret').argParser(collect));
  for (const name of ['pairs', 'given', 'prior'] as const) o(name);
  o('seed');
  c.addOption(settingOption('header')).addOption(settingOption('noHeader'));
  for (const name of ['separator', 'columns', 'table', 'sql', 'specOut', 'sequence', 'orderBy', 'groupBy', 'length', 'unit'] as const) o(name);
  return c;
}
