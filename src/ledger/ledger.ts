import { byLaw, lawDimension, type AnyScenario } from '../distribution/lawKind.js';
import { ARRAY, checkScenarioShape, checkShape, OBJECT } from '../shapes.js';
import { createHash } from 'node:crypto';
import { budgetLevel, checkBudget, smallestFittingScale, type Budget, type BudgetLevel, type ReleaseGroup } from '../account/budget.js';
import { costs } from '../conditions/costs.js';
import { MECHANISMS, mechanismDef, type Mechanism } from '../mechanisms/registry.js';
import { InputError, noRelease, unknownName } from '../errors.js';
import { checkSetting } from '../settings.js';
import { lawsDigest, recordedSeries, seriesRecord } from './identity.js';
import type { WindowScenario } from '../markov/windowScenario.js';
import { corrupted, headOf, type LedgerMeta, type LedgerRow, type LedgerState, type LedgerStore } from './store.js';
import { numberText, precisionUp } from '../numerics/decimal.js';

/** The laws a ledger can account: finite scalar or vector laws. */
export type LedgerScenario = AnyScenario;

const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const alphaJson = (a: number) => (a === Infinity ? 'inf' : a);

/** The budget as stored (JSON has no ∞). */
export function budgetText(b: Budget): string {
  return JSON.stringify({ alphas: b.alphas.map(alphaJson), epsilon: b.epsilon, ...(b.delta !== undefined ? { delta: b.delta } : {}) });
}

/** The stored budget read back. */
function budgetOf(meta: LedgerMeta, where: string): Budget {
  try {
    const j = JSON.parse(meta.budget) as { alphas: (number | 'inf')[]; epsilon: number; delta?: number };
    return checkBudget({ alphas: j.alphas.map((a) => (a === 'inf' ? Infinity : a)), epsilon: j.epsilon, ...(j.delta !== undefined ? { delta: j.delta } : {}) });
  } catch {
    throw corrupted(where, 'its budget entry cannot be read');
  }
}

// A series' record joins the list only where there is one: the digests of ledgers without one stay as they were.
const metaDigest = (m: Omit<LedgerMeta, 'digest'>) =>
  sha(
    JSON.stringify([
      m.format,
      m.created,
      m.budget,
      m.laws,
      m.scenario,
      ...(m.series !== undefined ? [m.series] : []),
      ...(m.accountant !== undefined ? [`accountant ${m.accountant}`] : []),
    ]),
  );

/**
 * The joint accountant's version, kept in the ledgers it opens: 2 since exact accounting on ℝ²
 * (docs/math.md §12), whose levels can be below what version 1 recorded; 3 since window sums on
 * their own grid (§19), whose boundary bounds' rounding allowance is smaller than version 2's.
 */
const ACCOUNTANT = 3;

/** The chain link of a row: its fields (not its status, which changes once) after the previous link. */
const rowDigest = (prev: string, r: Omit<LedgerRow, 'digest' | 'status'>) =>
  sha(
    `${prev}\n${JSON.stringify([r.seq, r.at, r.mechanism, String(r.scale), r.cost, r.count, r.coordinateScales, r.query, String(r.level), String(r.alpha)])}`,
  );

/** Problems of a ledger's own records: the chain of digests, the numbering, the fields. */
function chainProblems(s: LedgerState): string[] {
  const problems: string[] = [];
  const { digest, ...rest } = s.meta;
  if (metaDigest(rest) !== digest) problems.push('the budget, laws or series entry was changed after the ledger was opened (digest mismatch)');
  let prev = digest;
  s.rows.forEach((r, i) => {
    if (r.seq !== i + 1) problems.push(`release ${i + 1} is numbered ${r.seq} (a release was removed or inserted)`);
    if (rowDigest(prev, r) !== r.digest) problems.push(`release ${r.seq} differs from what was recorded (digest mismatch)`);
    if (!(r.scale > 0) || !Number.isSafeInteger(r.count) || r.count < 1) problems.push(`release ${r.seq} has scale ${r.scale} and count ${r.count}`);
    if (r.cost !== null && !(r.cost in costs)) problems.push(`release ${r.seq} names an unknown cost '${r.cost}'`);
    prev = r.digest;
  });
  const last = s.rows[s.rows.length - 1];
  const head = last ? headOf(last.seq, last.digest) : headOf(0, digest);
  if (s.head === null) problems.push('its head entry is missing');
  else if (s.head !== head) {
    const n = Number(s.head.split(':')[0]);
    problems.push(
      n > s.rows.length ? `release(s) ${s.rows.length + 1}–${n} were removed (the head names release ${n})` : 'its head entry does not match the last release',
    );
  }
  return problems;
}

/**
 * Whether a ledger's identity (`LedgerMeta.laws`) names a data source (its releases are statistics
 * of it, docs/math.md §20) rather than laws.
 * @example isSourceBound('source:sha256:…') // true
 */
export const isSourceBound = (laws: string): boolean => laws.startsWith('source:');

const ofSource = (meta: Pick<LedgerMeta, 'laws'>) => isSourceBound(meta.laws);

/**
 * The recorded releases as the accountant's groups. In a source ledger release k publishes
 * coordinate k of the source's vector: the contribution to the statistic it recorded.
 */
const groupsOf = (rows: readonly LedgerRow[], source: boolean): ReleaseGroup[] =>
  rows.map((r, k) => ({
    mechanism: r.mechanism as ReleaseGroup['mechanism'],
    scale: r.scale,
    count: r.count,
    ...(r.cost ? { cost: costs[r.cost] } : {}),
    ...(r.coordinateScales ? { coordinateScales: JSON.parse(r.coordinateScales) as number[] } : {}),
    ...(source ? { coordinates: [k] } : {}),
  }));

/** What a ledger binds: a scenario's laws, or a data source whose statistics it accounts (`identity`, with a name for people). */
export type LedgerBinding = LedgerScenario | { readonly identity: string; readonly name: string };

/**
 * Opens a ledger: fixes the budget and the identity of the laws it protects. Nothing is
 * released yet.
 * @example (await initLedger(ledgerStore(`${scratch}/year.ledger`), builtinScenario('heart'), { alphas: [2], epsilon: 3 })).laws // 'sha256:…' (scratch: a folder of yours)
 */
export async function initLedger(store: LedgerStore, scenario: LedgerBinding, budget: Budget, now = new Date()): Promise<LedgerMeta> {
  checkShape(OBJECT, store, 'store');
  const source = 'priors' in scenario ? null : scenario;
  if (!source) checkScenarioShape(scenario);
  else if (typeof source.identity !== 'string' || !ofSource({ laws: source.identity }))
    throw new InputError("must be a source's identity (source:sha256:…)", 'identity');
  checkShape(OBJECT, budget, 'budget');
  checkBudget(budget);
  const laws = source ? source.identity : lawsDigest(scenario as LedgerScenario);
  // A table's series keeps its chain: the windows of rows that arrive later are read under it.
  const series = source ? null : seriesRecord(scenario as LedgerScenario);
  const base = {
    format: 2 as const,
    created: now.toISOString(),
    budget: budgetText(budget),
    laws,
    scenario: scenario.name,
    ...(series ? { series } : {}),
    accountant: String(ACCOUNTANT),
  };
  const meta = { ...base, digest: metaDigest(base) };
  await store.create(meta);
  return meta;
}

/** A release to record: its noise, how many draws, and the query it released (for people). */
export interface LedgerRelease extends Omit<ReleaseGroup, 'coordinates'> {
  readonly query: string;
  /**
   * The release number this must be recorded as (1-based), when what it releases depends on it
   * (a series' next window): a release recorded meanwhile makes it refuse rather than misfile.
   */
  readonly position?: number;
}

/** What recording a release decided. */
export interface Recorded {
  seq: number;
  level: BudgetLevel;
  budget: Budget;
}

/** The checks every use of a ledger starts with: the same laws, an intact chain. */
function usable(s: LedgerState, scenario: LedgerScenario, label: string): Budget {
  const problems = chainProblems(s);
  if (problems.length) throw corrupted(label, problems[0]);
  if (ofSource(s.meta) && !(scenario as { identity?: string }).identity)
    throw new InputError(
      `is a source ledger ('${s.meta.scenario}'): it records statistics the tool computes from its table (release --data … --query mean:COL … --ledger), never a hand-typed --value, a spec's or a column's laws, whose statistic it could not account jointly; its joint level: ledger show --ledger … --data … --secret-column …`,
      'ledger',
    );
  if (s.meta.laws !== lawsDigest(scenario))
    throw new InputError(
      `was opened for other secret-conditional laws (scenario '${s.meta.scenario}'), not those of '${scenario.name}': a ledger accounts the releases of one quantity on one data set`,
      'ledger',
    );
  return budgetOf(s.meta, label);
}

/**
 * The series a series' ledger recorded when it was opened on a table (its chain, windows and where
 * the series lies), or null for a ledger without one (any other ledger, or one opened before
 * ledgers kept it): what every later release of its windows is read under; and how many releases
 * it holds.
 */
export async function ledgerSeries(store: LedgerStore): Promise<{ series: WindowScenario | null; released: number; damaged: boolean }> {
  // A record must give the ledger's identity again, or it is refused. In a ledger whose chain of
  // digests is broken the record is read where it still does (else none): where the ledger is used,
  // a release refuses it and `check` lists its problems.
  const s = await store.read();
  const damaged = chainProblems(s).length > 0;
  let series: WindowScenario | null = null;
  try {
    series = s.meta.series === undefined ? null : recordedSeries(s.meta.series, s.meta.laws);
  } catch (e) {
    if (!damaged) throw e;
  }
  return { series, released: s.rows.length, damaged };
}

/**
 * A ledger read for `scenario`: its budget and recorded releases, after the same checks a
 * release makes (its laws, its chain), so an account or a release fails before any work.
 * @example const store = ledgerStore(`${scratch}/year.ledger`); // scratch: a folder of yours
 * await initLedger(store, builtinScenario('heart'), { alphas: [2], epsilon: 3 });
 * (await ledgerFor(store, builtinScenario('heart'))).budget.epsilon // 3
 */
export async function ledgerFor(store: LedgerStore, scenario: LedgerScenario): Promise<{ budget: Budget; groups: ReleaseGroup[]; rows: LedgerRow[] }> {
  const s = await store.read();
  const budget = usable(s, scenario, store.label);
  return { budget, groups: groupsOf(s.rows, ofSource(s.meta)), rows: s.rows };
}

const budgetWords = (b: Budget) =>
  b.delta !== undefined
    ? `(ε = ${b.epsilon}, δ = ${b.delta}) through α ∈ {${b.alphas.map((a) => (a === Infinity ? '∞' : a)).join(', ')}}`
    : `ε = ${b.epsilon} at α ∈ {${b.alphas.map((a) => (a === Infinity ? '∞' : a)).join(', ')}}`;

/**
 * Records a release before its values are shown: in one exclusive transaction, reads every
 * recorded release, computes the joint level of all of them plus this one with the joint
 * accountant (never by adding levels), and appends it — marked pending — only if that level
 * stays within the budget. Otherwise nothing is written and the InputError names the budget, the
 * level this release would reach, and the smallest scale at which it would still fit.
 * @example const store = ledgerStore(`${scratch}/year.ledger`); // scratch: a folder of yours
 * await initLedger(store, builtinScenario('heart'), { alphas: [2], epsilon: 3 });
 * (await recordRelease(store, builtinScenario('heart'), { mechanism: 'gaussian', scale: 2, count: 1, query: 'oldpeak' })).level.fits // true
 */
export async function recordRelease(store: LedgerStore, scenario: LedgerScenario, r: LedgerRelease, now = new Date()): Promise<Recorded> {
  checkShape(OBJECT, r, 'release');
  return (await recordReleases(store, scenario, [r], now))[0];
}

/**
 * Records several releases together, all or none (a statistic's groups, each with its own noise):
 * each is appended only if the joint level after it stays within the budget. In a source ledger
 * release k publishes coordinate k of `scenario` (docs/math.md §20), so the scenario must have one
 * coordinate per recorded release and per release of the batch.
 * @example const store = ledgerStore(`${scratch}/year.ledger`); // scratch: a folder of yours
 * await initLedger(store, builtinScenario('heart'), { alphas: [2], epsilon: 3 });
 * (await recordReleases(store, builtinScenario('heart'), [{ mechanism: 'gaussian', scale: 2, count: 1, query: 'oldpeak' }, { mechanism: 'gaussian', scale: 3, count: 1, query: 'oldpeak' }])).length // 2
 */
export async function recordReleases(store: LedgerStore, scenario: LedgerScenario, rs: readonly LedgerRelease[], now = new Date()): Promise<Recorded[]> {
  checkShape(OBJECT, store, 'store');
  checkScenarioShape(scenario);
  checkShape(ARRAY, rs, 'releases');
  if (rs.length === 0) throw noRelease();
  rs.forEach((r, i) => {
    checkShape(OBJECT, r, `releases[${i}]`);
    checkRelease(r);
  });
  // First against the ledger as it stands, without the lock: a release that does not fit now never
  // will (more releases only raise the joint level), so its refusal — and the search for the scale
  // that would fit, which can take a while — holds up no other release.
  const snapshot = await store.read();
  const budget = usable(snapshot, scenario, store.label);
  const source = ofSource(snapshot.meta);
  placed(scenario, rs, snapshot.rows.length, source);
  const before = levelsAfter(scenario, snapshot.rows, rs, budget, source);
  const over = before.find((l) => !l.fits);
  // The refusal names the level the whole batch would bring (its last), not the first over budget.
  const all = before[before.length - 1];
  if (over) throw refusal(scenario, snapshot.rows, rs, all.fits ? over : all, budget, source);
  return store.exclusive((s) => {
    usable(s, scenario, store.label);
    placed(scenario, rs, s.rows.length, source);
    // Checked again under the lock: releases recorded meanwhile count too.
    const levels = s.rows.length === snapshot.rows.length ? before : levelsAfter(scenario, s.rows, rs, budget, source);
    const miss = levels.find((l) => !l.fits);
    if (miss)
      throw new InputError(
        `refused: the ${s.rows.length - snapshot.rows.length} release(s) recorded while this one was checked leave no room for it (joint level ${precisionUp(miss.level, 6)}, budget ${budgetWords(budget)}); run it again for the scale that still fits. Nothing was recorded or shown.`,
        'ledger',
      );
    const append: LedgerRow[] = [];
    let prev = s.rows.length ? s.rows[s.rows.length - 1].digest : s.meta.digest;
    rs.forEach((r, i) => {
      const fields = {
        seq: s.rows.length + i + 1,
        at: now.toISOString(),
        mechanism: r.mechanism,
        scale: r.scale,
        cost: r.cost ? r.cost.name : null,
        count: r.count,
        coordinateScales: r.coordinateScales ? JSON.stringify(r.coordinateScales) : null,
        query: r.query,
        level: levels[i].level,
        alpha: levels[i].alpha,
      };
      const row: LedgerRow = { ...fields, status: 'pending', digest: rowDigest(prev, fields) };
      prev = row.digest;
      append.push(row);
    });
    return { append, result: append.map((row, i) => ({ seq: row.seq, level: levels[i], budget })) };
  });
}

/** The batch's releases as the accountant's groups, after `recorded` releases (a source ledger's coordinates follow on). */
const batchGroups = (rs: readonly LedgerRelease[], recorded: number, source: boolean): ReleaseGroup[] =>
  rs.map(({ query: _q, position: _p, ...g }, i) => ({ ...g, ...(source ? { coordinates: [recorded + i] } : {}) }));

/** The joint level after each release of the batch, in order, on top of the recorded rows. */
function levelsAfter(scenario: LedgerScenario, rows: readonly LedgerRow[], rs: readonly LedgerRelease[], b: Budget, source: boolean): BudgetLevel[] {
  const all = [...groupsOf(rows, source), ...batchGroups(rs, rows.length, source)];
  return rs.map((_, i) => budgetLevel(scenario, all.slice(0, rows.length + i + 1), b));
}

/**
 * Each release of a batch lands where it was meant to: at its `position`, and in a source ledger on
 * the coordinate its statistic has in the scenario (built for the releases recorded when it was).
 */
function placed(scenario: LedgerScenario, rs: readonly LedgerRelease[], recorded: number, source: boolean): void {
  rs.forEach((r, i) => {
    checkPosition(r, recorded + i);
  });
  if (source && lawDimension(scenario) !== recorded + rs.length)
    throw new InputError(
      `refused: the statistics' joint law was built for ${lawDimension(scenario) - rs.length} recorded release(s), but the ledger now has ${recorded} (another was recorded meanwhile); run it again. Nothing was recorded or shown.`,
      'ledger',
    );
}

/** A release bound to a position is refused where the ledger has moved past it (`recorded` releases so far). */
function checkPosition(r: LedgerRelease, recorded: number): void {
  if (r.position !== undefined && r.position !== recorded + 1)
    throw new InputError(
      `refused: this release was to be release ${r.position}, but the ledger now has ${recorded} (another was recorded meanwhile); run it again. Nothing was recorded or shown.`,
      'ledger',
    );
}

/** Most draws one ledger entry may record (as the CLI's --count). */
const MAX_DRAWS = 1_000_000;

/** A release as the ledger can record it: every field checked, so a stored entry always reads back the same. */
function checkRelease(r: LedgerRelease): void {
  if (!(MECHANISMS as readonly string[]).includes(r.mechanism)) throw unknownName('mechanism', String(r.mechanism), MECHANISMS, 'mechanism', '');
  checkSetting('scale', r.scale);
  if (!Number.isSafeInteger(r.count) || r.count < 1 || r.count > MAX_DRAWS)
    throw new InputError(`must be a whole number in [1, ${MAX_DRAWS}], got ${String(r.count)}`, 'count');
  if (r.cost !== undefined && !Object.values(costs).includes(r.cost))
    throw new InputError(`must be one of the named costs (${Object.keys(costs).join(', ')}): a ledger records costs by name`, 'cost');
  if (typeof r.query !== 'string' || r.query.length > 10_000) throw new InputError('must be a text of at most 10,000 characters', 'query');
  if (r.position !== undefined && !(Number.isSafeInteger(r.position) && r.position >= 1)) throw new InputError('must be a whole number ≥ 1', 'position');
  if (
    r.coordinateScales !== undefined &&
    !(Array.isArray(r.coordinateScales) && r.coordinateScales.every((w) => typeof w === 'number' && w > 0 && Number.isFinite(w)))
  )
    throw new InputError('must be finite numbers > 0', 'coordinateScales');
}

/** A release the ledger refused, with the smallest scale that would fit (null: none; in a source ledger, on one unit's contribution). */
export class LedgerRefusal extends InputError {
  constructor(
    reason: string,
    path: string,
    readonly fit: number | null,
  ) {
    super(reason, path);
  }
}

/** The refusal of a release that does not fit: the budget, the level it would reach, and the smallest scale that would fit. */
function refusal(
  scenario: LedgerScenario,
  rows: readonly LedgerRow[],
  rs: readonly LedgerRelease[],
  level: BudgetLevel,
  budget: Budget,
  source: boolean,
): InputError {
  const at = level.alpha === Infinity ? '∞' : level.alpha;
  const r = rs[0];
  const unit = source ? " on one unit's contribution" : '';
  const what =
    rs.length > 1
      ? `these ${rs.length} releases (one per group)`
      : `this one (${r.mechanism}, scale ${r.scale}${unit}${r.count > 1 ? `, ${r.count} draws` : ''})`;
  const head = `refused: with the ${rows.length} release(s) recorded, ${what} would bring the joint level to ${precisionUp(level.level, 6)}${budgetLevelWhere(budget, at)}, over the ledger's budget ${budgetWords(budget)}`;
  // A batch's groups have scales of their own: there is no one scale to name (a smaller ε per release is the remedy).
  if (rs.length > 1) return new InputError(`${head}; release them with less ε each (more noise). Nothing was recorded or shown.`, 'ledger');
  const past = groupsOf(rows, source);
  const [next] = batchGroups([{ ...r, scale: 1 }], rows.length, source);
  const { scale: _s, ...shape } = next;
  // The search starts where `account --next` starts it (the largest recorded scale, at least 1; tiny
  // scales are slow to account): the scale named is then the same, whatever the scale refused.
  const fit = smallestFittingScale(scenario, past, shape, budget, Math.max(1, ...past.map((g) => g.scale)));
  return new LedgerRefusal(
    `${head}; ${
      fit === null
        ? `no scale of ${r.mechanism} noise fits: with the recorded releases, the certified joint level stays over the budget however large the scale (the recorded releases' own level, or the upper bound that joins them with this noise), or this noise has no finite level at the budget's orders (Gaussian noise at α = ∞)`
        : `the smallest scale that still fits is ${fit}${source ? `${unit} (a sum's or count's scale; a mean's or share's is that ÷ n)` : ` (release with --scale ${fit})`}`
    }. Nothing was recorded or shown.${source ? '' : exactFamilyHint(scenario, rows.reduce((n, x) => n + x.count, 0) + r.count, r.mechanism, budget)}`,
    'ledger',
    fit,
  );
}

/**
 * Releases of one value by Laplace-shaped noise are accounted by a coupled bound that grows
 * quickly with their number, where Gaussian noise composes exactly (N releases at σ are one at
 * σ/√N): at a finite order the refusal says what N Gaussian releases from the start would need.
 */
function exactFamilyHint(scenario: LedgerScenario, n: number, mechanism: Mechanism, budget: Budget): string {
  // A series' windows are different values, one release each: the hint is about repeats of one value.
  const hint = () => repeatHint(scenario, n, mechanism, budget);
  return byLaw(scenario, { finite: hint, points: hint, mixture: hint, windows: () => '' }, 'a refusal hint');
}

function repeatHint(scenario: LedgerScenario, n: number, mechanism: Mechanism, budget: Budget): string {
  // The family whose releases of one value compose exactly (a sufficient statistic: Gaussian).
  const exact = MECHANISMS.find((m) => mechanismDef(m).sufficientScale);
  if (!exact || mechanismDef(mechanism).sufficientScale || budget.alphas.every((a) => a === Infinity)) return '';
  const scale = smallestFittingScale(scenario, [], { mechanism: exact, count: n }, budget, 1);
  if (scale === null) return '';
  const sym = mechanismDef(exact).symbol;
  return ` Releases of one value compose poorly with ${mechanism} noise here, exactly with ${exact} noise: a ledger of ${n} ${exact} releases from the start fits this budget at ${sym} = ${precisionUp(scale, 4)} each (plan a year with 'calibrate … --mechanism ${exact} --releases N').`;
}

const budgetLevelWhere = (b: Budget, at: number | string) => (b.delta !== undefined ? ` (ε′ at δ = ${b.delta}, via α = ${at})` : ` (D_α at α = ${at})`);

/**
 * Marks a recorded release as shown: its values reached the output.
 * @example const store = ledgerStore(`${scratch}/year.ledger`); // scratch: a folder of yours
 * await initLedger(store, builtinScenario('heart'), { alphas: [2], epsilon: 3 });
 * const { seq } = await recordRelease(store, builtinScenario('heart'), { mechanism: 'gaussian', scale: 2, count: 1, query: 'oldpeak' });
 * await confirmShown(store, seq);
 * (await store.read()).rows[0].status // 'shown'
 */
export async function confirmShown(store: LedgerStore, seq: number): Promise<void> {
  await store.markShown([seq]);
}

/** A ledger's releases and levels, as `ledger show` prints them. */
export interface LedgerReport {
  label: string;
  meta: LedgerMeta;
  budget: Budget;
  rows: LedgerRow[];
  /** Recomputed with the laws when they were given: the joint level per α and the naive sum. */
  current: BudgetLevel | null;
  problems: string[];
  /** Recorded levels the accountant now computes lower (a tighter accountant since): safe, said. */
  notes: string[];
}

/**
 * Reads a ledger and re-verifies it: the chain of digests, the numbering, and — when the
 * scenario is given — that it is the ledger's laws, that every prefix of the releases was within
 * the budget at the level recorded (recomputed by the joint accountant), and the current level.
 * Never changes the ledger.
 * @example const store = ledgerStore(`${scratch}/year.ledger`); // scratch: a folder of yours
 * await initLedger(store, builtinScenario('heart'), { alphas: [2], epsilon: 3 });
 * (await checkLedger(store, builtinScenario('heart'))).problems // []
 */
export async function checkLedger(store: LedgerStore, laws?: LedgerScenario | ((released: number) => LedgerScenario)): Promise<LedgerReport> {
  const s = await store.read();
  const problems = chainProblems(s);
  const notes: string[] = [];
  const budget = budgetOf(s.meta, store.label);
  let current: BudgetLevel | null = null;
  // A source ledger's laws are those of the prior class as it stood after each release (a per-group
  // release makes its group column public from then on): given per number of releases.
  const at = (k: number) => (typeof laws === 'function' ? laws(k) : laws!);
  const scenario = laws === undefined ? undefined : at(s.rows.length);
  if (scenario) {
    if (s.meta.laws !== lawsDigest(scenario)) problems.push(`the laws given are not the ledger's (it was opened for scenario '${s.meta.scenario}')`);
    else if (s.rows.length) {
      const groups = groupsOf(s.rows, ofSource(s.meta));
      const older = accountantOf(s.meta) < ACCOUNTANT;
      s.rows.forEach((r, i) => {
        const l = budgetLevel(at(i + 1), groups.slice(0, i + 1), budget);
        if (!l.fits) problems.push(`after release ${r.seq} the joint level ${l.level} exceeds the budget`);
        const drift = levelDrift(r.level, l.level);
        // Lower is a tighter accountant's only in a ledger an older one opened; elsewhere the record is not the accountant's.
        if (drift === 'lower' && older)
          notes.push(
            `release ${r.seq} was recorded at level ${precisionUp(r.level, 6)} (α = ${numberText(r.alpha)}) by an earlier accountant (version ${accountantOf(s.meta)}); this one certifies ${precisionUp(l.level, 6)} (α = ${numberText(l.alpha)}): a tighter bound, the recorded level still an upper bound`,
          );
        else if (drift !== 'same') problems.push(`release ${r.seq} recorded level ${r.level}, recomputed ${l.level}`);
      });
      current = budgetLevel(scenario, groups, budget);
    }
  } else
    s.rows.forEach((r) => {
      if (!(r.level <= budget.epsilon)) problems.push(`release ${r.seq} was recorded at level ${r.level}, over the budget ε = ${budget.epsilon}`);
    });
  return { label: store.label, meta: s.meta, budget, rows: s.rows, current, problems, notes };
}

/** The accountant version that opened a ledger (1: before the version was kept). */
const accountantOf = (m: LedgerMeta): number => (m.accountant === undefined ? 1 : Number(m.accountant));

/**
 * A recomputed level against the recorded one. Equal up to the last bits of a recomputation is the
 * same level; lower is a tighter accountant than the one that recorded it (the recorded level, an
 * upper bound, still holds); higher means the record understated its level — a problem.
 */
function levelDrift(recorded: number, recomputed: number): 'same' | 'lower' | 'higher' {
  if (Math.abs(recomputed - recorded) <= 1e-9 * Math.max(1, Math.abs(recorded))) return 'same';
  return recomputed < recorded ? 'lower' : 'higher';
}
