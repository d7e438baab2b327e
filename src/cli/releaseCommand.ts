import type { Command } from 'commander';
import { fromSetting, ledgerScale, numberSetting, parseConfidence, parseDelta, refuseIn, settingOption } from './flags.js';
import { settingDefault } from '../settings.js';
import { MECHANISMS } from '../calibrate/calibrate.js';
import { costs } from '../conditions/costs.js';
import { noNoiseToRecord, InputError, STATISTICS } from '../errors.js';
import { decimalValue } from '../numerics/float.js';
import { BUILTIN_IDS } from '../scenarios/builtin.js';
import { barDigits, decimalUp, jsonAlpha, jsonNumber, numUp, jsonText } from './format.js';
import type { PointReleaseResult, ReleaseResult } from '../release/release.js';
import {
  parseCoordinateScales,
  plan,
  tableSourceOf,
  withSourceOptions,
  type CalibrateOptions,
  secretPredicates,
  parseStatisticFlag,
  checkGroupPrivate,
  givesWindows,
  specStatistic,
} from './input.js';
import type { PointScenario } from '../distribution/points.js';
import type { AnyScenario } from '../distribution/lawKind.js';
import type { CalibrationSettings } from '../calibrate/rules.js';
import type { Scenario } from '../distribution/scenario.js';
import { progressBar } from './progress.js';

interface ReleaseOptions extends CalibrateOptions {
  out?: string;
  keep?: string;
  value?: string;
  count?: string;
  truncate?: string;
  allowNoNoise?: boolean;
  perRelease?: boolean;
  confidence?: string;
  ledger?: string;
  scale?: string;
}

/** `--scale S`: release at this scale (checked by the ledger) instead of calibrating. */
function givenScale(o: ReleaseOptions): { scale?: number } {
  const scale = ledgerScale(o.scale, o.ledger);
  return scale === undefined ? {} : { scale };
}

/** What the ledger needs refused before any work: releases its joint accountant cannot account. */
async function ledgerRefusals(o: ReleaseOptions): Promise<void> {
  if (o.ledger === undefined) return;
  const no = (flag: string, v: unknown, why: string) => {
    if (v !== undefined && v !== false) throw new InputError(`is not taken with --ledger: ${why}`, flag);
  };
  no('--truncate', o.truncate, 'the joint accountant does not cover truncated releases');
  no('--fit', o.fit, 'the joint accountant covers finite laws, not fitted Gaussian priors');
  no('--contamination', o.contamination, "the ledger's budget is for the prior class itself; a contaminated class is not accounted jointly");
  no('--allow-no-noise', o.allowNoNoise, 'a release without noise cannot be accounted');
  // A missing or unreadable ledger is said before the laws are built (a chain's take seconds).
  await (await import('./ledgerCommand.js')).ledgerReadable(o.ledger);
}

/** A ledger for other laws (or a broken one) is refused before the calibration's work. */
async function checkLedgerFirst(o: ReleaseOptions, scenario: unknown): Promise<void> {
  if (o.ledger === undefined) return;
  await (await import('./ledgerCommand.js')).ledgerPast(o.ledger, scenario as AnyScenario);
}

/** The released query as the ledger lists it. */
const queryLabel = (o: ReleaseOptions) => (o.data ? `--query ${o.query ?? ''}` : o.scenario ? `scenario ${o.scenario}` : `spec ${o.spec ?? ''}`);

type Entry = Awaited<ReturnType<typeof import('./ledgerCommand.js')['ledgerEntry']>>;

/** The ledger's entry for a release about to be shown (null without --ledger); refused releases throw. */
async function recordFirst(
  o: ReleaseOptions,
  scenario: Scenario | PointScenario,
  r: { mechanism: CalibrationSettings['mechanism']; scale: number; count: number; cost?: CalibrationSettings['cost']; coordinateScales?: readonly number[] },
): Promise<Entry | null> {
  if (o.ledger === undefined) return null;
  if (!(r.scale > 0)) throw noNoiseToRecord();
  const { ledgerEntry } = await import('./ledgerCommand.js');
  return ledgerEntry(o.ledger, scenario, { ...r, query: queryLabel(o) });
}

const ledgerJson = (e: Entry | null) =>
  e ? { ledger: { release: e.seq, level: jsonNumber(e.level), alpha: jsonAlpha(e.alpha), budget: JSON.parse(e.budget) } } : {};
const ledgerLine = (e: Entry | null) =>
  e
    ? `ledger: recorded as release ${e.seq}; the joint level of every recorded release is now ${numUp(e.level)} (α = ${e.alpha === Infinity ? '∞' : e.alpha}); the ledger takes all its releases to be of one and the same value\n`
    : '';

/** What an error bar means, said once beside the values. */
const barsMeaning = (c: number, what = 'the true value') =>
  `each interval holds ${what} with probability ${c} over the noise (not a statement about the data's sampling)`;

/** A scale or half-width for people: four significant digits, rounded up (`--json` has every digit). */
const scaleText = (s: number) => (s === 0 || !Number.isFinite(s) ? String(s) : String(Number(decimalUp(s, 4))));
/** Said under rounded values, once. */
const ROUNDED = '(values to a tenth of their error bar, intervals rounded outward; --json has every digit)\n';
/** An interval for JSON: ±∞ as "inf". */
const intervalJson = ([lo, hi]: readonly [number, number]) => [jsonNumber(lo), jsonNumber(hi)];

/** `--truncate LO,HI` (ends may be ±inf). */
function parseTruncate(text: string | undefined): [number, number] | undefined {
  if (text === undefined) return undefined;
  const parts = text.split(',').map((t) => t.trim());
  const nums = parts.map((t) => (/^-inf(inity)?$/i.test(t) ? -Infinity : /^\+?inf(inity)?$/i.test(t) ? Infinity : decimalValue(t)));
  if (parts.length !== 2 || nums.some(Number.isNaN) || !(nums[0] < nums[1]))
    throw new InputError(`must be LO,HI with LO < HI (inf allowed), got '${text}'`, '--truncate');
  return [nums[0], nums[1]];
}

/** A release given several methods, orders or budgets: the flag that lists several, with its values. */
function manyTargets(grid: CalibrationSettings[]): InputError {
  const keys = [
    ['method', '--method', 'method'],
    ['alpha', '--alpha', 'α'],
    ['epsilon', '--epsilon', 'ε'],
  ] as const;
  const [key, flag, what] = keys.find(([k]) => new Set(grid.map((s) => s[k])).size > 1) ?? keys[0];
  const values = [...new Set(grid.map((s) => String(s[key])))];
  const hint = key === 'method' ? ' (--method best takes the one with the least noise)' : '';
  return new InputError(`release takes one ${what}, got ${values.length} (${values.join(', ')})${hint}`, flag);
}

/**
 * The one setting a release calibrates for. With `--delta`, an (ε, δ) target: `--alpha` (one or a
 * list) names the Rényi orders searched, else the built-in grid.
 */
function releaseSettings(
  o: ReleaseOptions,
  grid: CalibrationSettings[],
  specDelta?: number,
): { settings: CalibrationSettings; target: { delta?: number; alphas?: number[] } } {
  const delta = parseDelta(o.delta, specDelta);
  const one = delta === undefined ? grid : grid.filter((s) => s.alpha === grid[0].alpha);
  if (one.length !== 1) throw manyTargets(one);
  if (delta === undefined) return { settings: one[0], target: {} };
  return { settings: one[0], target: { delta, ...(o.alpha ? { alphas: [...new Set(grid.map((s) => s.alpha))] } : {}) } };
}

async function runRelease(o: ReleaseOptions): Promise<void> {
  checkGroupPrivate(o);
  const { release } = await import('../release/release.js');
  if (o.projection !== undefined) {
    for (const [flag, v] of [
      ['--out', o.out],
      ['--ledger', o.ledger],
      ['--truncate', o.truncate],
      ['--per-release', o.perRelease],
    ] as const)
      if (v !== undefined && v !== false) throw new InputError('is not taken with --projection', flag);
    return (await import('./projectionCommand.js')).releaseProjectionCli(o);
  }
  if (await givesWindows(o)) return (await import('./windowCommand.js')).releaseWindowsCli(o);
  const statistic = o.data && o.sequence === undefined && o.query ? parseStatisticFlag(o.query) : null;
  if (statistic) return (await import('./statisticCommand.js')).releaseStatisticCli(o, statistic);
  const fromSpec = o.spec !== undefined ? await specStatistic(o) : null;
  if (fromSpec) return (await import('./statisticCommand.js')).releaseStatisticCli(o, fromSpec.t.statistic, fromSpec);
  if (o.out) return runReleaseTable(o);
  if (o.value === undefined && o.sequence !== undefined)
    throw new InputError(
      `is required with --sequence: the series' ${o.query ?? 'query'} as you counted it; or let the tool count it from --data by windows (--window month|week|N; --window ${o.length ?? 'T'} for the whole series)`,
      '--value',
    );
  if (o.value === undefined && o.data !== undefined && o.query !== undefined && /^\s*[A-Za-z_]\w*\s*:/.test(o.query))
    throw new InputError(`'${o.query}' is not a statistic: ${STATISTICS} (a column is released with --out FILE)`, '--query');
  if (o.value === undefined) throw new InputError('is required (the true value to privatize), or --data … --out FILE for a whole column', '--value');
  refuseIn('typedValue', o);
  if (o.perRelease && o.count === undefined) throw new InputError('goes with --count N (N releases, each calibrated alone)', '--per-release');
  const asked = o.count === undefined ? undefined : numberSetting('count', o.count);
  const truncate = parseTruncate(o.truncate);
  await ledgerRefusals(o);
  const given = givenScale(o);
  const { scenario, grid, d } = await plan(o, { gaussian: true });
  await checkLedgerFirst(o, scenario);
  const { settings: one, target: asked0 } = releaseSettings(o, grid, d.delta);
  const target = { ...asked0, ...given };
  const value = parseValue(o.value);
  // A spec's "releases" is the number of releases when --count is not given.
  const { releases: specReleases, ...settings } = one;
  const count = asked ?? specReleases ?? settingDefault('count');
  const confidence = parseConfidence(o.confidence);
  const coordinateScales = parseCoordinateScales(o.coordinateScales) ?? d.coordinateScales;
  let r: ReleaseResult | PointReleaseResult;
  try {
    r = release(scenario, { ...settings, ...(coordinateScales ? { coordinateScales } : {}) }, value, {
      count,
      truncate,
      allowNoNoise: o.allowNoNoise,
      perRelease: o.perRelease,
      confidence,
      ...target,
    });
  } catch (e) {
    throw fromSetting(e, o, o.spec !== undefined);
  }
  const entry = await recordFirst(o, scenario as Scenario, {
    mechanism: r.mechanism as CalibrationSettings['mechanism'],
    scale: r.scale,
    count: r.values.length,
    ...(settings.cost ? { cost: settings.cost } : {}),
    ...('halfWidths' in r && coordinateScales ? { coordinateScales } : {}),
  });
  if ('halfWidths' in r) printPoints(o, scenario.name, r, entry);
  else printScalar(o, scenario.name, r, entry);
  await entry?.shown();
}

/** `--value X` (or `X,Y,…` for a vector query): decimals only. */
function parseValue(text: string): number | number[] {
  const parts = text.split(',').map((x) => x.trim());
  const value = parts.map((x) => decimalValue(x));
  if (!value.every(Number.isFinite))
    throw new InputError(`must be a finite number (a vector query: finite numbers separated by commas, one per query column), got '${text}'`, '--value');
  return value.length === 1 ? value[0] : value;
}

/** A scalar release, its error bars and its ledger entry, as text or JSON. */
function printScalar(o: ReleaseOptions, name: string, r: ReleaseResult, entry: Entry | null): void {
  if (o.json) {
    const { calibration: _c, intervals, ...rest } = r;
    process.stdout.write(
      jsonText({
        scenario: name,
        ...rest,
        alpha: jsonAlpha(r.alpha),
        truncate: r.truncate?.map((x) => (Number.isFinite(x) ? x : x > 0 ? 'inf' : '-inf')) ?? null,
        releases: r.values.map((value, i) => ({ value, interval: intervalJson(intervals[i]) })),
        ...ledgerJson(entry),
      }) + '\n',
    );
    return;
  }
  const sym = { b: 'b', sigma: 'σ', theta: 'θ' }[r.parameter];
  // A truncated release's bars differ per value: each is rounded to its own half-width.
  const digits = (i: number) => barDigits(r.halfWidth ?? (r.intervals[i][1] - r.intervals[i][0]) / 2);
  const bars =
    r.halfWidth === null
      ? `${r.confidence} intervals of the truncated law (exact, not symmetric): ${barsMeaning(r.confidence)}`
      : `error bars ±${scaleText(r.halfWidth)} (${r.confidence} of the noise): ${barsMeaning(r.confidence)}`;
  process.stdout.write(
    `${name}\n${r.mechanism} noise, ${sym} = ${scaleText(r.scale)} (method ${r.method})${r.truncate ? `, truncated to [${r.truncate.join(', ')}]` : ''}\nguarantee: ${r.guarantee}\n${bars}\n${r.note ? `note: ${r.note}\n` : ''}${r.drawNote ? `note: ${r.drawNote}\n` : ''}${ledgerLine(entry)}\nvalue\tinterval\n`,
  );
  process.stdout.write(r.values.map((v, i) => `${digits(i).value(v)}\t${digits(i).interval(r.intervals[i])}\n`).join(''));
  process.stdout.write(ROUNDED);
}

/** A vector query's release, its per-coordinate error bars and its ledger entry, as text or JSON. */
function printPoints(o: ReleaseOptions, name: string, r: PointReleaseResult, entry: Entry | null): void {
  if (o.json) {
    const { intervals, ...rest } = r;
    const releases = r.values.map((value, i) => ({ value, interval: intervals[i].map(intervalJson) }));
    process.stdout.write(`${jsonText({ scenario: name, ...rest, alpha: jsonAlpha(r.alpha), releases, ...ledgerJson(entry) })}\n`);
    return;
  }
  const sym = { b: 'b', sigma: 'σ', theta: 'θ' }[r.parameter as 'b' | 'sigma' | 'theta'];
  process.stdout.write(
    `${name}\n${r.mechanism} noise per coordinate, ${sym} = ${scaleText(r.scale)} × (${r.coordinateScales.join(', ')}) (method ${r.method})\nguarantee: ${r.guarantee}\nerror bars ±(${r.halfWidths.map(scaleText).join(', ')}) per coordinate (${r.confidence} of each coordinate's noise): ${barsMeaning(r.confidence, "that coordinate's true value")}, each coordinate alone\n${ledgerLine(entry)}\nvalue\tintervals\n`,
  );
  const digits = r.halfWidths.map(barDigits);
  process.stdout.write(
    r.values.map((v, i) => `${v.map((x, j) => digits[j].value(x)).join(',')}\t${r.intervals[i].map((iv, j) => digits[j].interval(iv)).join(' ')}\n`).join(''),
  );
  process.stdout.write(ROUNDED);
}

/**
 * `release --data T --sequence COL … --out F.csv`: each sequence's own query value (its count,
 * sum or histogram) released with independent noise at the chain's calibrated scale; written as
 * CSV (group, then the noisy value or one column per state), never the states themselves.
 */
async function runReleaseSequences(o: ReleaseOptions): Promise<void> {
  if (!o.out!.toLowerCase().endsWith('.csv')) throw new InputError('a sequence release is written as .csv', '--out');
  if (o.keep !== undefined) throw new InputError("is not taken with --sequence (only each sequence's noisy value is written)", '--keep');
  if (o.truncate !== undefined) throw new InputError('is not taken with --sequence yet', '--truncate');
  const { checkOutput, writeTextAtomically } = await import('../io/atomicWrite.js');
  checkOutput(o.out!, '--out', [{ path: o.data!, flag: '--data' }], [{ path: o.specOut, flag: '--spec-out' }]);
  await ledgerRefusals(o);
  const { scenario, grid, d } = await plan(o, { gaussian: true });
  await checkLedgerFirst(o, scenario);
  const { settings, target: asked0 } = releaseSettings(o, grid, d.delta);
  const target = { ...asked0, ...givenScale(o) };
  const [{ sequenceValues }, { parseSequenceQuery }] = await Promise.all([import('../sources/sequence.js'), import('../sources/chainCounts.js')]);
  const query = parseSequenceQuery(o.query!);
  const { states, values } = await sequenceValues(
    tableSourceOf(o),
    { sequence: o.sequence!, orderBy: o.orderBy!, ...(o.groupBy ? { groupBy: o.groupBy } : {}) },
    query,
  );
  // The chain length the calibration used (plan() read it the same way).
  const T = o.length === undefined ? Math.max(...values.map((v) => v.length)) : numberSetting('length', o.length);
  for (const v of values)
    if (v.length !== T)
      throw new InputError(
        `sequence '${v.group}' has ${v.length} steps, but the release is calibrated for chains of ${T}: give --length ${v.length}, or release sequences of one length`,
        '--length',
      );
  const confidence = parseConfidence(o.confidence);
  const bar = await progressBar('release', !o.json);
  let r: { scale: number; method: string; guarantee: string; values: (number | number[] | null)[]; halfWidth?: number | null; halfWidths?: number[] };
  try {
    r = (await import('../release/release.js')).releaseColumn(scenario, settings, values.map((v) => v.value) as number[] | number[][], {
      ...target,
      allowNoNoise: o.allowNoNoise,
      confidence,
    });
  } catch (e) {
    throw fromSetting(e, o, o.spec !== undefined);
  } finally {
    bar.stop();
  }
  const entry = await recordFirst(o, scenario as Scenario | PointScenario, {
    mechanism: settings.mechanism,
    scale: r.scale,
    count: 1,
    ...(settings.cost ? { cost: settings.cost } : {}),
  });
  const head = ['group', ...('histogram' in query ? states.map((s) => `${o.query}:${s}`) : [o.query!])];
  const quote = (s: string) => (/[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
  const lines = values.map((v, i) => [quote(v.group), ...[r.values[i]].flat().map(String)].join(','));
  await writeTextAtomically(o.out!, '--out', `${[head.map(quote).join(','), ...lines].join('\n')}\n`);
  const h = r.halfWidths ?? [r.halfWidth ?? 0];
  const summary = {
    out: o.out,
    sequences: values.length,
    scale: r.scale,
    method: r.method,
    guarantee: r.guarantee,
    confidence,
    halfWidth: h.length === 1 ? h[0] : h,
  };
  process.stdout.write(
    o.json
      ? `${jsonText(summary)}\n`
      : `wrote ${o.out}: ${values.length} sequence value(s) released, laplace b = ${r.scale} (${r.method})\nguarantee: ${r.guarantee}\nerror bars: each released number ±${numUp(Math.max(...h))}; ${barsMeaning(confidence)}\n${ledgerLine(entry)}`,
  );
  await entry?.shown();
}

/** `release --data T --query C --out F`: a privatized copy of the table. */
async function runReleaseTable(o: ReleaseOptions): Promise<void> {
  if (o.sequence !== undefined) return runReleaseSequences(o);
  if (!o.data || !o.query) throw new InputError('needs --data FILE --query COL (the column to privatize)', '--out');
  if (o.value !== undefined) throw new InputError('give --value or --out, not both', '--out');
  refuseIn('tableOut', o);
  await ledgerRefusals(o);
  const { scenario, grid, d } = await plan(o, { gaussian: true });
  await checkLedgerFirst(o, scenario);
  const { settings, target: asked0 } = releaseSettings(o, grid, d.delta);
  const target = { ...asked0, ...givenScale(o) };
  if (o.count !== undefined && o.count !== '1')
    throw new InputError('draws one release per row with --out; repeated releases of a table are not supported', '--count');
  const truncate = parseTruncate(o.truncate);
  const keep = o.keep
    ? o.keep
        .split(',')
        .map((c) => c.trim())
        .filter(Boolean)
    : [];
  const confidence = parseConfidence(o.confidence);
  const { privatizeTable } = await import('../sources/privatize.js');
  let r: Awaited<ReturnType<typeof privatizeTable>>;
  let entry: Entry | null = null;
  const bar = await progressBar('release', !o.json);
  try {
    const coordinateScales = parseCoordinateScales(o.coordinateScales) ?? d.coordinateScales;
    const queries = o.query.split(',').map((c) => c.trim());
    r = await privatizeTable(tableSourceOf(o), queries, scenario, { ...settings, ...(coordinateScales ? { coordinateScales } : {}) }, o.out!, {
      ...target,
      confidence,
      truncate,
      keep,
      allowNoNoise: o.allowNoNoise,
      ...(o.secretColumn ? { secretColumn: o.secretColumn } : {}),
      predicates: secretPredicates(o.secret),
      onProgress: (done, total) => bar.update(done, total, 'calibrating'),
      beforeWrite: async (drawn) => {
        entry = await recordFirst(o, scenario as Scenario | PointScenario, {
          mechanism: settings.mechanism,
          scale: drawn.scale,
          count: 1,
          ...(settings.cost ? { cost: settings.cost } : {}),
          ...(coordinateScales && queries.length > 1 ? { coordinateScales } : {}),
        });
      },
    });
  } catch (e) {
    throw fromSetting(e, o, o.spec !== undefined);
  } finally {
    bar.stop();
  }
  const info = {
    out: o.out,
    rows: r.rows,
    missing: r.missing,
    columns: [...o.query.split(',').map((c) => c.trim()), ...(r.intervalColumns ?? []), ...r.kept],
    mechanism: r.mechanism,
    method: r.method,
    parameter: r.parameter,
    scale: r.scale,
    truncate: truncate ?? null,
    ...('target' in r && r.target ? { target: r.target } : {}),
    guarantee: r.guarantee,
    confidence,
    halfWidth: 'halfWidths' in r ? r.halfWidths : r.halfWidth,
    ...ledgerJson(entry),
  };
  const h = [info.halfWidth].flat();
  const bars =
    info.halfWidth === null
      ? `error bars: each row's exact ${confidence} interval of the truncated law depends on its released value, written beside it as ${r.intervalColumns?.join(' and ')} (missing where the value is); ${barsMeaning(confidence)}`
      : `error bars: each released value ±${h.map((x) => scaleText(x as number)).join(', ')}; ${barsMeaning(confidence)}`;
  if (o.json) process.stdout.write(jsonText({ ...info, truncate: truncate?.map((x) => (Number.isFinite(x) ? x : x > 0 ? 'inf' : '-inf')) ?? null }) + '\n');
  else
    process.stdout.write(
      `wrote ${o.out}: noise added to ${o.query.includes(',') ? `columns ${o.query} together` : `column '${o.query}'`} in ${r.rows} rows (${r.missing} missing left missing)${r.kept.length ? `, with public column(s) ${r.kept.join(', ')}` : r.intervalColumns ? ' (no other data column written)' : ' (no other column written)'}; ${r.mechanism} ${r.parameter} = ${scaleText(r.scale)} (method ${r.method})${truncate ? `, truncated to [${truncate.join(', ')}]` : ''}\n${protectsOnly(o, r.kept, h)}\nguarantee: ${r.guarantee}\n${bars}\n${ledgerLine(entry)}`,
    );
  await (entry as Entry | null)?.shown();
}

/**
 * What a privatized column protects, said plainly: only the secret attribute; the noisy column
 * still reads as the data to within its error bar, and kept columns are the data.
 */
function protectsOnly(o: ReleaseOptions, kept: string[], h: unknown[]): string {
  const secret = o.secretColumn ? `'${o.secretColumn}'` : 'the --secret predicates';
  const near = h.every((x) => typeof x === 'number') ? `to within about ±${(h as number[]).map(scaleText).join(', ')}` : 'to within its error bar';
  return `protects only each row's secret (${secret}): the noisy column still reads as the data ${near}${kept.length ? `, and ${kept.join(', ')} ${kept.length === 1 ? 'is' : 'are'} published unchanged` : ''}`;
}

/** Registers `release`. */
export function releaseCommand(program: Command): void {
  withSourceOptions(program.command('release'))
    .description('Calibrate, then draw privatized release(s) of a value with floating-point-safe samplers and the platform CSPRNG.')
    .addOption(settingOption('spec'))
    .addOption(settingOption('scenario').choices(BUILTIN_IDS))
    .addOption(settingOption('value', 'the true value to privatize (a vector query: one number per column, A,B,…)'))
    .addOption(settingOption('coordinateScales', 'vector queries: coordinate i gets noise wᵢ × the calibrated scale (default all 1)'))
    .addOption(settingOption('fit', 'with --value: calibrate for Gaussian priors fitted to each conditional: gaussian | mixture:K'))
    .addOption(
      settingOption('out', 'with --data and --query: write the privatized column row by row (.csv, .tsv, .parquet, .jsonl); never over an input, atomically'),
    )
    .addOption(
      settingOption(
        'keep',
        'with --out: public columns to copy unchanged beside the privatized one (never the secret column; every other column is left out, since it may be correlated with the secret)',
        { arg: '<cols>' },
      ),
    )
    .addOption(settingOption('mechanism', `noise: ${MECHANISMS.join(' | ')} (default: spec, else laplace)`))
    .addOption(settingOption('method', 'calibration method (default: spec, else best)', { one: true }))
    .addOption(settingOption('alpha', 'Rényi order, or "inf" (default: the spec value, which a spec must give; 2 with --scenario or --data)', { one: true }))
    .addOption(settingOption('epsilon', 'budget (default: the spec value, which a spec must give; 1 with --scenario or --data)', { one: true }))
    .addOption(
      settingOption(
        'delta',
        'an (ε, δ) target: the scale meeting (ε, δ)-Pufferfish through the best Rényi order (α from --alpha, one or a list, else a built-in grid of 61 orders)',
        { noDefault: true },
      ),
    )
    .addOption(settingOption('cost', `exponential mechanism cost: ${Object.keys(costs).join(' | ')}`))
    .addOption(settingOption('contamination', 'guarantee for every prior within λ of the class (with --domain)'))
    .addOption(
      settingOption('domain', "with --contamination: the interval the moved mass may go to (a vector query may give one range per coordinate, 'LO,HI;LO,HI')"),
    )
    .addOption(settingOption('count', 'number of releases of --value, calibrated to hold together (default 1)'))
    .addOption(settingOption('perRelease'))
    .addOption(settingOption('window'))
    .addOption(settingOption('windowsReleased'))
    .addOption(settingOption('start'))
    .addOption(settingOption('groupPrivate'))
    .addOption(settingOption('leaveOutGroups'))
    .addOption(settingOption('truncate', 'redraw until the output lies in [LO, HI]; calibrated on the truncated outputs (exact accountant)'))
    .addOption(settingOption('allowNoNoise'))
    .addOption(settingOption('confidence', 'error bars: the share of the noise each interval covers, in (0, 1) (default 0.95)'))
    .addOption(settingOption('projection', 'release A·x + N(0, σ²I_k), calibrated for ε-MI Pufferfish (a k×d matrix file, or random:K with --seed)'))
    .addOption(
      settingOption(
        'ledger',
        "record the release in this ledger before showing it, refused if the joint level of every recorded release would exceed the ledger's budget",
      ),
    )
    .addOption(settingOption('scale', 'with --ledger: release at this scale (say, the one a refusal named) instead of calibrating'))
    .addOption(settingOption('json', 'print the result as JSON, draws under "values", each with its interval under "releases"'))
    .addHelpText(
      'after',
      `
Sampling: the output is round-to-nearest(x + Z) for an exact continuous sample Z (Laplace by the
inverse CDF, Gaussian by ratio-of-uniforms, √|z| cost as a Gamma(2) sum of two exponentials), computed
from lazily drawn CSPRNG bits with a rigorous fixed-point logarithm: a post-processing of the exact
mechanism, so the calibration holds for the released doubles (docs/cli.md, "Releasing values").

Example:
  pufferfish release --scenario heart --value 1.4 --mechanism gaussian --alpha 2 --epsilon 1 --count 3`,
    )
    .action((o: ReleaseOptions) => runRelease(o));
}
