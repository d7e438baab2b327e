import type { Command } from 'commander';
import type { Accounting, Release } from '../account/rows.js';
import { MECHANISMS, type Mechanism } from '../calibrate/calibrate.js';
import { mechanismDef, noiseOptions } from '../mechanisms/registry.js';
import { isNotApplicable } from '../mechanisms/mechanism.js';
import { InputError, NumericalError, unknownName } from '../errors.js';
import { decimalValue } from '../numerics/float.js';
import { numberText } from '../numerics/decimal.js';
import { BUILTIN_IDS } from '../scenarios/builtin.js';
import { asFlagError, collect, fromSetting, gridSetting, parseCost, parseDelta, refuseIn, checkColumnNames, settingOption } from './flags.js';
import { toStatistic } from '../api/statisticLaws.js';
import { ACCOUNT_ORDERS, settingDefault, settingText } from '../settings.js';
import { jsonAlpha, jsonNumber, naiveText, numUp, table, jsonText } from './format.js';
import { parseGrid, parseNames } from './grid.js';
import {
  loadScenario,
  loadStatistic,
  loadPrivateGroups,
  checkGroupPrivate,
  parseCoordinateScales,
  parseStatisticFlag,
  refuseLatticeMean,
  parseThreads,
  statisticsSourceOf,
  withSourceOptions,
  type CalibrateOptions,
} from './input.js';
import type { AnyScenario } from '../distribution/lawKind.js';
import { progressBar, withTrials } from './progress.js';
import type { Budget, BudgetLevel, ReleaseGroup } from '../account/budget.js';

interface AccountOptions extends CalibrateOptions {
  ledger?: string;
  window?: string;
  release?: string[];
  delta?: string;
  next?: string;
  nextColumns?: string;
  start?: string;
}

/** A past release as typed: a vector query's release may name the columns (or 1-based coordinates) it published. */
type ParsedRelease = Release & { columns?: string[]; coordinates?: number[] };

/** `mechanism=gaussian,scale=1.2[,cost=abs][,columns=A+B | coordinates=1+2]`: one past release. */
export function parseRelease(text: string): ParsedRelease {
  const fields = new Map<string, string>();
  for (const part of text.split(',')) {
    const i = part.indexOf('=');
    const key = part.slice(0, i).trim(),
      value = part.slice(i + 1).trim();
    if (i <= 0 || !value) throw new InputError(`must be mechanism=M,scale=S[,cost=C], got '${text}'`, '--release');
    if (fields.has(key)) throw new InputError(`names '${key}' twice in '${text}'`, '--release');
    if (!['mechanism', 'scale', 'cost', 'columns', 'coordinates'].includes(key))
      throw new InputError(`unknown field '${key}' in '${text}' (mechanism, scale, cost, columns, coordinates)`, '--release');
    fields.set(key, value);
  }
  const mechanism = fields.get('mechanism');
  if (!mechanism || !(MECHANISMS as readonly string[]).includes(mechanism))
    throw new InputError(`needs mechanism=${MECHANISMS.join('|')} in '${text}'`, '--release');
  const scaleText = fields.get('scale') ?? '';
  const scale = decimalValue(scaleText);
  if (!(scale > 0) || !Number.isFinite(scale)) throw new InputError(`needs a finite scale > 0 in '${text}'`, '--release');
  const cost = parseCost(fields.get('cost'), mechanism, '--release', ` in '${text}'`);
  if (fields.has('columns') && fields.has('coordinates')) throw new InputError(`give columns or coordinates, not both, in '${text}'`, '--release');
  const columns = fields
    .get('columns')
    ?.split('+')
    .map((c) => c.trim());
  const coordText = fields
    .get('coordinates')
    ?.split('+')
    .map((c) => c.trim());
  if (coordText && !coordText.every((c) => /^[1-9]\d*$/.test(c)))
    throw new InputError(`coordinates are 1-based whole numbers joined by '+', in '${text}'`, '--release');
  checkColumnNames(columns, text, '--release');
  return {
    mechanism: mechanism as Mechanism,
    scale,
    ...(cost ? { cost } : {}),
    ...(columns ? { columns } : {}),
    ...(coordText ? { coordinates: coordText.map((c) => Number(c) - 1) } : {}),
  };
}

/** A ledger's release groups as typed releases, one per draw. */
function ledgerReleases(groups: readonly ReleaseGroup[]): ParsedRelease[] {
  return groups.flatMap((g) => Array.from({ length: g.count }, () => ({ mechanism: g.mechanism, scale: g.scale, ...(g.cost ? { cost: g.cost } : {}) })));
}

/**
 * Whether a plan fitted at the search's floor on the data's own divergence alone: then no noise is
 * needed (data processing: the noise-free value and every past release are functions of the data).
 */
const dataAlone = (scale: number, level: BudgetLevel) => scale < 1e-290 && level.fits && level.accounting.rows.every((r) => r.method === 'data-processing');

const NO_NOISE =
  "needs no noise: the data's own divergence keeps the ledger's budget with every recorded release (data processing), so the value itself, or any noise, fits";

/**
 * The groups a per-group plan or what-if releases, each with how a scale in the statistic's units
 * maps onto one unit's contribution: public groups each by its n (a mean's), private groups as they
 * are (sums and counts only: a private group's n is not released), with the groups a public release
 * leaves out.
 */
async function plannedGroups(o: AccountOptions, query: string, groupBy: string | undefined) {
  const st = parseStatisticFlag(query)!;
  if (o.groupPrivate) {
    checkGroupPrivate({ ...o, groupBy });
    const t = await loadPrivateGroups({ ...o, groupBy, given: undefined }, st);
    return { groups: t.groups.map((g) => ({ group: g.group, fromScale: (scale: number) => scale })), leftOut: [] as string[] };
  }
  const t = await loadStatistic({ ...o, groupBy, given: undefined }, st);
  return {
    groups: t.groups.map((g) => ({ group: g.group, fromScale: toStatistic(g).fromScale, units: g.units })),
    leftOut: t.skipped.map((x) => x.group),
  };
}

/**
 * `account --ledger L … --query STAT --group-by G --next M`: the smallest common scale, in the
 * statistic's units, at which one release per public group keeps the source ledger's budget (what
 * `release … --group-by G --scale S --ledger L` takes).
 */
async function accountNextGroups(o: AccountOptions, query: string, mechanism: Mechanism): Promise<void> {
  const groupBy = (o.groupBy ?? o.given)!;
  const { ledgerStore } = await import('../ledger/store.js');
  const { groupsFittingScale } = await import('../api/sourceLedger.js');
  const { groups, leftOut } = await plannedGroups(o, query, groupBy);
  let r: Awaited<ReturnType<typeof groupsFittingScale>>;
  try {
    r = await withTrials('plan', !o.json, (onTrial) =>
      groupsFittingScale(ledgerStore(o.ledger!), statisticsSourceOf(o), query, groupBy, groups, mechanism, !!o.groupPrivate, onTrial),
    );
  } catch (e) {
    throw asFlagError(e);
  }
  if (r === null)
    throw new InputError(`no ${mechanism} release of ${query} per ${groupBy} fits the ledger's budget: the recorded statistics have spent it`, '--next');
  const none = dataAlone(r.scale, r.level);
  const skipped = leftOut.length ? ` (left out, as a release leaves them: ${leftOut.join(', ')})` : '';
  const kind = o.groupPrivate ? ' private group of' : '';
  if (o.json) {
    process.stdout.write(
      `${jsonText({ statistic: query, groupBy, ...(o.groupPrivate ? { groupPrivate: true } : {}), groups: groups.map((g) => ({ group: g.group, ...('units' in g ? { units: g.units } : {}) })), mechanism, statisticScale: none ? 0 : jsonNumber(r.scale), ...(none ? {} : errorBar(mechanism, r.scale)), noNoise: none, level: jsonNumber(r.level.level), alpha: jsonAlpha(r.level.alpha) })}
`,
    );
    return;
  }
  if (none) return void process.stdout.write(`the next release of ${query} per${kind} ${groupBy} ${NO_NOISE}\n`);
  process.stdout.write(
    `the next release of ${query} per${kind} ${groupBy} (${groups.length} groups${skipped}) keeps the ledger's budget at ${mechanism} scale ${numUp(r.scale)} or more in the statistic's units, every group at it: release it with --group-by ${groupBy}${o.groupPrivate ? ' --group-private' : ''} --scale ${numUp(r.scale)} --ledger ${o.ledger}; the joint level would then be ${numUp(r.level.level)} (α = ${r.level.alpha === Infinity ? '∞' : r.level.alpha})\n${errorBarText(mechanism, r.scale)}`,
  );
}

/**
 * `account --ledger L --data T --secret-column S --query STAT --next M`: the smallest scale of the
 * next release of a statistic that keeps the source ledger's budget, on one unit's contribution and
 * in the statistic's own units (what `release … --scale S --ledger L` takes).
 */
async function accountNextStatistic(o: AccountOptions): Promise<void> {
  if (o.groupPrivate) checkGroupPrivate({ ...o, groupBy: o.groupBy ?? o.given, given: undefined });
  if (o.next === undefined && o.release?.length) return accountStatisticWhatIf(o);
  if (o.next !== undefined && o.release?.length)
    throw new InputError('is a what-if of typed releases; --next plans the next one: give one of them, not both', '--release');
  if (o.next === undefined)
    throw new InputError(
      "with a source ledger and --query, account plans the next statistic's scale (--next laplace|gaussian) or gives the level typed releases of it would bring (--release mechanism=M,scale=S); without --query, the joint level of what is recorded",
      '--next',
    );
  refuseBesideSourceLedger(o);
  const mechanism = parseNames(o.next, 'next', MECHANISMS)[0];
  const { ledgerStore } = await import('../ledger/store.js');
  const { nextStatisticScale } = await import('../api/sourceLedger.js');
  const query = o.query!.trim();
  if ((o.groupBy ?? o.given) !== undefined) return accountNextGroups(o, query, mechanism);
  const r = await (async () => {
    try {
      return await withTrials('plan', !o.json, (onTrial) =>
        nextStatisticScale(
          ledgerStore(o.ledger!),
          statisticsSourceOf(o),
          { query, ...(o.groupBy !== undefined ? { groupBy: o.groupBy, group: '' } : {}) },
          mechanism,
          onTrial,
        ),
      );
    } catch (e) {
      throw asFlagError(e);
    }
  })();
  if (r === null) throw new InputError(`no ${mechanism} release of ${query} fits the ledger's budget: the recorded statistics have spent it`, '--next');
  const none = dataAlone(r.scale, r.level);
  if (o.json) {
    process.stdout.write(
      `${jsonText({ statistic: query, mechanism, ...(none ? { scale: 0, statisticScale: 0, noNoise: true } : { scale: jsonNumber(r.scale), statisticScale: jsonNumber(r.inUnits), noNoise: false, ...errorBar(mechanism, r.inUnits) }), units: r.units, level: jsonNumber(r.level.level), alpha: jsonAlpha(r.level.alpha) })}\n`,
    );
    return;
  }
  if (none) return void process.stdout.write(`the next release of ${query} ${NO_NOISE}\n`);
  process.stdout.write(
    `the next release of ${query} keeps the ledger's budget at ${mechanism} scale ${numUp(r.scale)} or more on one unit's contribution, ${numUp(r.inUnits)} in the statistic's units (n = ${r.units}): release it with --scale ${numUp(r.inUnits)} --ledger ${o.ledger}; the joint level would then be ${numUp(r.level.level)} (α = ${r.level.alpha === Infinity ? '∞' : r.level.alpha})\n${errorBarText(mechanism, r.inUnits)}`,
  );
}

/** The half-width of a release's error bar at a planned scale (the statistic's units), at the default confidence. */
const halfWidthAt = (mechanism: Mechanism, scale: number) => mechanismDef(mechanism).halfWidth(scale, settingDefault('confidence'), noiseOptions({}));

/** The planned release's error bar for JSON readers. */
const errorBar = (mechanism: Mechanism, scale: number) => ({ halfWidth: jsonNumber(halfWidthAt(mechanism, scale)), confidence: settingDefault('confidence') });

/** The planned release's error bar for people, rounded up. */
const errorBarText = (mechanism: Mechanism, scale: number) =>
  `(at that scale each released value lies within ±${numUp(halfWidthAt(mechanism, scale))} of its true value with probability ${settingDefault('confidence')})\n`;

/**
 * `account --ledger L --data T --secret-column S --query STAT [--group-by G] --release M,scale=S …`:
 * the joint level the source ledger would reach with these releases of the statistic (each
 * `--release` one draw, its scale in the statistic's units as `release --scale` takes it; with
 * `--group-by`, every group's value at it), next to its budget. Nothing is recorded.
 */
async function accountStatisticWhatIf(o: AccountOptions): Promise<void> {
  refuseIn('sourceLedgerBudget', o);
  refuseIn('sourceWhatIf', o);
  const typed = (o.release ?? []).map(parseRelease).map((r) => {
    if (r.columns || r.coordinates)
      throw new InputError(
        "takes mechanism=M,scale=S for a statistic: its scale is in the statistic's units (columns and coordinates are a vector query's)",
        '--release',
      );
    // A source ledger accounts the vector of statistics: a family without product noise has no joint level there.
    const product = mechanismDef(r.mechanism).product;
    if (isNotApplicable(product)) throw new InputError(`mechanism=${r.mechanism} is not accounted in a source ledger: ${product.notApplicable}`, '--release');
    return { mechanism: r.mechanism, scale: r.scale, count: 1 };
  });
  const query = o.query!.trim();
  const groupBy = o.groupBy ?? o.given;
  // Groups of one secret value are left out, as a release with --leave-out-groups leaves them (without it, it refuses).
  const { groups, leftOut } = await plannedGroups(o, query, groupBy);
  const { ledgerStore } = await import('../ledger/store.js');
  const { statisticLevelWith } = await import('../api/sourceLedger.js');
  let level: BudgetLevel;
  try {
    level = await statisticLevelWith(ledgerStore(o.ledger!), statisticsSourceOf(o), query, groupBy, groups, typed, !!o.groupPrivate);
  } catch (e) {
    throw asFlagError(e);
  }
  const { accounting } = level;
  if (!o.json) return void process.stdout.write(whatIfText(query, groupBy, groups.length, leftOut, typed, level, !!o.groupPrivate));
  process.stdout.write(
    `${jsonText({
      statistic: query,
      ...(groupBy !== undefined ? { groupBy } : {}),
      ...(o.groupPrivate ? { groupPrivate: true } : {}),
      groups: groups.map((g) => ({ group: g.group, ...('units' in g ? { units: g.units } : {}) })),
      ...(leftOut.length ? { leftOut } : {}),
      releases: typed.map((r) => ({ ...r, perUnit: groups.map((g) => jsonNumber(g.fromScale(r.scale))) })),
      level: jsonNumber(level.level),
      alpha: jsonAlpha(level.alpha),
      fits: level.fits,
      rows: accounting.rows.map((row) => ({
        alpha: jsonAlpha(row.alpha),
        joint: jsonNumber(row.divergence),
        naiveSum: jsonNumber(row.naiveSum),
        method: row.method,
      })),
      ...(accounting.epsilonDelta ? { epsilonDelta: accounting.epsilonDelta } : {}),
      recorded: false,
    })}\n`,
  );
}

/** The what-if for people: what was typed, the level it would bring (ε′ for an (ε, δ) budget) and whether it keeps the budget, then the levels per α. */
function whatIfText(
  query: string,
  groupBy: string | undefined,
  groups: number,
  leftOut: readonly string[],
  typed: readonly { mechanism: string; scale: number }[],
  level: BudgetLevel,
  groupPrivate: boolean,
): string {
  // The scales as typed (not computed: nothing to round up).
  const what = typed.map((r) => `${r.mechanism} scale ${r.scale}`).join(', then ');
  const skipped = leftOut.length ? `; left out: ${leftOut.join(', ')}, rows of one secret value, which release refuses without --leave-out-groups` : '';
  const per = groupBy !== undefined ? ` per${groupPrivate ? ' private group of' : ''} ${groupBy} (${groups} groups, every group at it${skipped})` : '';
  const order = `α = ${numberText(level.alpha)}`;
  const e = level.accounting.epsilonDelta;
  const where = e
    ? `the (ε, δ) level would be ε′ = ${numUp(level.level)} at δ = ${e.delta} (through ${order})`
    : `the joint level would be ${numUp(level.level)} (${order})`;
  const verdict = level.fits
    ? "within the ledger's budget"
    : "over the ledger's budget: a release at these scales would be refused (account --next names the scale that fits, where one does)";
  const rows = level.accounting.rows.map((row) => [numberText(row.alpha), numUp(row.divergence), naiveText(row.naiveSum), row.method]);
  return `with the statistics recorded and ${query}${per} released at ${what} in the statistic's units, ${where}: ${verdict}. Nothing was recorded.\n${table(['α', 'joint D_α ≤', 'naive Σ', 'how'], rows, [0, 1, 2])}\n`;
}

/** A source ledger's budget and recorded releases apply: a budget or a typed release beside it is refused. */
function refuseBesideSourceLedger(o: AccountOptions): void {
  refuseIn('sourceLedgerBudget', o);
  refuseIn('sourceLedgerRecorded', o);
}

/** `account --ledger L --data T --secret-column S` on a source ledger: the recorded statistics' joint level per α. */
async function accountSourceLedger(o: AccountOptions): Promise<void> {
  if (o.release?.length)
    throw new InputError(
      'needs --query STAT on a source ledger: the statistic the typed releases are of (sum:COL, mean:COL, count:PREDICATE, share:PREDICATE)',
      '--release',
    );
  if (o.next !== undefined)
    throw new InputError('is required with --next on a source ledger: the statistic to plan (sum:COL, mean:COL, count[:PRED], share[:PRED])', '--query');
  refuseBesideSourceLedger(o);
  const { runShow } = await import('./ledgerCommand.js');
  await runShow(o);
}

/**
 * `account --ledger L --next M`: the smallest scale of one more release that keeps every
 * recorded release and it within the ledger's budget (every order, or the (ε, δ) target).
 */
async function runLedgerNext(
  o: AccountOptions,
  scenario: AnyScenario,
  groups: readonly ReleaseGroup[],
  releases: ParsedRelease[],
  budget: Budget,
): Promise<void> {
  const { smallestFittingScale, budgetLevel } = await import('../account/budget.js');
  const mechanism = parseNames(o.next!, 'next', MECHANISMS)[0];
  // A vector ledger's releases carry their coordinate weights; the next release takes the same.
  const recorded = groups.find((g) => g.coordinateScales)?.coordinateScales;
  const typed = parseCoordinateScales(o.coordinateScales);
  if (typed && recorded && JSON.stringify(typed) !== JSON.stringify(recorded))
    throw new InputError(`differ from the ledger's (${recorded.join(', ')}): every release of one ledger uses the same weights`, '--coordinate-scales');
  const coordinateScales = recorded ?? typed;
  const weights = coordinateScales ? { coordinateScales } : {};
  const typedPast = (o.release ?? [])
    .map(parseRelease)
    .map((r) => ({ mechanism: r.mechanism, scale: r.scale, count: 1, ...(r.cost ? { cost: r.cost } : {}), ...weights }));
  const past = [...groups.map((g) => ({ ...g, ...weights })), ...typedPast];
  if ('lengths' in scenario && past.length >= scenario.lengths.length)
    throw await (await import('./windowCommand.js')).pastLastWindow(scenario, past, mechanism, budget, o.window, o.json);
  const next = { mechanism, count: 1, ...weights };
  const scale = await withTrials('plan', !o.json, (onTrial) =>
    flaggedAccount(() => smallestFittingScale(scenario, past, next, budget, Math.max(1, ...past.map((g) => g.scale)), onTrial)),
  );
  if (scale === null)
    throw new InputError(
      `no further ${mechanism} release fits the ledger's budget: the certified joint level stays over it however large the scale (the recorded releases' own level, or the bound that joins them with this noise), or ${mechanism} noise has no finite level at one of the budget's orders (Gaussian noise at α = ∞)`,
      '--next',
    );
  const at = budgetLevel(scenario, [...past, { ...next, scale }], budget);
  if (!at.fits) throw new NumericalError(`the scale ${scale} found does not keep the ledger's budget on re-check`);
  const acc = past.length ? budgetLevel(scenario, past, budget).accounting : null;
  const data = dataAlone(scale, at);
  printAccount(o, scenario.name, releases, acc, {
    mechanism,
    alpha: at.alpha,
    epsilon: budget.epsilon,
    scale: data ? 0 : scale,
    method: data ? 'data-processing' : "the ledger's budget",
    binding: null,
    ...(budget.delta !== undefined ? { delta: budget.delta } : {}),
  });
}

async function flaggedAccount<T>(f: () => T): Promise<T> {
  try {
    return f();
  } catch (e) {
    throw asFlagError(e);
  }
}

const HOW = {
  exact: 'exact accountant',
  'exact (Gaussian mean)': 'exact, Gaussian releases as one at σ_eff (sufficient mean)',
  coupled: 'coupled bound, inner divergences summed over releases',
  chained: 'exact on one statistic or two releases, the others at their widest shift (chain rule, docs/math.md §20)',
  'path-coupled': 'path-coupled bound over the windows (docs/math.md §19)',
  'boundary-coupled': "boundary-coupled bound over the windows (the secret's window exactly, the others path-coupled; docs/math.md §19)",
  'group-dp': 'group DP: the whole series as one group (an α = ∞ level, so at every order)',
  'sup-at-atoms': 'exact sup at the atoms (α = ∞)',
  'data-processing': "data processing (the data's own divergence)",
  unbounded: 'Gaussian noise has no finite α = ∞ level',
} as const;

async function runAccount(o: AccountOptions): Promise<void> {
  const sourcePlan = o.ledger !== undefined && o.data !== undefined && o.sequence === undefined && o.query !== undefined && parseStatisticFlag(o.query);
  if (o.groupPrivate && !sourcePlan)
    throw new InputError(
      "goes with a source ledger's plan or what-if of a statistic per group (account --ledger L --data T --query STAT --group-by G --next M | --release …)",
      '--group-private',
    );
  if (o.projection !== undefined) return (await import('./projectionCommand.js')).accountProjectionCli(o, (o.release ?? []).map(parseRelease));
  if (sourcePlan) {
    refuseLatticeMean(o, sourcePlan);
    return accountNextStatistic(o);
  }
  // A ledger on a table without a query is a source ledger: its joint level now, as ledger show gives it.
  if (o.ledger !== undefined && o.data !== undefined && o.sequence === undefined && o.query === undefined) return accountSourceLedger(o);
  const { account, accountOnPool, accountThreads, nextReleaseScale } = await import('../account/account.js');
  // ε is the budget of the next release; the joint level of past releases needs none.
  if (o.next === undefined) refuseIn('noNext', o);
  const {
    scenario: loaded,
    d,
    statistic,
  } = await loadScenario(o, {
    vector: true,
    windows: true,
    statistic: o.spec !== undefined && o.ledger === undefined,
    ...(o.ledger !== undefined ? { ledger: o.ledger } : {}),
  });
  const ledger = o.ledger === undefined ? null : await (await import('./ledgerCommand.js')).ledgerPast(o.ledger, loaded);
  // A ledger's recorded releases come first (each draw one release), then any typed with --release.
  const typed = [...(ledger ? ledgerReleases(ledger.groups) : []), ...(o.release ?? []).map(parseRelease)];
  // A spec's statistic: scales are typed in its units (a mean's: the total's divided by n), the
  // laws are one unit's contribution; each scale times n, rounded down (a conservative account).
  const units = statistic ? toStatistic(statistic) : null;
  const releases = units ? typed.map((r) => ({ ...r, scale: units.fromScale(r.scale) })) : typed;
  const delta = parseDelta(o.delta, ledger?.budget.delta ?? d.delta ?? settingDefault('delta'));
  const alphas = o.alpha ? parseGrid(o.alpha, 'alpha', true) : ledger ? [...ledger.budget.alphas] : [...ACCOUNT_ORDERS];
  if (ledger && o.next !== undefined) {
    // The ledger's budget is the one a next release must keep: its orders, ε and δ are not re-typed.
    refuseIn('ledgerNext', o);
    return runLedgerNext(o, loaded, ledger.groups, releases, ledger.budget);
  }
  const recordedWeights = ledger?.groups.find((g) => g.coordinateScales)?.coordinateScales;
  const coordinateScales = parseCoordinateScales(o.coordinateScales) ?? (recordedWeights ? [...recordedWeights] : d.coordinateScales);
  const { past, nextCoordinates, nextParts } = releaseParts(o, releases);
  // A vector query's pairs spread over threads (default: the machine's cores less one; every core
  // where each pair's transports take seconds).
  const spread = await flaggedAccount(() => accountThreads(loaded, o.threads !== undefined));
  const heavy = spread && heavyAccount(loaded);
  const pooled = spread && parseThreads(o.threads, heavy) > 1;
  let acc: Accounting | null = null;
  let next: NextRelease | null = null;
  // A progress bar over the account's units on a terminal (never with --json), with the elapsed time.
  const bar = await progressBar('account', !o.json);
  try {
    const n = nextSettings(o, alphas, d);
    if (n) {
      const r = nextReleaseScale(
        loaded,
        past,
        { mechanism: n.mechanism, ...(nextCoordinates ? { coordinates: nextCoordinates } : {}) },
        {
          alpha: n.alpha,
          epsilon: n.epsilon,
          ...(coordinateScales ? { coordinateScales } : {}),
          onProgress: (done, total) => bar.update(done, total, 'next release'),
        },
      );
      next = { ...n, ...r, ...(nextParts ? { columns: nextParts } : {}) };
    }
    if (releases.length === 0 && !next)
      throw new InputError("name the releases made so far (repeat --release 'mechanism=gaussian,scale=1.2'), or ask for --next", '--release');
    if (releases.length) {
      const opts = {
        alphas,
        delta,
        ...(coordinateScales ? { coordinateScales } : {}),
        onProgress: (done: number, total: number) => bar.update(done, total, 'joint level'),
      };
      if (pooled) {
        // Directions on worker threads (each whole, by the same code): the numbers of one thread.
        const { withPool } = await import('../calibrate/parallel.js');
        acc = await withPool(parseThreads(o.threads, heavy), (pool) => accountOnPool(pool, loaded, past, opts), heavy ? 0 : undefined);
      } else acc = account(loaded, past, opts);
    }
  } catch (e) {
    throw fromSetting(e, o, o.spec !== undefined);
  } finally {
    bar.stop();
  }
  const shown = units && statistic!.divisor !== 1 ? { typed, statistic: statistic! } : null;
  printAccount(o, loaded.name, shown ? typed : releases, acc, next && units ? { ...next, scale: units.scale(next.scale) } : next, shown);
}

/**
 * A direction of two laws of K and L atoms solves K·L-cost transport problems at every order:
 * from about 10⁵ pairs that is seconds per direction, so helpers start at once.
 */
function heavyAccount(scenario: { priors: readonly { conditionals: Readonly<Record<string, unknown>> }[] }): boolean {
  return scenario.priors.some((p) => {
    const sizes = Object.values(p.conditionals)
      .map((m) => (m as { masses: ArrayLike<number> }).masses.length)
      .sort((a, b) => b - a);
    return sizes.length > 1 && sizes[0] * sizes[1] >= 1e5;
  });
}

/**
 * The releases with the coordinates they publish (a vector query's `columns=A+B` by the table's
 * names, or 1-based `coordinates=1+2`), and `--next-columns` for the next release.
 */
function releaseParts(o: AccountOptions, releases: ParsedRelease[]) {
  // Columns by name: the query's own order (a table's --query A,B,…).
  const names = o.data ? (o.query ?? '').split(',').map((c) => c.trim()) : null;
  const indexOf = (columns: string[], flag: string, what: string) =>
    columns.map((c) => {
      if (!names) throw new InputError(`${what}: a spec's coordinates have no names; give coordinates=1+2 (1-based)`, flag);
      const k = names.indexOf(c);
      if (k < 0) throw unknownName('column', c, names, flag, "the query's columns: ");
      return k;
    });
  const past = releases.map(({ columns, coordinates, ...r }) => {
    const cs = coordinates ?? (columns && indexOf(columns, '--release', `columns=${columns.join('+')}`));
    return { ...r, ...(cs ? { coordinates: cs } : {}) };
  });
  // --next-columns A+B (a table's names) or 1+2 (1-based coordinates): the next release publishes only those.
  const nextParts = o.nextColumns?.split('+').map((c) => c.trim());
  if (nextParts && o.next === undefined) throw new InputError('goes with --next', '--next-columns');
  const nextCoordinates =
    nextParts &&
    (nextParts.every((c) => /^[1-9]\d*$/.test(c)) && !names ? nextParts.map((c) => Number(c) - 1) : indexOf(nextParts, '--next-columns', `'${o.nextColumns}'`));
  return { past, nextParts, nextCoordinates };
}

/** `--next` and its single (α, ε): the total budget one more release must keep. */
function nextSettings(
  o: AccountOptions,
  alphas: number[],
  d: { alpha?: number; epsilon?: number },
): { mechanism: Mechanism; alpha: number; epsilon: number } | null {
  if (o.next === undefined) return null;
  const mechanism = parseNames(o.next, 'next', MECHANISMS)[0];
  const epsilons = gridSetting('epsilon', o.epsilon, d.epsilon);
  const a = o.alpha ? alphas : [d.alpha ?? settingDefault('alpha')];
  if (a.length !== 1 || epsilons.length !== 1)
    throw new InputError('with --next, give one α and one ε (the total budget)', a.length !== 1 ? '--alpha' : '--epsilon');
  return { mechanism, alpha: a[0], epsilon: epsilons[0] };
}

/** The scale one more release needs to keep the total within (α, ε). */
interface NextRelease {
  mechanism: Mechanism;
  alpha: number;
  epsilon: number;
  scale: number;
  method: string;
  binding: { prior: string; pair: [string, string] } | null;
  /** A vector query's next release of some columns only. */
  columns?: string[];
  /** An (ε, δ) budget's δ (a ledger's): ε is then that target's, met through the order α. */
  delta?: number;
}

/**
 * The joint level (and the next release's scale) as JSON or a table; `inUnits`: a spec's statistic
 * whose scales are typed (and the next one given) in its own units.
 */
function printAccount(
  o: AccountOptions,
  name: string,
  releases: ParsedRelease[],
  acc: Accounting | null,
  next: NextRelease | null,
  inUnits: { statistic: { label: string; units: number } } | null = null,
): void {
  const unitsNote = inUnits
    ? `scales in the statistic's units (${inUnits.statistic.label}, n = ${inUnits.statistic.units} units, taken as public): each is n times that on one unit's contribution, rounded down`
    : null;
  const part = (r: ParsedRelease) => (r.columns ? { columns: r.columns } : r.coordinates ? { coordinates: r.coordinates.map((c) => c + 1) } : {});
  if (o.json) {
    const rows = acc?.rows.map((r) => Object.fromEntries(Object.entries({ ...r, alpha: jsonAlpha(r.alpha) }).map(([k, v]) => [k, jsonNumber(v)]))) ?? [];
    process.stdout.write(
      jsonText({
        scenario: name,
        releases: releases.map((r) => ({ mechanism: r.mechanism, scale: r.scale, ...(r.cost ? { cost: r.cost.name } : {}), ...part(r) })),
        rows,
        epsilonDelta: acc?.epsilonDelta ?? null,
        ...(acc?.note ? { note: acc.note } : {}),
        next: next && { ...next, alpha: jsonAlpha(next.alpha) },
        ...(inUnits ? { statistic: { label: inUnits.statistic.label, units: inUnits.statistic.units, note: unitsNote } } : {}),
      }) + '\n',
    );
    return;
  }
  const of = (r: ParsedRelease) =>
    r.columns ? ` of ${r.columns.join('+')}` : r.coordinates ? ` of coordinate(s) ${r.coordinates.map((c) => c + 1).join('+')}` : '';
  const list = releases.map((r) => `${r.mechanism} ${mechanismDef(r.mechanism).symbol}=${r.scale}${of(r)}`).join(', ');
  process.stdout.write(`${name}\n${unitsNote ? `${unitsNote}\n` : ''}`);
  if (acc) {
    process.stdout.write(
      `${releases.length} release(s) of ${acc.releasesOf ?? `the same ${releases.some((r) => r.columns || r.coordinates) ? "people's values" : 'value'}`}: ${list}\n\n`,
    );
    // Window releases have no naive sum beside them (`accountWindows`): no columns of dashes.
    const naive = acc.rows.some((r) => !Number.isNaN(r.naiveSum));
    const body = acc.rows.map((r) => [
      r.alpha === Infinity ? '∞' : String(r.alpha),
      numUp(r.divergence),
      HOW[r.method],
      ...(naive ? [naiveText(r.naiveSum), r.understated === null ? '?' : r.understated ? 'yes' : 'no'] : []),
    ]);
    const head = ['α', 'joint D_α ≤', 'how', ...(naive ? ['naive sum', 'sum understates'] : [])];
    process.stdout.write(`${table(head, body, naive ? [1, 3] : [1])}\n`);
    if (acc.note) process.stdout.write(`\n${acc.note}\n`);
    if (acc.epsilonDelta)
      process.stdout.write(
        `\n(ε′, δ): ε′ = ${numUp(acc.epsilonDelta.epsilon)} at δ = ${acc.epsilonDelta.delta} (${acc.epsilonDelta.alpha === Infinity ? 'α = ∞: an ε level, so at every δ' : `α = ${acc.epsilonDelta.alpha}, sharper conversion`})\n`,
      );
    else if (acc.rows.every((r) => !(r.alpha > 1))) process.stdout.write(`\n(ε′, δ): not given: the conversion needs an order α > 1 (add one to --alpha)\n`);
    const under = acc.rows.filter((r) => r.understated).map((r) => (r.alpha === Infinity ? '∞' : String(r.alpha)));
    if (under.length)
      process.stdout.write(
        `\nAdding each release's own level would have understated the leak at α = ${under.join(', ')}: Pufferfish guarantees do not compose (docs/math.md §9).\n`,
      );
    if (acc.rows.some((r) => r.understated === null) && !acc.releasesOf)
      process.stdout.write(`\n'?': only an upper bound on the joint level is known there (coupled bound), so whether the sum understates it is not decided.\n`);
  }
  if (next) {
    process.stdout.write(
      `\nnext ${next.mechanism} release${next.columns ? ` of ${next.columns.join('+')}` : ''}: ${next.scale === 0 ? 'no noise needed: the value itself (scale 0, and any scale) keeps' : `scale ≥ ${numUp(next.scale)} keeps`} all ${releases.length + 1} releases within ${next.delta !== undefined ? `(ε = ${next.epsilon}, δ = ${next.delta}) through α = ${next.alpha === Infinity ? '∞' : next.alpha}` : `(α = ${next.alpha === Infinity ? '∞' : next.alpha}, ε = ${next.epsilon})`} (${HOW[next.method as keyof typeof HOW] ?? next.method}${next.binding ? `; bound by prior '${next.binding.prior}', pair ${next.binding.pair.join(' vs ')}` : ''})\n`,
    );
  }
}

/** Registers `account`. */
export function accountCommand(program: Command): void {
  withSourceOptions(program.command('account'))
    .description('The joint Rényi Pufferfish level of several releases of the same value, and the scale one more release needs.')
    .addOption(settingOption('spec'))
    .addOption(settingOption('scenario').choices(BUILTIN_IDS))
    .addOption(settingOption('window', "with --sequence: the series' window counts, released in order (one --release per window)"))
    .addOption(settingOption('start'))
    .addOption(settingOption('release').argParser(collect))
    .addOption(
      settingOption('alpha', `Rényi order(s) > 1, or inf (default ${ACCOUNT_ORDERS.map((a) => (a === Infinity ? 'inf' : a)).join(',')}; with --next: one)`),
    )
    .addOption(settingOption('coordinateScales', 'vector queries: coordinate i has noise wᵢ × each release scale (default all 1)'))
    .addOption(settingOption('delta', `δ for the (ε′, δ) conversion (default: the ledger's, else the spec's, else ${settingText(settingDefault('delta'))})`))
    .addOption(settingOption('next'))
    .addOption(
      settingOption(
        'groupPrivate',
        "with a source ledger, --query STAT and --group-by: plan or what-if the groups' release as private groups (one scale for their vector)",
      ),
    )
    .addOption(settingOption('epsilon', 'with --next: the total budget (default: spec, else 1)', { one: true }))
    .addOption(settingOption('nextColumns'))
    .addOption(
      settingOption(
        'threads',
        'vector queries: threads for the secret pairs (default: one fewer than the cores available, at least 1; every core when a pair has 10⁵ atom pairs or more); results are identical',
      ),
    )
    .addOption(settingOption('projection', 'the ε-MI level of projection releases (--release mechanism=gaussian,scale=σ …) together'))
    .addOption(settingOption('ledger', "the releases recorded in this ledger (then any --release); --next keeps the ledger's budget"))
    .addOption(settingOption('json', 'print the accounting as JSON'))
    .addHelpText(
      'after',
      `
Releases of the same value share the secret-correlated X: their joint level is not the sum of
their levels (docs/math.md §9). Gaussian releases are accounted exactly (the precision-weighted
mean is sufficient); any other mix by the coupled bound with the inner divergences summed.

Example:
  pufferfish account --scenario heart --release mechanism=gaussian,scale=1 --release mechanism=gaussian,scale=1.5 --next gaussian --alpha 2 --epsilon 1`,
    )
    .action((o: AccountOptions) => runAccount(o));
}
