import type { AnyScenario } from '../distribution/lawKind.js';
import type { Command } from 'commander';
import type { ReleaseGroup } from '../account/budget.js';
import { InputError } from '../errors.js';
import type { LedgerRefusal, LedgerReport } from '../ledger/ledger.js';
import { setCommandExit, EXIT } from './exitCode.js';
import { asFlagError, parseDelta, refuseIn, settingOption } from './flags.js';
import { jsonNumber, naiveText, numUp, table, jsonText } from './format.js';
import { parseGrid } from './grid.js';
import { byLaw } from '../distribution/lawKind.js';
import { ledgerLaws, loadScenario, statisticsSourceOf, withSourceOptions, type CalibrateOptions } from './input.js';
import { recordedLabel, recordedStatistic } from '../api/sourceLedger.js';
import { isSourceBound } from '../ledger/ledger.js';
import type { Budget } from '../account/budget.js';
import type { Scenario } from '../distribution/scenario.js';
import type { PointScenario } from '../distribution/points.js';
import type { WindowScenario } from '../markov/windowScenario.js';
import { windowContribution } from '../calibrate/windows.js';

interface LedgerOptions extends CalibrateOptions {
  ledger?: string;
}

const alphaText = (a: number) => (a === Infinity ? '∞' : String(a));

/** The store `--ledger` names, its errors on the flag. */
async function storeOf(location: string | undefined) {
  if (location === undefined) throw new InputError('is required (a ledger file, or a postgres:// URL)', '--ledger');
  const { ledgerStore } = await import('../ledger/store.js');
  try {
    return ledgerStore(location);
  } catch (e) {
    throw e instanceof InputError && e.path === 'ledger' ? new InputError(e.reason, '--ledger') : e;
  }
}

/** Runs a ledger call with its errors named by flag. */
async function flagged<T>(f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    throw asFlagError(e);
  }
}

/** Whether a source was named (show and check recompute the levels when it was). */
const hasSource = (o: LedgerOptions) => !!(o.spec || o.scenario || o.data);

/**
 * A release's entry in the ledger, made before its values are shown: `record` checks the joint
 * budget and appends (or throws, nothing shown); `shown` marks it once the values are out.
 */
export async function ledgerEntry(
  location: string,
  scenario: Scenario | PointScenario,
  release: ReleaseGroup & { query: string; position?: number },
  /** Rewords a refusal that names the scale that would fit (a statistic's: in its own units). */
  refused?: (e: LedgerRefusal) => Error,
): Promise<{ seq: number; level: number; alpha: number; budget: string; shown(): Promise<void> }> {
  const store = await storeOf(location);
  const { recordRelease, confirmShown, budgetText, LedgerRefusal } = await import('../ledger/ledger.js');
  const r = await flagged(() =>
    recordRelease(store, scenario, release).catch((e) => {
      throw refused && e instanceof LedgerRefusal ? refused(e) : e;
    }),
  );
  return {
    seq: r.seq,
    level: r.level.level,
    alpha: r.level.alpha,
    budget: budgetText(r.budget),
    shown: () => confirmShown(store, r.seq),
  };
}

/** Reads the ledger once (no laws needed): a missing, unreadable or tampered ledger is refused before any work. */
export async function ledgerReadable(location: string): Promise<void> {
  const store = await storeOf(location);
  await flagged(() => store.read());
}

/** The ledger's budget and releases for `scenario`, checked first (its laws, its chain). */
export async function ledgerPast(location: string, scenario: AnyScenario) {
  const store = await storeOf(location);
  const { ledgerFor } = await import('../ledger/ledger.js');
  return flagged(() => ledgerFor(store, scenario));
}

async function runInit(o: LedgerOptions & { json?: boolean }): Promise<void> {
  const store = await storeOf(o.ledger);
  if (!o.alpha) throw new InputError('is required: the Rényi order(s) the budget holds at (with --delta: the orders searched)', '--alpha');
  if (!o.epsilon) throw new InputError('is required: the total budget every release together must keep', '--epsilon');
  const alphas = parseGrid(o.alpha, 'alpha', true);
  if (new Set(alphas).size !== alphas.length) throw new InputError(`names an order twice in '${o.alpha}'`, '--alpha');
  const epsilons = parseGrid(o.epsilon, 'epsilon');
  if (epsilons.length !== 1) throw new InputError('takes one budget', '--epsilon');
  const delta = parseDelta(o.delta, undefined);
  const budget = { alphas, epsilon: epsilons[0], ...(delta !== undefined ? { delta } : {}) };
  if (opensSource(o)) return initSource(o, store, budget);
  // A spec's statistic opens a laws ledger on one unit's contribution laws (its values typed at each release).
  const loaded = await loadScenario(o, { vector: true, windows: true, statistic: o.spec !== undefined });
  const scenario = ledgerLaws(loaded.scenario, loaded.d);
  const windows = byLaw(scenario, { finite: () => false, points: () => false, mixture: () => false, windows: () => true }, 'a ledger');
  if (windows && o.groupBy !== undefined)
    throw new InputError(
      "is not taken by a series' window ledger: its releases are the counts of one series; open it on one sequence (a table of its rows)",
      '--group-by',
    );
  if (alphas.includes(Infinity) && windows)
    throw new InputError("a series' window ledger holds at finite orders α > 1 (the path-coupled bound has no finite level at α = ∞)", '--alpha');
  // A window query the bounds cannot take (a decimal value of a sum) is refused now, not at every release.
  if (windows) windowContribution((scenario as WindowScenario).model);
  const { initLedger } = await import('../ledger/ledger.js');
  const meta = await flagged(() => initLedger(store, scenario, { alphas, epsilon: epsilons[0], ...(delta !== undefined ? { delta } : {}) }));
  const series = (scenario as WindowScenario).lawKind === 'windows' ? seriesWords(scenario as WindowScenario) : null;
  process.stdout.write(
    o.json
      ? `${jsonText({ ledger: store.label, scenario: meta.scenario, laws: meta.laws, budget: JSON.parse(meta.budget), created: meta.created, ...(series ? { series } : {}) })}\n`
      : `opened ledger ${store.label} for '${meta.scenario}' (laws ${meta.laws.slice(0, 19)}…)\nbudget: ${budgetLine(JSON.parse(meta.budget))}, for every release recorded here together\nassumes: ${assumes(meta.scenario)}\n${series ? `series: ${series}\n` : ''}`,
  );
}

/**
 * What a series' ledger opened on a table keeps, in words: the chain as estimated now, the windows
 * and where the series starts, so that windows whose rows arrive later are read under that chain.
 */
function seriesWords(s: Pick<WindowScenario, 'origin' | 'lengths' | 'labels'>): string | null {
  const r = s.origin;
  if (!r) return null;
  const from = r.start === null ? "the table's first row" : r.start;
  return `the chain estimated from the table's ${r.rows} rows when the ledger was opened, ${s.lengths.length} windows (${s.labels[0]} … ${s.labels[s.labels.length - 1]}) and the series' start (${from}) are recorded in the ledger: each release reads its window's count from the table as its rows arrive, under that chain (rows added later do not change it)`;
}

/** `seriesWords` of a ledger's series record, or what it is where it does not read. */
function recordWords(record: string): string {
  try {
    return seriesWords(JSON.parse(record)) ?? 'recorded';
  } catch {
    return 'its record does not read as JSON';
  }
}

/** A ledger opened on a table without a query is a source ledger: it takes any statistic of the table afterwards. */
const opensSource = (o: LedgerOptions) => o.data !== undefined && o.query === undefined && o.sequence === undefined;

/** `ledger init --data T --secret-column S [--unit U]`: a source ledger, bound to the table's rows, the secret and the unit. */
async function initSource(o: LedgerOptions & { json?: boolean }, store: Awaited<ReturnType<typeof storeOf>>, budget: Budget): Promise<void> {
  const { sourceIdentity, checkStatisticsSource } = await import('../api/sourceLedger.js');
  refuseIn('ledgerInit', o);
  const src = statisticsSourceOf(o);
  await flagged(() => checkStatisticsSource(src));
  const { identity, name, rows } = await flagged(() => sourceIdentity(src));
  const { initLedger } = await import('../ledger/ledger.js');
  const meta = await flagged(() => initLedger(store, { identity, name }, budget));
  // The draws are held in memory with the statistics' joint values: past this many, a release is refused (the class is fixed here).
  const { MAX_DRAWN_ROWS } = await import('../sources/unitWeights.js');
  if (src.prior && rows * src.prior.draws > MAX_DRAWN_ROWS)
    process.stderr.write(
      `note: bootstrap:${src.prior.draws} holds statistics whose joint values take at most ${Math.floor(MAX_DRAWN_ROWS / src.prior.draws)} distinct rows (this table has ${rows} rows); a release past that is refused, and this ledger's class cannot be lowered later\n`,
    );
  process.stdout.write(
    o.json
      ? `${jsonText({ ledger: store.label, scenario: meta.scenario, source: meta.laws, rows, budget: JSON.parse(meta.budget), created: meta.created })}\n`
      : `opened ledger ${store.label} for '${meta.scenario}' (${rows} rows, fingerprint ${meta.laws.slice(14, 26)}…)\nbudget: ${budgetLine(JSON.parse(meta.budget))}, for every release recorded here together\nassumes: ${ONE_SOURCE}\n`,
  );
}

/** What a source ledger assumes, said at init, at every release and in show. */
export const ONE_SOURCE =
  "each release recorded here is a statistic of this table (release --data … --query sum:|mean:|count|share: --ledger), computed by the tool; the joint level is that of the vector of every recorded statistic, one unit's contributions (docs/math.md §20); n is public, units are independent of each other, a --group-by column is public from its first release on, and the table must not change (its rows are fingerprinted)";

/**
 * What a laws ledger assumes, said at init, at every release and in show: it accounts repeats of
 * one value, not different statistics (a typed value could be a statistic of anything).
 */
const ONE_VALUE =
  'every release recorded here is taken to be of one and the same value of these laws (a repeat of one query on one table); a different statistic of the same people is not accounted here, and budgets of two ledgers do not add up';

/** What a series' window ledger assumes: its releases are the series' windows, one each, in order. */
const ONE_WINDOW_EACH =
  'each release recorded here is the next window of this series, in order, once; the joint level is the boundary-coupled bound over the windows released (per pair the smaller of it and the path-coupled bound; the path-coupled alone for noise without an exact accountant; docs/math.md §19)';

/** The assumption a ledger states, by the name its law source gave it (a series' windows are named "… per window over …"). */
const assumes = (scenario: string, laws = '') => (isSourceBound(laws) ? ONE_SOURCE : / per window over /.test(scenario) ? ONE_WINDOW_EACH : ONE_VALUE);

const budgetLine = (b: { alphas: (number | 'inf')[]; epsilon: number; delta?: number }) =>
  b.delta !== undefined
    ? `(ε = ${b.epsilon}, δ = ${b.delta})-Pufferfish through the best of α ∈ {${b.alphas.map((a) => (a === 'inf' ? '∞' : a)).join(', ')}}`
    : `(α, ε = ${b.epsilon})-Rényi Pufferfish at every α ∈ {${b.alphas.map((a) => (a === 'inf' ? '∞' : a)).join(', ')}}`;

async function report(o: LedgerOptions): Promise<LedgerReport> {
  const store = await storeOf(o.ledger);
  const { checkLedger } = await import('../ledger/ledger.js');
  if (opensSource(o)) {
    const { sourceLedgerLaws } = await import('../api/sourceLedger.js');
    const laws = await flagged(async () => sourceLedgerLaws(store, statisticsSourceOf(o)));
    // Nothing recorded yet: the ledger is shown as it stands (it is its source's: checked above).
    return flagged(() => checkLedger(store, laws));
  }
  const loaded = hasSource(o) ? await loadScenario(o, { vector: true, windows: true, statistic: o.spec !== undefined, ledger: o.ledger }) : undefined;
  const scenario = loaded && ledgerLaws(loaded.scenario, loaded.d);
  const r = await flagged(() => checkLedger(store, scenario));
  // A series' windows released from a table: their rows must still be where they were.
  if ((o as { window?: string }).window !== undefined && o.data !== undefined && o.ledger !== undefined) {
    const { releasedSpanProblems } = await import('./windowSpans.js');
    r.problems.push(...(await flagged(() => releasedSpanProblems(o, o.ledger!, r.rows))));
  }
  return r;
}

/** A series' record for JSON readers: where the series lies and its windows (the chain's spec stays in the ledger). */
function seriesJson(record: string | undefined) {
  if (record === undefined) return {};
  try {
    const { origin, labels } = JSON.parse(record);
    return {
      series: {
        sequence: origin.sequence,
        orderBy: origin.orderBy,
        query: origin.query,
        window: origin.window,
        start: origin.start,
        rows: origin.rows,
        windows: labels,
      },
    };
  } catch {
    return { series: null };
  }
}

function reportJson(r: LedgerReport) {
  return {
    ledger: r.label,
    scenario: r.meta.scenario,
    laws: r.meta.laws,
    ...seriesJson(r.meta.series),
    budget: JSON.parse(r.meta.budget),
    releases: r.rows.map((x) => {
      const statistic = recordedStatistic(x.query);
      return { ...x, ...(statistic ? { statistic } : {}), level: jsonNumber(x.level), alpha: x.alpha === Infinity ? 'inf' : x.alpha };
    }),
    current: r.current && {
      level: jsonNumber(r.current.level),
      alpha: r.current.alpha === Infinity ? 'inf' : r.current.alpha,
      rows: r.current.accounting.rows.map((row) => ({
        alpha: row.alpha === Infinity ? 'inf' : row.alpha,
        joint: jsonNumber(row.divergence),
        naiveSum: jsonNumber(row.naiveSum),
        method: row.method,
      })),
      ...(r.current.accounting.epsilonDelta ? { epsilonDelta: r.current.accounting.epsilonDelta } : {}),
    },
    problems: r.problems,
    notes: r.notes,
  };
}

/** A recorded query for people: a source ledger's statistic in words (it is stored as JSON). */
const queryText = (q: string) => {
  const st = recordedStatistic(q);
  return st ? recordedLabel(st) : q;
};

/**
 * Where the joint level is a bound (coupled, chained), the releases' own levels in the naive sum may
 * be bounds too: the two are compared as bounds, and neither shows that adding levels understates.
 */
function boundsNote(rows: readonly { method: string }[]): string {
  return rows.some((row) => row.method !== 'exact' && row.method !== 'data-processing')
    ? "\n(where 'how' is not exact, the joint level is an upper bound, and the releases' own levels summed in the naive Σ may be bounds too)"
    : '';
}

/** A scale recorded for a mean or share is one unit's contribution's (the statistic's own times n): said where one is listed. */
function scaleNote(r: LedgerReport): string {
  const perUnit = r.rows.some((x) => {
    const st = recordedStatistic(x.query);
    return st !== null && /^(mean|share)\b/.test(st.query);
  });
  return perUnit ? "\n(scale: on one unit's contribution, as accounted; a mean's or share's own scale is it divided by its n)" : '';
}

function reportText(r: LedgerReport): string {
  // A series' record for people; a damaged one is among the report's problems (the digest covers it).
  const series = r.meta.series === undefined ? null : recordWords(r.meta.series);
  const head = `ledger ${r.label} for '${r.meta.scenario}'\nbudget: ${budgetLine(JSON.parse(r.meta.budget))}\nassumes: ${assumes(r.meta.scenario, r.meta.laws)}\n${series ? `series: ${series}\n` : ''}`;
  const rows = r.rows.map((x) => [
    String(x.seq),
    x.at,
    x.mechanism + (x.cost ? ` (${x.cost})` : ''),
    numUp(x.scale),
    String(x.count),
    queryText(x.query),
    numUp(x.level),
    alphaText(x.alpha),
    x.status === 'shown' ? 'shown' : 'pending (counted; its values may not have been shown)',
  ]);
  const releases = r.rows.length
    ? table(['#', 'recorded', 'mechanism', 'scale', 'draws', 'query', 'joint level', 'at α', 'status'], rows, [0, 3, 4, 6])
    : '(no release recorded yet)';
  const scales = r.rows.length ? scaleNote(r) : '';
  const current = r.current
    ? `\n\njoint level of all ${r.rows.length} release(s) now (joint accountant), with the naive sum beside it (Pufferfish levels do not add up):\n${table(
        ['α', 'joint D_α ≤', 'naive Σ', 'how'],
        r.current.accounting.rows.map((row) => [alphaText(row.alpha), numUp(row.divergence), naiveText(row.naiveSum), row.method]),
        [0, 1, 2],
      )}${boundsNote(r.current.accounting.rows)}${r.current.accounting.epsilonDelta ? `\n(ε, δ): ε′ = ${numUp(r.current.accounting.epsilonDelta.epsilon)} at δ = ${r.current.accounting.epsilonDelta.delta} (α = ${alphaText(r.current.accounting.epsilonDelta.alpha)})` : ''}`
    : r.problems.length
      ? `\n\nthe joint level is not recomputed:\n${r.problems.map((p) => `  ${p}`).join('\n')}`
      : r.rows.length
        ? '\n\n(give the ledger’s source — --spec, --scenario or --data … — to recompute the joint level per α and the naive sum)'
        : '';
  return `${head}\n${releases}${scales}${current}${notesText(r)}\n`;
}

/** The report's notes (recorded levels a tighter accountant now computes lower), one per line. */
const notesText = (r: LedgerReport) => (r.notes.length ? `\n${r.notes.map((n) => `note: ${n}`).join('\n')}` : '');

/** `ledger show` (and `account --ledger L --data T` on a source ledger): the recorded releases, and with the source the joint level per α. */
export async function runShow(o: LedgerOptions & { json?: boolean }): Promise<void> {
  const r = await report(o);
  process.stdout.write(o.json ? `${jsonText(reportJson(r))}\n` : reportText(r));
}

async function runCheck(o: LedgerOptions & { json?: boolean }): Promise<void> {
  const r = await report(o);
  const ok = r.problems.length === 0;
  if (!ok) setCommandExit(EXIT.checkFailed);
  if (o.json) {
    process.stdout.write(`${jsonText({ ...reportJson(r), verdict: ok ? 'pass' : 'fail' })}\n`);
    return;
  }
  process.stdout.write(
    ok
      ? `ledger ${r.label}: ${r.rows.length} release(s), chain of digests intact, every recorded level within the budget${r.current ? ` (recomputed with the laws: now ${numUp(r.current.level)} at α = ${alphaText(r.current.alpha)})` : hasSource(o) ? ' (the laws are the ledger’s)' : ' (give the source to recompute the levels)'}${notesText(r)}\nverdict: pass\n`
      : `ledger ${r.label}:\n${r.problems.map((p) => `  ${p}`).join('\n')}${notesText(r)}\nverdict: fail (${r.problems.length} problem(s))\n`,
  );
}

/** Registers `ledger init | show | check`. */
export function ledgerCommand(program: Command): void {
  const ledger = program
    .command('ledger')
    .description('A release ledger: one budget for every release of one quantity, shared by a team (DuckDB file or PostgreSQL).');
  withSourceOptions(ledger.command('init'))
    .description('Open a ledger: fix the budget and the laws (scenario) it protects.')
    .addOption(settingOption('ledger', 'the ledger: a new file (DuckDB) or postgres://…/db[#name]').makeOptionMandatory())
    .addOption(settingOption('spec'))
    .addOption(settingOption('scenario'))
    .addOption(settingOption('alpha', 'Rényi order(s): the budget holds at every one (with --delta: the orders searched)', { noDefault: true }))
    .addOption(settingOption('epsilon', 'the total budget of every release together', { noDefault: true }))
    .addOption(settingOption('delta', 'an (ε, δ) budget instead of Rényi', { noDefault: true }))
    .addOption(settingOption('window', "with --sequence: a ledger for the series' window counts, released one window at a time"))
    .addOption(settingOption('start'))
    .addOption(settingOption('json', 'print the ledger opened as JSON'))
    .action((o) => runInit(o));
  // show and check read the same options: the ledger, and optionally its source to recompute the levels.
  const reader = (name: string, description: string, json: string) =>
    withSourceOptions(ledger.command(name))
      .description(description)
      .addOption(settingOption('ledger', 'the ledger').makeOptionMandatory())
      .addOption(settingOption('spec', 'scenario spec (JSON), to recompute the levels'))
      .addOption(settingOption('scenario', 'built-in scenario, to recompute the levels'))
      .addOption(settingOption('window', "with --sequence: the series' windows, to recompute the levels"))
      .addOption(settingOption('start'))
      .addOption(settingOption('json', json));
  reader('show', 'List the recorded releases, and (with the source) the joint level per α beside the naive sum.', 'print the ledger as JSON').action((o) =>
    runShow(o),
  );
  reader(
    'check',
    'Re-verify the ledger: its chain of digests, numbering and budget (with the source: every level recomputed). Exit 1 on a problem.',
    'print the check as JSON',
  ).action((o) => runCheck(o));
}
