// `calibrate` and `release` of a statistic of a table (`--query sum:COL | mean:COL | count[:P] |
// share[:P]`, `--unit`, `--group-by`; docs/math.md §18): parse, call the api per group, format.
import { InputError, noNoiseToRecord } from '../errors.js';
import type { CalibrationResult } from '../calibrate/result.js';
import type { CalibrationSettings, Mechanism } from '../calibrate/rules.js';
import {
  leftOutCount,
  refuseLeftOutGroups,
  resultInUnits,
  statisticAssumptions,
  toStatistic,
  type PrivateGroups,
  type StatisticGroup,
  type TableStatistic,
} from '../api/statistic.js';
import { smallestEpsilon } from '../api/accuracy.js';
import { calibrateGrid, calibrationText, halfWidthAt, resultsJson } from './calibration.js';
import { asFlagError, fromSetting, ledgerScale, parseConfidence, parseDelta, refuseIn } from './flags.js';
import { progressBar } from './progress.js';
import { barDigits, decimalUp, jsonAlpha, jsonNumber, jsonText, numUp } from './format.js';
import { ledgerLaws, loadPrivateGroups, loadStatistic, settingsGrid, statisticsSourceOf, type CalibrateOptions } from './input.js';
import type { LedgerRefusal } from '../ledger/ledger.js';
import type { StatisticsSource } from '../api/sourceLedger.js';
import type { SpecDefaults } from '../spec/load.js';
import type { AnyScenario } from '../distribution/lawKind.js';
import type { Cost } from '../conditions/costs.js';
import { checkSetting } from '../settings.js';
import { decimal } from './numbers.js';
import { nextDown, nextUp } from '../numerics/float.js';
import type { Statistic } from '../sources/statistic.js';
import type { ReleaseResult } from '../release/release.js';
import type { PointReleaseResult } from '../release/release.js';

/** Options of a statistic's calibration or release. */
export interface StatisticOptions extends CalibrateOptions {
  targetHalfwidth?: string;
  value?: string;
  out?: string;
  ledger?: string;
  truncate?: string;
  count?: string;
  scale?: string;
  keep?: string;
  perRelease?: boolean;
  allowNoNoise?: boolean;
}

/** `--target-halfwidth H`: checked, and refused beside `--epsilon` (the budget is what the plan finds). */
function targetOf(o: StatisticOptions): number | undefined {
  const target = o.targetHalfwidth === undefined ? undefined : decimal(o.targetHalfwidth, '--target-halfwidth');
  if (target === undefined) return undefined;
  checkSetting('targetHalfwidth', target, '--target-halfwidth', `'${o.targetHalfwidth}'`);
  if (o.epsilon !== undefined) throw new InputError('is not taken with --target-halfwidth (the budget is what the plan finds)', '--epsilon');
  return target;
}

/**
 * Plan by accuracy on one law source: the smallest ε whose error bar (in the units `convert` gives)
 * is within ±target with probability `confidence`, for one method at one order, and the
 * calibration at that ε.
 */
async function planByAccuracy(
  o: StatisticOptions,
  scenario: AnyScenario,
  grid: ReturnType<typeof settingsGrid>,
  d: SpecDefaults,
  confidence: number,
  target: number,
  convert: (r: CalibrationResult) => CalibrationResult = (r) => r,
) {
  if (grid.length !== 1) throw new InputError('plans one method at one order: give one --method and one --alpha', '--target-halfwidth');
  const at = async (epsilon: number) => {
    const { results, settings } = await calibrateGrid({ ...o, json: true }, scenario, [{ ...grid[0], epsilon }], d);
    const r = convert(results[0]);
    return { r, halfWidth: halfWidthAt(r, settings[0], confidence) };
  };
  const found = await smallestEpsilon(async (e) => (await at(e)).halfWidth, target);
  const { r, halfWidth } = await at(found.epsilon);
  return { r, halfWidth, plan: { epsilon: found.epsilon, halfWidth, floor: found.floor } };
}

/** The plan's sentence: the ε that reaches ±target (or that the data needs little noise). */
const planText = (target: number, confidence: number, plan: { epsilon: number; floor: boolean }, alpha: number | string, groups = false) =>
  plan.floor
    ? `\nplan: ±${target} with probability ${confidence} is reached at every ε down to ${plan.epsilon} (α = ${alpha}): the data needs little or no noise\n`
    : `\nplan: ±${target} with probability ${confidence} needs ε = ${Number(decimalUp(plan.epsilon, 4))}${groups ? ' (the largest over the groups; each group is listed with its own)' : ''} (α = ${alpha}); 1% less ε does not reach it\n`;

/** `calibrate --data T --query sum:COL|mean:COL|count[:P]|share[:P] [--unit U] [--group-by G] [--target-halfwidth H]`. */
export async function calibrateStatisticCli(o: StatisticOptions, s: Statistic, fromSpec?: { t: TableStatistic; d: SpecDefaults }): Promise<void> {
  if (o.groupPrivate) return calibratePrivateGroups(o, s);
  const d = fromSpec?.d ?? {};
  const confidence = parseConfidence(o.confidence);
  const target = targetOf(o);
  const t = fromSpec?.t ?? (await loadStatistic(o, s));
  const perGroup: { g: StatisticGroup; results: CalibrationResult[]; halfWidths: number[]; plan?: { epsilon: number; halfWidth: number; floor: boolean } }[] =
    [];
  for (const g of t.groups) {
    const grid = settingsGrid(o, g.scenario, d);
    const bars = (rs: CalibrationResult[], st: CalibrationSettings[]) => rs.map((r, k) => halfWidthAt(r, st[k], confidence));
    if (target !== undefined) {
      const { r, halfWidth, plan } = await planByAccuracy(o, g.scenario, grid, d, confidence, target, (x) => resultInUnits(x, g));
      perGroup.push({ g, results: [r], halfWidths: [halfWidth], plan });
      continue;
    }
    const { results, settings } = await calibrateGrid(o, g.scenario, grid, d);
    const converted = results.map((r) => resultInUnits(r, g));
    perGroup.push({ g, results: converted, halfWidths: bars(converted, settings) });
  }
  const groupBy = o.groupBy ?? o.given;
  if (o.json) {
    process.stdout.write(
      `${jsonText({
        statistic: { ...t.statistic, label: t.label },
        source:
          t.spec !== undefined
            ? { spec: t.spec }
            : { rows: t.rows, droppedFromValue: t.droppedFromValue, droppedFromLaws: t.droppedFromLaws, skipped: t.skipped },
        confidence,
        // `epsilonFloor`: the target is met at the smallest ε searched (the data needs little or no noise); ε is then that floor.
        ...(target !== undefined
          ? { targetHalfwidth: target, epsilon: Math.max(...perGroup.map((p) => p.plan!.epsilon)), epsilonFloor: perGroup.every((p) => p.plan!.floor) }
          : {}),
        groups: perGroup.map(({ g, results, halfWidths, plan }) => ({
          ...(groupBy ? { group: g.group } : {}),
          units: g.units,
          scenario: g.scenario.name,
          ...(plan ? { epsilon: plan.epsilon, epsilonFloor: plan.floor } : {}),
          results: resultsJson(results, g.scenario, halfWidths),
        })),
      })}\n`,
    );
    return;
  }
  let text = `${t.groups[0].scenario.name.replace(/ \| .*$/, '')}\n${statisticAssumptions(t, o.groupBy ?? o.given).join('\n')}\n`;
  if (target !== undefined) {
    const plan = { epsilon: Math.max(...perGroup.map((p) => p.plan!.epsilon)), floor: perGroup.every((p) => p.plan!.floor) };
    text += planText(target, confidence, plan, grid0(o, t.groups[0].scenario, d), perGroup.length > 1);
  }
  for (const { g, results, halfWidths, plan } of perGroup) {
    if (groupBy) text += `\n${groupBy} = ${g.group} (n = ${g.units})${plan ? `: ε = ${Number(decimalUp(plan.epsilon, 4))}` : ''}`;
    text += `\n${calibrationText(results, g.scenario, { confidence, halfWidths })}`;
  }
  process.stdout.write(text);
}

/** The one setting a release draws at (with δ, the first order: the others are searched for the target). */
function releaseSetting(grid: ReturnType<typeof settingsGrid>, delta: number | undefined) {
  const one = delta === undefined ? grid : grid.filter((x) => x.alpha === grid[0].alpha);
  if (one.length !== 1) {
    const flag = (['method', 'alpha', 'epsilon'] as const).find((k) => new Set(one.map((x) => x[k])).size > 1) ?? 'epsilon';
    throw new InputError('release takes one method, one α and one ε', `--${flag}`);
  }
  const { releases: _r, ...settings } = one[0];
  return settings;
}

/** The order the plan used, as printed. */
const grid0 = (o: StatisticOptions, scenario: AnyScenario, d: SpecDefaults) => {
  const a = settingsGrid(o, scenario, d)[0].alpha;
  return a === Infinity ? '∞' : a;
};

/**
 * The guarantee's first sentence, for every group (each group's own text is in the JSON); a scale
 * given in the statistic's units (`given`) said in them, not as the first group's contribution scale.
 */
const guaranteeOf = (r: ReleaseResult, groupBy: string | undefined, given?: number) => {
  const sentence = inUnits(r.guarantee, given, false).split(/(?<=\.) /)[0];
  return groupBy ? sentence.replace(/ \| [^']*'/, "' (each group)") : sentence;
};

/**
 * A release's guarantee with a scale given in the statistic's units said in them, and with `own`
 * the group's own scale on one unit's contribution (n times it, which the release drew at).
 */
const inUnits = (guarantee: string, given: number | undefined, own: boolean) =>
  given === undefined
    ? guarantee
    : guarantee.replace(/ at the given (\S+) = (\S+)/, ` at the given $1 = ${given} in the statistic's units${own ? ` ($2 on one unit's contribution)` : ''}`);

/**
 * `release --data T --query mean:COL … [--group-by G]`: the tool computes the statistic (one
 * aggregate in the engine), adds the calibrated noise per group and prints each value with its
 * interval in the statistic's units.
 */
export async function releaseStatisticCli(o: StatisticOptions, s: Statistic, fromSpec?: { t: TableStatistic; d: SpecDefaults }): Promise<void> {
  if (o.groupPrivate) return releasePrivateGroups(o, s);
  refuseForStatistic(o, !!fromSpec);
  const typed = fromSpec ? specValue(o.value) : null;
  const confidence = parseConfidence(o.confidence);
  const d = fromSpec?.d ?? {};
  const delta = parseDelta(o.delta, d.delta);
  // A source ledger's table and secret are checked before any work; a missing ledger is said first.
  // A spec holds laws, not data: its ledger is a laws ledger (every release of one and the same value).
  const ledger = o.ledger === undefined || fromSpec ? null : { location: o.ledger, source: statisticsSourceOf(o) };
  if (o.ledger !== undefined) await (await import('./ledgerCommand.js')).ledgerReadable(o.ledger);
  if (o.ledger !== undefined && fromSpec)
    await (await import('./ledgerCommand.js')).ledgerPast(o.ledger, ledgerLaws(fromSpec.t.groups[0].scenario, fromSpec.d));
  // With a source ledger, --scale S releases every group's value at S in the statistic's own units.
  const given = ledgerScale(o.scale, o.ledger);
  const t = fromSpec?.t ?? (await loadStatistic(o, s));
  refuseLeftOutGroups(t, !!o.leaveOutGroups);
  const { release } = await import('../release/release.js');
  // Each group's calibration said on stderr as it goes (a table of many values takes minutes).
  const bar = await progressBar('release', !o.json);
  const released = t.groups.map((g, k) => {
    const grid = settingsGrid(o, g.scenario, d);
    const settings = releaseSetting(grid, delta);
    const step = t.groups.length > 1 ? `calibrating group ${k + 1} of ${t.groups.length}` : 'calibrating';
    let r: ReleaseResult;
    try {
      // A typed statistic is not scaled to a total and back: the noise alone is drawn (around 0) and added to it.
      r = release(g.scenario, settings, typed === null ? g.total : 0, {
        // A scale given in the statistic's units is n times it on one unit's contribution, rounded down:
        // the noise drawn is the noise the ledger accounts.
        ...(given !== undefined ? { scale: toStatistic(g).fromScale(given) } : {}),
        count: 1,
        confidence,
        // Into a ledger a statistic that needs no noise alone is refused below with its remedy (--scale).
        allowNoNoise: o.allowNoNoise || o.ledger !== undefined,
        ...(delta !== undefined ? { delta, ...(o.alpha ? { alphas: [...new Set(grid.map((x) => x.alpha))] } : {}) } : {}),
        onProgress: (done, total) => bar.update(done, total, step),
      });
    } catch (e) {
      bar.stop();
      throw fromSetting(e, o, false);
    }
    const to = toStatistic(g);
    const at = (x: number) => (typed === null ? x : typed + x);
    const [lo, hi] = to.interval(r.intervals[0]);
    return {
      g,
      r,
      cost: settings.cost,
      value: at(to.value(r.values[0])),
      // A typed value moves the interval by one rounding each end: outward (a table's is the release's own).
      interval: (typed === null ? [lo, hi] : [lo === -Infinity ? lo : nextDown(at(lo)), hi === Infinity ? hi : nextUp(at(hi))]) as [number, number],
      scale: to.scale(r.scale),
      halfWidth: r.halfWidth === null ? null : to.scale(r.halfWidth),
    };
  });
  bar.stop();
  const groupBy = o.groupBy ?? o.given;
  const first = released[0].r;
  const entry = await recordReleased(o, ledger, fromSpec, groupBy, released);
  if (o.json) {
    process.stdout.write(
      `${jsonText({
        statistic: { ...t.statistic, label: t.label },
        mechanism: first.mechanism,
        parameter: first.parameter,
        alpha: jsonAlpha(first.alpha),
        epsilon: first.epsilon,
        ...(first.target ? { target: first.target } : {}),
        confidence,
        guarantee: guaranteeOf(first, groupBy, given),
        source:
          t.spec !== undefined
            ? { spec: t.spec, value: typed }
            : { rows: t.rows, droppedFromValue: t.droppedFromValue, droppedFromLaws: t.droppedFromLaws, leftOut: leftOutCount(t) },
        ...(entry ? { ledger: { releases: entry.seqs, level: jsonNumber(entry.level), alpha: jsonAlpha(entry.alpha), budget: entry.budget } } : {}),
        releases: released.map((x) => ({
          ...(groupBy ? { group: x.g.group } : {}),
          units: x.g.units,
          method: x.r.method,
          guarantee: inUnits(x.r.guarantee, given, true),
          scale: jsonNumber(x.scale),
          halfWidth: x.halfWidth === null ? null : jsonNumber(x.halfWidth),
          value: x.value,
          interval: x.interval.map(jsonNumber),
        })),
      })}\n`,
    );
    await entry?.shown();
    return;
  }
  const sym = { b: 'b', sigma: 'σ', theta: 'θ' }[first.parameter];
  const scaleText = (v: number) => (v === 0 || !Number.isFinite(v) ? String(v) : String(Number(decimalUp(v, 4))));
  let text = `${t.groups[0].scenario.name.replace(/ \| .*$/, '')}\n${statisticAssumptions(t, o.groupBy ?? o.given).join('\n')}\n${first.mechanism} noise; guarantee: ${guaranteeOf(first, groupBy, given)}\neach interval holds the true statistic with probability ${confidence} over the noise (not a statement about the data's sampling)\n\n`;
  text += `${groupBy ? `${groupBy}\t` : ''}n\t${sym}\tvalue\tinterval\n`;
  for (const x of released) {
    const digits = barDigits(x.halfWidth ?? (x.interval[1] - x.interval[0]) / 2);
    text += `${groupBy ? `${x.g.group}\t` : ''}${x.g.units}\t${scaleText(x.scale)} (${x.r.method})\t${digits.value(x.value)}\t${digits.interval(x.interval)}\n`;
  }
  process.stdout.write(
    `${text}(values to a tenth of their error bar, intervals rounded outward; --json has every digit)\n${entry ? `${entry.source ? ledgerText(entry) : lawsLedgerText(entry)}\n` : ''}`,
  );
  await entry?.shown();
}

/** What a statistic's release does not take (a spec's statistic takes its value typed). */
function refuseForStatistic(o: StatisticOptions, fromSpec: boolean): void {
  refuseIn(fromSpec ? 'specStatisticRelease' : 'statisticRelease', o);
  refuseIn('statisticReleaseYet', o);
}

/** The ledger entry of a statistic's release: a source ledger's (every group), a spec's laws ledger's, or none. */
async function recordReleased(
  o: StatisticOptions,
  ledger: { location: string; source: StatisticsSource } | null,
  spec: { t: TableStatistic; d: SpecDefaults } | undefined,
  groupBy: string | undefined,
  released: readonly { g: StatisticGroup; r: ReleaseResult; cost?: Cost; scale: number }[],
): Promise<StatisticEntry | null> {
  if (ledger) {
    const groups = released.map((x) => {
      const to = toStatistic(x.g);
      return {
        group: x.g.group,
        mechanism: x.r.mechanism,
        scale: x.r.scale,
        ...(x.cost ? { cost: x.cost } : {}),
        fromScale: to.fromScale,
        toScale: to.givenFor,
      };
    });
    return recordInLedger(ledger, o.query!.trim(), groupBy, groups);
  }
  return o.ledger !== undefined && spec ? recordSpecStatistic(o.ledger, spec.t, released[0], ledgerLaws(released[0].g.scenario, spec.d)) : null;
}

/** `--value V` beside a spec's statistic: the statistic as the curator computed it, in its own units. */
function specValue(text: string | undefined): number {
  if (text === undefined) throw new InputError("is required with a spec's statistic (the statistic's true value, computed from your data)", '--value');
  return decimal(text.trim(), '--value');
}

/** What recording a statistic's groups in a ledger gave: their numbers, the joint level after them. */
interface StatisticEntry {
  /** A source ledger's (every statistic of a table), or a laws ledger's (repeats of one value). */
  source: boolean;
  seqs: number[];
  level: number;
  alpha: number;
  budget: unknown;
  shown(): Promise<void>;
}

/**
 * Records every group's release in the source ledger before any value is shown (all or none): the
 * ledger refuses when the joint level of every recorded statistic and these would pass its budget,
 * and a refusal of several groups names the one common scale (`--scale S`, the statistic's units)
 * at which they fit. `groupPrivate`: the group column is not taken as known to the adversary.
 */
async function recordInLedger(
  ledger: { location: string; source: StatisticsSource },
  query: string,
  groupBy: string | undefined,
  released: readonly LedgerGroup[],
  groupPrivate = false,
): Promise<StatisticEntry> {
  const { ledgerStore } = await import('../ledger/store.js');
  const { recordStatistics } = await import('../api/sourceLedger.js');
  const { confirmShown, budgetText, LedgerRefusal } = await import('../ledger/ledger.js');
  const store = ledgerStore(ledger.location);
  const batch = released.map((x) => ({
    statistic: { query, ...(groupBy !== undefined ? { groupBy, group: x.group, ...(groupPrivate ? { private: true as const } : {}) } : {}) },
    release: { mechanism: x.mechanism, scale: x.scale, count: 1, ...(x.cost ? { cost: x.cost } : {}) },
  }));
  let recorded: Awaited<ReturnType<typeof recordStatistics>>;
  try {
    recorded = await recordStatistics(store, ledger.source, batch);
  } catch (e) {
    if (e instanceof InputError && /^refused: /.test(e.reason) && released.length > 1)
      throw await withGroupsScale(e, ledger, query, groupBy!, released, groupPrivate);
    // One statistic: the scale that fits in its own units, as --scale takes it.
    if (e instanceof LedgerRefusal && e.fit !== null)
      throw new InputError(`${e.reason} In the statistic's units: --scale ${numUp(released[0].toScale(e.fit))} --ledger ${ledger.location}.`, '--ledger');
    throw asFlagError(e);
  }
  const last = recorded[recorded.length - 1];
  return {
    source: true,
    seqs: recorded.map((x) => x.seq),
    level: last.level.level,
    alpha: last.level.alpha,
    budget: JSON.parse(budgetText(last.budget)),
    shown: async () => {
      for (const x of recorded) await confirmShown(store, x.seq);
    },
  };
}

/** One group's release as a source ledger records it: its noise on one unit's contribution, and how a scale in the statistic's units maps there. */
interface LedgerGroup {
  group: string;
  mechanism: Mechanism;
  scale: number;
  cost?: Cost;
  fromScale(scale: number): number;
  /** The --scale, in the statistic's units, whose contribution scale reaches a given one (`givenFor`). */
  toScale(scale: number): number;
}

/**
 * Records a spec statistic's release in a laws ledger (opened with `ledger init --spec`) before its
 * value is shown: the ledger accounts one unit's contribution at the release's scale, so a mean and
 * the sum it divides are one value there (n is public); the scale in the statistic's units is in the label.
 */
async function recordSpecStatistic(
  location: string,
  t: TableStatistic,
  x: { g: StatisticGroup; r: ReleaseResult; cost?: Cost; scale: number },
  laws: StatisticGroup['scenario'],
) {
  if (!(x.r.scale > 0)) throw noNoiseToRecord();
  const { ledgerEntry } = await import('./ledgerCommand.js');
  // The ledger names scales on one unit's contribution; --scale is read in the statistic's units.
  const refused = (err: LedgerRefusal) => {
    const fit = err.fit === null ? '' : numUp(toStatistic(x.g).givenFor(err.fit));
    const reason = err.reason.replace(/ \(release with --scale [^)]*\)/, ` on one unit's contribution (in the statistic's units: --scale ${fit})`);
    return new InputError(`${reason} (The ledger's scales are on one unit's contribution: n = ${x.g.units} times the statistic's.)`, err.path);
  };
  const e = await ledgerEntry(
    location,
    laws,
    {
      mechanism: x.r.mechanism,
      scale: x.r.scale,
      count: 1,
      ...(x.cost ? { cost: x.cost } : {}),
      query: `spec ${t.spec}: ${t.label} (scale ${numUp(x.scale)} in its units over ${x.g.units} units)`,
    },
    refused,
  );
  return { source: false, seqs: [e.seq], level: e.level, alpha: e.alpha, budget: JSON.parse(e.budget), shown: e.shown };
}

/** A refusal of several groups' releases, with the smallest common scale that would fit (if any). */
async function withGroupsScale(
  e: InputError,
  ledger: { location: string; source: StatisticsSource },
  query: string,
  groupBy: string,
  released: readonly LedgerGroup[],
  groupPrivate: boolean,
): Promise<InputError> {
  const { ledgerStore } = await import('../ledger/store.js');
  const { groupsFittingScale } = await import('../api/sourceLedger.js');
  const mechanism = released[0].mechanism;
  const fit = await groupsFittingScale(ledgerStore(ledger.location), ledger.source, query, groupBy, released, mechanism, groupPrivate);
  const remedy = fit
    ? ` Every group at one scale that fits, in the statistic's units: --scale ${numUp(fit.scale)} --ledger ${ledger.location} (joint level then ${numUp(fit.level.level)}).`
    : ` No common ${mechanism} scale fits: the recorded statistics have spent the budget.`;
  return new InputError(`${e.reason}${remedy}`, '--ledger');
}

/** A laws ledger's line under a spec statistic's release. */
const lawsLedgerText = (e: StatisticEntry) =>
  `ledger: recorded as release ${e.seqs[0]}; the joint level of every recorded release is now ${numUp(e.level)} (α = ${e.alpha === Infinity ? '∞' : e.alpha}); the ledger takes all its releases to be of one and the same value (this statistic, typed), accounted on one unit's contribution`;

/** The ledger's line under a statistic's release. */
const ledgerText = (e: StatisticEntry) =>
  `ledger: recorded as release${e.seqs.length > 1 ? `s ${e.seqs[0]}–${e.seqs[e.seqs.length - 1]}` : ` ${e.seqs[0]}`}; the joint level of every statistic recorded is now ${numUp(e.level)} (α = ${e.alpha === Infinity ? '∞' : e.alpha}), accounted together as one vector of each unit's contributions (docs/math.md §20)`;

/** What the output says private groups assume: the group not known to the adversary, the list of groups public. */
function privateAssumptions(t: PrivateGroups, o: StatisticOptions): string[] {
  return [
    `statistic: ${t.label} per group of '${o.groupBy}' (${t.groups.length} groups; the list of groups is taken as public)`,
    `groups of '${o.groupBy}' are private: the adversary need not know a unit's group, which may be correlated with the secret; one unit's contribution lies in its own group's coordinate, so one noise scale covers the group values together (vector bounds, docs/math.md §20); the groups' sizes are not released (they would place a unit in its group); every other unit may be known, units are independent`,
    `${t.rows} rows read; ${t.droppedFromValue} left out of the statistic (no group)`,
    ...(t.zeroed > 0
      ? [`${t.zeroed} row(s) have no number in '${t.statistic.column}': each counts 0 in the sums and in their laws (as SQL's sum reads it)`]
      : []),
  ];
}

/** `calibrate … --group-by G --group-private`: one scale for the vector of group values. */
async function calibratePrivateGroups(o: StatisticOptions, s: Statistic): Promise<void> {
  const confidence = parseConfidence(o.confidence);
  const target = targetOf(o);
  const t = await loadPrivateGroups(o, s);
  const grid = settingsGrid(o, t.scenario, {});
  // With a target: the one calibration at the planned ε (each group's value within ±H: one scale, coordinate weights 1).
  const planned = target === undefined ? null : await planByAccuracy(o, t.scenario, grid, {}, confidence, target);
  const { results, bars } = planned
    ? { results: [planned.r], bars: [planned.halfWidth] }
    : await (async () => {
        const { results, settings } = await calibrateGrid(o, t.scenario, grid, {});
        return { results, bars: results.map((r, k) => halfWidthAt(r, settings[k], confidence)) };
      })();
  if (o.json) {
    process.stdout.write(
      `${jsonText({
        statistic: { ...t.statistic, label: t.label },
        groupPrivate: true,
        groups: t.groups.map((g) => g.group),
        source: { rows: t.rows, droppedFromValue: t.droppedFromValue },
        confidence,
        ...(planned ? { targetHalfwidth: target, epsilon: planned.plan.epsilon, epsilonFloor: planned.plan.floor } : {}),
        results: resultsJson(results, t.scenario, bars),
      })}\n`,
    );
    return;
  }
  process.stdout.write(
    `${t.scenario.name}\n${privateAssumptions(t, o).join('\n')}\n${planned ? planText(target!, confidence, planned.plan, grid0(o, t.scenario, {})) : ''}\n${calibrationText(results, t.scenario, { confidence, halfWidths: bars })}\nthe scale is every group's (${t.groups.map((g) => g.group).join(', ')})\n`,
  );
}

/** `release … --group-by G --group-private`: the group totals in the engine, one noise draw per group at the common scale. */
async function releasePrivateGroups(o: StatisticOptions, s: Statistic): Promise<void> {
  const confidence = parseConfidence(o.confidence);
  const delta = parseDelta(o.delta, undefined);
  // A source ledger's table and secret are checked before any work; a missing ledger is said first.
  const ledger = o.ledger === undefined ? null : { location: o.ledger, source: statisticsSourceOf(o) };
  if (ledger) await (await import('./ledgerCommand.js')).ledgerReadable(ledger.location);
  // A sum's or count's scale is the same in the statistic's units and on one unit's contribution.
  const given = ledgerScale(o.scale, o.ledger);
  const t = await loadPrivateGroups(o, s);
  const grid = settingsGrid(o, t.scenario, {});
  const settings = releaseSetting(grid, delta);
  const { release } = await import('../release/release.js');
  let r: PointReleaseResult;
  const bar = await progressBar('release', !o.json);
  try {
    r = release(
      t.scenario,
      settings,
      t.groups.map((g) => g.total),
      {
        count: 1,
        confidence,
        // Into a ledger a release without noise is refused below (recordInLedger), with its remedy.
        allowNoNoise: o.allowNoNoise || ledger !== null,
        ...(given !== undefined ? { scale: given } : {}),
        ...(delta !== undefined ? { delta, ...(o.alpha ? { alphas: [...new Set(grid.map((x) => x.alpha))] } : {}) } : {}),
        onProgress: (done, total) => bar.update(done, total, 'calibrating'),
      },
    ) as PointReleaseResult;
  } catch (e) {
    throw fromSetting(e, o, false);
  } finally {
    bar.stop();
  }
  // One scale for every group (coordinate weights 1): each value with its own interval.
  const out = t.groups.map((g, i) => ({ group: g.group, value: r.values[0][i], interval: r.intervals[0][i], scale: r.scale, halfWidth: r.halfWidths[i] }));
  // Recorded before any value is shown: each group's coordinate at the one scale, the group column private.
  const entry =
    ledger &&
    (await recordInLedger(
      ledger,
      o.query!.trim(),
      o.groupBy,
      t.groups.map((g) => ({ group: g.group, mechanism: r.mechanism as Mechanism, scale: r.scale, fromScale: (x: number) => x, toScale: (x: number) => x })),
      true,
    ));
  if (o.json) {
    process.stdout.write(
      `${jsonText({
        statistic: { ...t.statistic, label: t.label },
        groupPrivate: true,
        mechanism: r.mechanism,
        parameter: r.parameter,
        alpha: jsonAlpha(r.alpha),
        epsilon: r.epsilon,
        confidence,
        guarantee: r.guarantee,
        source: { rows: t.rows, droppedFromValue: t.droppedFromValue },
        ...(entry ? { ledger: { releases: entry.seqs, level: jsonNumber(entry.level), alpha: jsonAlpha(entry.alpha), budget: entry.budget } } : {}),
        releases: out.map((x) => ({ ...x, scale: jsonNumber(x.scale), halfWidth: jsonNumber(x.halfWidth), interval: x.interval.map(jsonNumber) })),
      })}\n`,
    );
    await entry?.shown();
    return;
  }
  let text = `${t.scenario.name}\n${privateAssumptions(t, o).join('\n')}\n${r.mechanism} noise, one scale for every group (${r.method}); guarantee: ${r.guarantee.split(/(?<=\.) /)[0]}\neach interval holds its group's true statistic with probability ${confidence} over the noise\n\n${o.groupBy}\tscale\tvalue\tinterval\n`;
  for (const x of out) {
    const digits = barDigits(x.halfWidth);
    text += `${x.group}\t${Number(decimalUp(x.scale, 4))}\t${digits.value(x.value)}\t${digits.interval(x.interval)}\n`;
  }
  process.stdout.write(
    `${text}(values to a tenth of their error bar, intervals rounded outward; --json has every digit)\n${entry ? `${ledgerText(entry)}\n` : ''}`,
  );
  await entry?.shown();
}
