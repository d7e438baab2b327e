import { InputError } from './errors.js';
import { decimalValue, isDecimal } from './numerics/float.js';

/**
 * The ranges settings take, each with the one message a value outside it gets: the library, the
 * spec schema and the CLI's flags all check through these, so a setting is refused in the same
 * words wherever it comes from (the field names where: a setting, a spec path or a flag).
 */
export const RANGES = {
  /** ε, scales, targets. */
  positive: { ok: (v: number) => v > 0 && Number.isFinite(v), message: 'must be a finite number > 0' },
  /** A scale that may be 0 (the data's own divergence). */
  nonNegative: { ok: (v: number) => v >= 0 && Number.isFinite(v), message: "must be a finite number ≥ 0 (0: the data's own divergence)" },
  /** δ, false-alarm levels, confidences. */
  unitOpen: { ok: (v: number) => v > 0 && v < 1, message: 'must be in (0, 1)' },
  /** The contamination share λ. */
  unitClosed: { ok: (v: number) => v >= 0 && v <= 1, message: 'must be a number in [0, 1]' },
  /** Releases, counts, rows. */
  count: { ok: (v: number) => Number.isSafeInteger(v) && v >= 1, message: 'must be a whole number ≥ 1' },
} as const;

export type RangeName = keyof typeof RANGES;

/** One setting, declared once: how the CLI names it, the range its numbers lie in, whether a spec file carries it. */
export interface SettingDecl {
  /** The CLI flag. */
  readonly flag: string;
  /** The flag's argument as the help shows it; absent for a switch. */
  readonly arg?: string;
  /** The argument where a command takes one value of a setting that is otherwise a list or grid. */
  readonly one?: string;
  /** The range of `RANGES` a number must lie in (the library, the spec schema and the flags check it). */
  readonly range?: RangeName;
  /** A spec file may carry it (as the field of the same name). */
  readonly spec?: boolean;
  /** A file the command reads (never written over by one of its outputs) or writes. */
  readonly file?: 'input' | 'output';
  /** What the setting is, for the help; a command may say more about what it means there. */
  readonly help: string;
  /**
   * How the CLI reads its text (`parseSetting`): a decimal in `range`, a whole number from `min`
   * to `max`, a grid of numbers, one of `choices`; absent: the command reads the text itself.
   */
  readonly kind?: 'number' | 'whole' | 'grid' | 'choice';
  /** The value taken when neither a flag nor a spec field gives one (per guarantee where they differ); the help shows it. */
  readonly default?: SettingValue | PerGuarantee<SettingValue>;
  /** Whole numbers: the smallest value taken (per guarantee where they differ). */
  readonly min?: number | PerGuarantee<number>;
  /** Whole numbers: the largest value taken. */
  readonly max?: number;
  /** The values a choice takes. */
  readonly choices?: readonly string[];
  /** The page's upper end where it is below `max`: the page shows every draw as a line of text. */
  readonly pageMax?: number;
  /** Read only from a table (`--data`): refused with a spec or a built-in scenario, where it would change nothing. */
  readonly table?: true;
  /** The guarantees that take it (absent: every one); the others refuse it by name (`notTakenBy`). */
  readonly guarantees?: readonly Guarantee[];
  /** The modes that do not read it: a command in one refuses it by name, with the mode's reason (`refuseIn`). */
  readonly notIn?: readonly Mode[];
}

const WITH_STATISTIC = 'with a statistic query (sum:, mean:, count, share:); --group-by names its public groups';
const BESIDE_SOURCE_LEDGER = 'with a source ledger (its budget and recorded releases apply)';

/**
 * The situations in which a command does not read some settings, each with the reason its refusal
 * gives ("--flag is not taken REASON"). Each setting lists the modes it is refused in (`notIn`), so
 * a flag is never silently ignored and where it applies is declared with it.
 */
export const MODES = {
  sequence: 'with --sequence (the secrets are X_i = a for every time i and state a)',
  column: 'without --sequence',
  fileTable: 'with a file: it names a table or query of a postgres:// database',
  statistic: WITH_STATISTIC,
  /** A statistic per public group: --group-by names the groups (the given-like column is not taken beside it). */
  statisticGroups: WITH_STATISTIC,
  statisticOneScale: 'here: per-group statistics are calibrated and released by calibrate and release',
  statisticRelease: 'with a statistic query: the tool computes the statistic from --data and releases it',
  specStatisticRelease: "with a spec's statistic: --value is the statistic, computed by you",
  statisticReleaseYet: 'with a statistic query yet',
  groupPrivate: 'with --group-private: the groups are given by --group-by',
  groupPrivateYet: 'with --group-private yet',
  sourceLedger:
    'with a source ledger yet: its statistics are accounted under the empirical laws of the table (or a --prior bootstrap:N class), groups given by --group-by',
  sourceLedgerBudget: BESIDE_SOURCE_LEDGER,
  /** A source ledger's own releases are accounted (typed ones go with a statistic: a what-if). */
  sourceLedgerRecorded: BESIDE_SOURCE_LEDGER,
  sourceWhatIf: 'with typed releases of a statistic on a source ledger (a what-if on its table: nothing is written)',
  noNext: 'without --next (account reports the joint level; ε is the budget --next must keep)',
  ledgerNext: "with --ledger and --next (the ledger's budget applies)",
  noEmpirical: 'without --empirical (the sampling test they set)',
  window: 'with --window yet (window counts are calibrated, released and audited for Rényi and ε-Pufferfish targets, with the default cost)',
  windowAudit: 'with --window yet (the audit bounds the window counts at Rényi orders)',
  windowSpecOut: 'with --window yet: write the chain\'s spec without --window, then give its query "windows" (lengths) or "windowLength"',
  windowRelease: "with --window: the tool computes each window's count from --data",
  windowLedger: "with --ledger: the ledger's budget applies",
  windowLedgerRecords: "with --ledger: the ledger's budget applies, and it records which windows are out",
  windowSpec: "with a spec's windows: the spec gives the windows",
  windowSpecFile: "with a spec's windows: the spec gives the chain class, the secret pairs and the windows",
  spec: 'with --spec: it reads a table (--data)',
  scenario: 'with --scenario: it reads a table (--data)',
  typedValue: 'with --value: it names columns the privatized table (--out) carries',
  tableOut: 'with --out: each row gets one release',
  ledgerInit: 'at ledger init: each release names its own groups (release … --group-by G --ledger L)',
  projection: 'with --projection (a Gaussian projection for ε-MI Pufferfish: no Rényi order, method, δ, contamination or coordinate scales)',
  miMean: 'with a mean query (Gaussian noise for ε-MI Pufferfish on the mean of i.i.d. rows)',
  miEmpirical: 'with --guarantee mi --empirical (it tests one release against an MI budget)',
} as const;

/** A situation in which a command does not read some settings (`MODES`). */
export type Mode = keyof typeof MODES;

/** A setting's value as declared: a number or a name. */
export type SettingValue = number | string;

/** A value that differs between the Rényi and the mutual-information guarantee. */
export interface PerGuarantee<T> {
  readonly renyi: T;
  readonly mi: T;
}

/** The guarantees a setting's default or range may depend on. */
export type Guarantee = keyof PerGuarantee<unknown>;

/**
 * The settings, each declared once. The CLI's flags are made from these (`settingOption`), its
 * map from setting names to flags and the spec fields a flag may override are read off them, and
 * the library and the spec schema (shared by the web worker) check the ranges declared here.
 */
export const SETTINGS = {
  alpha: {
    flag: '--alpha',
    arg: '<grid>',
    one: '<a>',
    spec: true,
    kind: 'grid',
    default: 2,
    guarantees: ['renyi'],
    help: 'Rényi order(s): A | A,B,… | FROM:TO:STEP, or inf',
    notIn: ['sourceLedgerBudget', 'ledgerNext', 'windowLedgerRecords'],
  },
  epsilon: {
    flag: '--epsilon',
    arg: '<grid>',
    one: '<e>',
    range: 'positive',
    spec: true,
    kind: 'grid',
    default: 1,
    help: 'budget(s): E | E,F,… | FROM:TO:STEP',
    notIn: ['sourceLedgerBudget', 'noNext', 'ledgerNext', 'windowLedgerRecords'],
  },
  delta: {
    flag: '--delta',
    arg: '<d>',
    range: 'unitOpen',
    spec: true,
    kind: 'number',
    default: 1e-6,
    guarantees: ['renyi'],
    help: 'δ of an (ε, δ) guarantee, in (0, 1)',
    notIn: ['sourceLedgerBudget', 'ledgerNext', 'windowAudit', 'windowLedger'],
  },
  mechanism: { flag: '--mechanism', arg: '<m>', spec: true, help: 'the noise family' },
  method: {
    flag: '--method',
    arg: '<list>',
    one: '<m>',
    spec: true,
    default: 'best',
    help: 'calibration method(s), comma-separated',
    notIn: ['windowLedgerRecords', 'projection', 'miMean'],
  },
  releases: {
    flag: '--releases',
    arg: '<n>',
    range: 'count',
    spec: true,
    kind: 'whole',
    min: 1,
    default: 1,
    help: 'releases of the same value covered together',
    notIn: ['statisticReleaseYet', 'window', 'miEmpirical'],
  },
  contamination: {
    flag: '--contamination',
    arg: '<λ>',
    range: 'unitClosed',
    spec: true,
    kind: 'number',
    default: 0,
    guarantees: ['renyi'],
    help: 'the share λ of each conditional an adversary may move',
    notIn: ['sourceLedger', 'window'],
  },
  domain: { flag: '--domain', arg: '<lo,hi>', spec: true, guarantees: ['renyi'], help: 'the interval contaminated mass may go to', notIn: ['sourceLedger'] },
  coordinateScales: {
    flag: '--coordinate-scales',
    arg: '<w1,w2,…>',
    spec: true,
    help: 'vector queries: coordinate i gets wᵢ × the scale',
    notIn: ['statistic', 'window', 'projection'],
  },
  threads: { flag: '--threads', arg: '<n>', kind: 'whole', min: 1, max: 256, help: 'threads: this one plus workers started when the work repays them' },
  confidence: {
    flag: '--confidence',
    arg: '<c>',
    range: 'unitOpen',
    kind: 'number',
    default: 0.95,
    help: 'error bars: the share of the noise the ± covers, in (0, 1)',
  },
  level: {
    flag: '--level',
    arg: '<a>',
    range: 'unitOpen',
    kind: 'number',
    default: { renyi: 1e-3, mi: 0.05 },
    help: 'false-alarm level of a statistical test, in (0, 1)',
    notIn: ['noEmpirical'],
  },
  scale: { flag: '--scale', arg: '<s>', range: 'positive', help: 'a noise scale' },
  count: {
    flag: '--count',
    arg: '<n>',
    range: 'count',
    kind: 'whole',
    default: 1,
    min: 1,
    max: 1_000_000,
    pageMax: 1000,
    help: 'draws',
    notIn: ['statisticReleaseYet', 'window'],
  },
  rows: { flag: '--rows', arg: '<n>', range: 'count', help: 'rows of a table' },
  'target-mse': { flag: '--target-mse', arg: '<m>', range: 'positive', help: 'a target expected squared error' },
  json: { flag: '--json', help: 'print JSON' },
  guarantee: { flag: '--guarantee', arg: '<g>', kind: 'choice', choices: ['renyi', 'mi'], default: 'renyi', help: 'renyi or mi', notIn: ['window'] },
  cost: { flag: '--cost', arg: '<c>', guarantees: ['renyi'], help: 'exponential mechanism cost c(z)', notIn: ['window'] },
  samples: {
    flag: '--samples',
    arg: '<n>',
    kind: 'whole',
    default: { renyi: 50_000, mi: 20_000 },
    min: { renyi: 100, mi: 40 },
    max: 10_000_000,
    help: 'empirical audit: draws per secret',
    notIn: ['noEmpirical'],
  },
  value: { flag: '--value', arg: '<v>', help: 'the true value to privatize', notIn: ['statisticRelease', 'windowRelease'] },
  truncate: { flag: '--truncate', arg: '<lo,hi>', help: 'redraw until the output lies in [LO, HI]', notIn: ['statisticReleaseYet', 'window'] },
  ledger: { flag: '--ledger', arg: '<file|url>', file: 'input', help: 'a release ledger (DuckDB file or postgres://…)' },
  scenario: { flag: '--scenario', arg: '<name>', help: 'built-in scenario of the paper', notIn: ['sourceWhatIf'] },
  data: { flag: '--data', arg: '<file|url>', file: 'input', help: 'table: CSV/TSV, Parquet, JSON lines (DuckDB) or postgres://… (PostgreSQL)' },
  dataDir: { flag: '--data-dir', arg: '<dir>', help: 'UCI files as shipped' },
  query: {
    table: true,
    flag: '--query',
    arg: '<col>',
    help: 'with --data: the numeric column to release, or a statistic of the table: sum:COL | mean:COL | count[:PREDICATE] | share[:PREDICATE]',
  },
  window: {
    flag: '--window',
    arg: '<month|week|N|L1,L2,…>',
    help: 'with --sequence and count:STATE or sum:STATE=V,…: release one count or sum per window (calendar months or Monday-to-Sunday weeks of the order column, N rows each, or the lengths listed)',
    notIn: ['sourceWhatIf'],
  },
  windowsReleased: {
    flag: '--windows-released',
    arg: '<k>',
    help: 'with --window: only the first K windows are released so far',
    notIn: ['windowLedgerRecords'],
  },
  start: {
    table: true,
    flag: '--start',
    arg: '<value>',
    help: "with --window: the order value of the series' first step (a date for calendar windows; default: the table's first); the series is the --length steps from it",
    notIn: ['sourceWhatIf', 'windowSpec'],
  },
  unit: {
    table: true,
    flag: '--unit',
    arg: '<col>',
    help: "with a statistic: rows with one value of this column are one unit, contributing their total (a household's rows)",
  },
  groupPrivate: {
    flag: '--group-private',
    help: 'with a statistic and --group-by: the group is not known to the adversary (it may be correlated with the secret): one noise scale covers the vector of group values (vector bounds)',
  },
  leaveOutGroups: {
    flag: '--leave-out-groups',
    help: 'release per --group-by: leave out the groups whose rows hold one secret value (their absence tells so; refused otherwise)',
  },
  targetHalfwidth: {
    flag: '--target-halfwidth',
    arg: '<h>',
    range: 'positive',
    help: 'plan by accuracy: the smallest ε at which the release lies within ±H with probability --confidence',
  },
  secretColumn: { table: true, flag: '--secret-column', arg: '<col>', help: 'with --data: each value of this column is a secret', notIn: ['sequence'] },
  values: { table: true, flag: '--values', arg: '<a,b,…>', help: 'with --secret-column: only these values', notIn: ['sequence'] },
  secret: {
    table: true,
    flag: '--secret',
    arg: '<name=predicate>',
    help: 'with --data: a secret as an SQL predicate, e.g. "older=age >= 50" (repeat)',
    notIn: ['sequence'],
  },
  pairs: { table: true, flag: '--pairs', arg: '<a:b,…>', help: 'secret pairs to protect (default: every unordered pair)' },
  given: {
    table: true,
    flag: '--given',
    arg: '<col>',
    help: 'public column: split every pair by its value, take the maximum, name the binding one',
    notIn: ['sequence', 'statisticGroups', 'statisticOneScale', 'groupPrivate', 'sourceLedger', 'miMean'],
  },
  prior: { table: true, flag: '--prior', arg: '<class>', default: 'empirical', help: 'empirical | bootstrap:N | dirichlet:N[:CONCENTRATION]' },
  seed: { flag: '--seed', arg: '<n>', kind: 'whole', min: 0, max: Number.MAX_SAFE_INTEGER, help: 'seed of the prior class draws (reproducible)' },
  separator: { table: true, flag: '--separator', arg: '<s>', help: 'CSV separator (\\t for tab)' },
  columns: { table: true, flag: '--columns', arg: '<a,b,…>', help: 'column names for a CSV without header' },
  table: { table: true, flag: '--table', arg: '<t>', help: 'PostgreSQL table', notIn: ['fileTable'] },
  sql: { table: true, flag: '--sql', arg: '<select>', help: 'PostgreSQL query instead of --table', notIn: ['fileTable'] },
  specOut: {
    flag: '--spec-out',
    arg: '<file>',
    file: 'output',
    help: 'write the derived scenario as a JSON spec (reproducible without the data)',
    notIn: ['groupPrivateYet', 'sourceWhatIf', 'windowSpecOut', 'windowSpecFile', 'spec', 'scenario'],
  },
  sequence: {
    table: true,
    flag: '--sequence',
    arg: '<col>',
    help: 'with --data: the state column of a time series (a Markov chain; --query count:S | sum:S=V,… | histogram)',
  },
  orderBy: {
    table: true,
    flag: '--order-by',
    arg: '<col>',
    help: 'with --sequence: the column giving the order of the steps',
    notIn: ['column', 'statistic', 'sourceLedger'],
  },
  groupBy: {
    table: true,
    flag: '--group-by',
    arg: '<col>',
    help: 'with --sequence: independent sequences (their transitions are pooled); with a statistic: one value per group of this public column',
    notIn: ['column', 'statisticOneScale', 'ledgerInit'],
  },
  length: {
    table: true,
    flag: '--length',
    arg: '<T>',
    kind: 'whole',
    min: 1,
    max: 1_000_000,
    help: 'with --sequence: the chain length the release is about (default: the longest sequence)',
    notIn: ['column', 'statistic'],
  },
  out: { flag: '--out', arg: '<file>', file: 'output', help: 'the output file', notIn: ['statisticRelease', 'specStatisticRelease', 'windowRelease'] },
  spec: { flag: '--spec', arg: '<file>', file: 'input', help: 'scenario spec (JSON)', notIn: ['sourceWhatIf'] },
  projection: {
    flag: '--projection',
    arg: '<file|random:K>',
    file: 'input',
    help: 'a projection matrix file, or random:K',
    notIn: ['statistic', 'sourceLedger', 'miMean'],
  },
  keep: {
    flag: '--keep',
    arg: '<a,b,…>',
    help: 'columns written beside the privatized one',
    notIn: ['statisticRelease', 'specStatisticRelease', 'typedValue'],
  },
  release: {
    flag: '--release',
    arg: '<fields>',
    help: "a release made: 'mechanism=gaussian,scale=1.2[,cost=abs]' (repeat); a vector query's release of some columns adds columns=A+B (or coordinates=1+2)",
    notIn: ['sourceLedgerRecorded'],
  },
  next: { flag: '--next', arg: '<mechanism>', help: 'also: the smallest scale of one more release of this mechanism within the total (α, ε)' },
  nextColumns: {
    flag: '--next-columns',
    arg: '<A+B>',
    help: "with --next on a vector query: the next release publishes only these columns (a spec: 1-based coordinates, '1+2')",
    notIn: ['sourceWhatIf'],
  },
  empirical: {
    flag: '--empirical',
    help: 'also test the claimed (α, ε) by sampling the real release path (Clopper–Pearson, threshold sets)',
    notIn: ['windowAudit'],
  },
  robustness: {
    flag: '--robustness',
    help: 'also: the guarantee at this scale for contamination λ = 0, 0.001, 0.01, 0.1, 1, and the largest λ within ε (needs --domain)',
  },
  fit: {
    flag: '--fit',
    arg: '<kind>',
    guarantees: ['renyi'],
    help: 'calibrate for Gaussian priors fitted to each conditional: gaussian | mixture:K (reported)',
    notIn: ['statistic', 'sourceLedger', 'window'],
  },
  perRelease: {
    flag: '--per-release',
    help: 'with --count: calibrate each release alone (the guarantee then holds for each alone, not together)',
    notIn: ['statisticReleaseYet', 'tableOut'],
  },
  allowNoNoise: {
    flag: '--allow-no-noise',
    help: 'release the raw value when the calibrated scale is 0 (refused by default: it holds only for adversaries exactly in the prior class)',
  },
  header: { table: true, flag: '--header', help: 'CSV has a header row' },
  noHeader: { flag: '--no-header', help: 'CSV has no header row' },
  quick: { flag: '--quick', help: 'coarse grid that finishes in seconds' },
  figure: { flag: '--figure', arg: '<n...>', help: 'only these figures (1 2 3 4)' },
  markov: {
    flag: '--markov',
    help: "Song et al.'s Markov-chain experiment (noise over (q, p) for GroupDP, GK16, MQMApprox, MQMExact and the exact laws) and the weather example",
  },
  port: { flag: '--port', arg: '<p>', kind: 'whole', min: 0, max: 65535, default: 8737, help: 'port (0 = any free one)' },
} as const satisfies Record<string, SettingDecl>;

export type SettingName = keyof typeof SETTINGS;

/** The settings only a table reads (declared `table`), in declaration order. */
export const TABLE_SETTINGS: readonly SettingName[] = (Object.keys(SETTINGS) as SettingName[]).filter((k) => (SETTINGS[k] as SettingDecl).table);

/** The orders `account` reports when none are given: a curve of the joint level, not one point. */
export const ACCOUNT_ORDERS: readonly number[] = [1.5, 2, 3, 5, 10, Infinity];

/** Each ranged setting's range (read off `SETTINGS`). */
export const SETTING_RANGES = Object.fromEntries(Object.entries(SETTINGS).flatMap(([k, d]) => ('range' in d ? [[k, d.range]] : []))) as {
  readonly [K in SettingName as (typeof SETTINGS)[K] extends { range: RangeName } ? K : never]: RangeName;
};

/**
 * A setting's value as the help and messages show it: small numbers in exponent form (1e-6).
 * @example settingText(1e-6) // '1e-6'
 */
export const settingText = (v: SettingValue): string => (typeof v === 'number' && v !== 0 && Math.abs(v) < 1e-3 ? v.toExponential() : String(v));

/** The settings that declare a default. */
export type DefaultedSetting = { [K in SettingName]: (typeof SETTINGS)[K] extends { default: unknown } ? K : never }[SettingName];

/**
 * A setting's declared default (for `guarantee` where the guarantees' defaults differ).
 * @example settingDefault('alpha') // 2
 * @example settingDefault('samples', 'mi') // 20000
 */
export function settingDefault<K extends DefaultedSetting>(name: K, guarantee: Guarantee = 'renyi'): DefaultOf<K> {
  return perGuarantee((SETTINGS[name] as SettingDecl).default, guarantee) as DefaultOf<K>;
}

/** The type of a setting's default: its declared literal widened (`2` → number). */
export type DefaultOf<K extends DefaultedSetting> = (typeof SETTINGS)[K] extends { default: infer D }
  ? D extends PerGuarantee<infer T>
    ? Widen<T>
    : Widen<D>
  : never;
type Widen<T> = T extends number ? number : T extends string ? string : T;

/**
 * A declared value that may differ by guarantee, for `guarantee`.
 * @example perGuarantee({ renyi: 100, mi: 40 }, 'mi') // 40
 */
export function perGuarantee<T>(x: T | PerGuarantee<T>, guarantee: Guarantee): T {
  return typeof x === 'object' && x !== null && 'renyi' in x ? x[guarantee] : (x as T);
}

/**
 * `value` when it lies in `range`, else an InputError naming `field` with the range's message
 * (`shown`: the value as the user gave it, default the number itself).
 * @example inRange('unitOpen', 1e-6, 'delta') // 1e-6
 */
export function inRange(range: RangeName, value: unknown, field: string, shown: string = String(value)): number {
  const r = RANGES[range];
  if (typeof value !== 'number' || !r.ok(value)) throw new InputError(`${r.message}, got ${shown}`, field);
  return value;
}

/**
 * `value` when it is a whole number from `min` to `max`, else an InputError naming `field`
 * (`shown`: the value as the user gave it).
 */
function wholeIn(value: unknown, field: string, min: number, max: number, shown: string = String(value)): number {
  const range = max === Number.MAX_SAFE_INTEGER ? `≥ ${min}` : `from ${min} to ${max}`;
  if (typeof value !== 'number' || !Number.isInteger(value) || !(value >= min && value <= max))
    throw new InputError(`must be a whole number ${range}, got '${shown}'`, field);
  return value;
}

/**
 * Reads a whole number as typed (a flag, a page field): decimal digits only (`1e3`, `0x10`, `1.0`
 * are refused), from `min` to `max`.
 * @example wholeNumber('12', '--count', 1, 1_000_000) // 12
 */
export function wholeNumber(text: string, field: string, min: number, max: number): number {
  return wholeIn(/^\s*\d+\s*$/.test(text) ? Number(text) : Number.NaN, field, min, max, text);
}

/** How many draws a prior class takes (`bootstrap:N`, `dirichlet:N`). */
export const PRIOR_DRAWS = { min: 1, max: 10_000 } as const;

/**
 * A whole-number setting given as a number (the library's option), checked against its declared range.
 * @example checkWhole('seed', 7) // 7
 */
export const checkWhole = (name: 'seed' | 'length', value: unknown, field: string = name): number =>
  wholeIn(value, field, SETTINGS[name].min, SETTINGS[name].max);

/**
 * A setting checked against its declared range, named by its field.
 * @example checkSetting('epsilon', 1) // 1
 */
export function checkSetting(name: keyof typeof SETTING_RANGES, value: unknown, field: string = name, shown?: string): number {
  return inRange(SETTING_RANGES[name], value, field, shown);
}

/** Joint accounting and the robustness report bound D_α for α > 1 (and ∞) only. */
export function checkJointOrder(alpha: number, what = 'joint accounting'): void {
  if (!(alpha > 1)) throw new InputError(`${what} covers α > 1 (and ∞), got ${alpha}`, 'alpha');
}

/** The scale of a robustness report: a finite number > 0, at an order α > 1. */
export function checkRobustnessSettings(s: { scale: number; alpha: number }): void {
  if (!(s.scale > 0) || !Number.isFinite(s.scale)) throw new InputError(`must be a finite number > 0 for a robustness report, got ${s.scale}`, 'scale');
  checkJointOrder(s.alpha, 'the robustness report');
}

/** A recorded or planned release's scale: finite and > 0 (a release without noise has no level to account). */
export function checkReleaseScale(r: { mechanism: string; scale: number }): void {
  if (!(r.scale > 0) || !Number.isFinite(r.scale)) throw new InputError(`a ${r.mechanism} release needs a finite scale > 0, got ${r.scale}`, 'release');
}

/** Several releases audited together need noise: the data's own divergence does not grow with N. */
export function checkSeveralReleases(n: number, scale: number): void {
  if (n > 1 && !(scale > 0)) throw new InputError('auditing several releases needs a scale > 0', 'scale');
}

/** A family whose D∞ is infinite (Gaussian) has no ε-Pufferfish level to report. */
export const noDInfLevel = (title: string, hint = ''): InputError => new InputError(`${title} noise has no finite α = ∞ level${hint}`, 'alpha');

/** Parses α as given in a spec or on the command line: a number or "inf". */
export function parseAlpha(a: number | string, path = 'alpha'): number {
  if (typeof a === 'number') return a;
  if (/^(inf|infinity|∞)$/i.test(a.trim())) return Infinity;
  if (!isDecimal(a)) throw new InputError(`'${a}' is not a number or "inf"`, path);
  // 1e400 is not a way to ask for α = ∞: "inf" is.
  if (Number.isNaN(decimalValue(a))) throw new InputError(`'${a}' is beyond the range of a double; give "inf" for α = ∞`, path);
  return Number(a);
}
