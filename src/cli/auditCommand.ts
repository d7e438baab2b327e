import { inRange, settingDefault } from '../settings.js';
import type { Command } from 'commander';
import { asFlagError, gridSetting, numberSetting, parseCost, parseDelta, parseGuarantee, refuseIn, settingOption } from './flags.js';
import { defaultMechanism, MECHANISMS } from '../calibrate/calibrate.js';
import { InputError } from '../errors.js';
import { decimal } from './numbers.js';
import { EXIT, setCommandExit } from './exitCode.js';
import { BUILTIN_IDS } from '../scenarios/builtin.js';
import { parseNames } from './grid.js';
import { auditTable, jsonAlpha, jsonNumber, naiveText, numDown, numUp, table, jsonText } from './format.js';
import type { RobustnessReport } from '../audit/robustness.js';
import type { Accounting } from '../account/rows.js';
import type { EmpiricalRow, MiRow } from '../audit/rows.js';
import type { AuditReport } from '../audit/report.js';
import type { SpecDefaults } from '../spec/load.js';
import { statisticAssumptions, toStatistic } from '../api/statistic.js';
import type { Statistic } from '../sources/statistic.js';
import type { AnyScenario } from '../distribution/lawKind.js';
import type { Scenario } from '../distribution/scenario.js';
import type { PointScenario } from '../distribution/points.js';
import {
  givesWindows,
  loadScenario,
  loadStatistic,
  parseCoordinateScales,
  parseRanges,
  parseStatisticFlag,
  withSourceOptions,
  type CalibrateOptions,
  type LoadedStatistic,
} from './input.js';
import { progressBar } from './progress.js';
import { precisionDown, precisionUp } from '../numerics/decimal.js';

interface AuditOptions extends CalibrateOptions {
  scale?: string;
  delta?: string;
  empirical?: boolean;
  samples?: string;
  level?: string;
  robustness?: boolean;
}

async function runAudit(o: AuditOptions): Promise<void> {
  parseGuarantee(o.guarantee);
  if (await givesWindows(o)) return (await import('./windowCommand.js')).auditWindowsCli(o);
  if (!o.empirical) refuseIn('noEmpirical', o);
  if (o.guarantee === 'mi') {
    if (!o.empirical) throw new InputError('takes --empirical here (the sliced-MI test); the certified MI rows are printed with every audit', '--guarantee');
    return (await import('./projectionCommand.js')).auditSlicedCli(o);
  }
  if (o.projection !== undefined) return (await import('./projectionCommand.js')).auditProjectionCli(o);
  const perGroup = o.data !== undefined && o.sequence === undefined && o.query !== undefined && (o.groupBy ?? o.given) !== undefined;
  const statisticQuery = perGroup ? parseStatisticFlag(o.query!) : null;
  if (statisticQuery) return auditGroups(o, statisticQuery);
  const { scenario, d, statistic } = await loadScenario(o, { vector: true, statistic: true });
  const s = auditSettings(o, d, scenario);
  const { name, report } = await auditOne(o, scenario, d, s, statistic);
  setCommandExit(report.over === 0 ? EXIT.ok : EXIT.checkFailed);
  const shown = { mechanism: s.mechanism, scale: s.given, epsilon: s.epsilon, delta: s.delta };
  if (o.json) process.stdout.write(`${jsonText(auditJson(name, shown, report, !!o.empirical))}\n`);
  else process.stdout.write(auditText(name, shown, report));
}

/** What an audit is run with, read once from the flags and the spec's defaults. */
function auditSettings(o: AuditOptions, d: SpecDefaults, scenario: AnyScenario) {
  if (o.scale === undefined) throw new InputError('is required (the noise scale to audit: Laplace b, Gaussian σ, exponential θ)', '--scale');
  const given = decimal(o.scale, '--scale');
  inRange('nonNegative', given, '--scale', `'${o.scale}'`);
  const delta = parseDelta(o.delta, d.delta ?? settingDefault('delta'));
  const mechanism = o.mechanism ? parseNames(o.mechanism, 'mechanism', MECHANISMS)[0] : (d.mechanism ?? defaultMechanism(scenario));
  const alphas = gridSetting('alpha', o.alpha, d.alpha);
  const epsilons = gridSetting('epsilon', o.epsilon, d.epsilon);
  if (epsilons.length !== 1) throw new InputError('takes one value for audit', '--epsilon');
  const epsilon = epsilons[0];
  const cost = parseCost(o.cost, mechanism, '--cost') ?? d.cost;
  const releases = numberSetting('releases', o.releases, d.releases);
  const coordinateScales = parseCoordinateScales(o.coordinateScales) ?? d.coordinateScales;
  return { given, delta, mechanism, alphas, epsilon, cost, releases, coordinateScales };
}

/**
 * One scenario's audit at the given scale; a statistic's scale is in its own units (a mean's or
 * share's: one unit's contribution sees it times n, rounded down, so the audit stays conservative).
 */
async function auditOne(
  o: AuditOptions,
  scenario: Scenario | PointScenario,
  d: SpecDefaults,
  s: ReturnType<typeof auditSettings>,
  statistic: LoadedStatistic | undefined,
  progressLabel = 'audit',
): Promise<{ name: string; report: AuditReport }> {
  const { auditReport } = await import('../audit/report.js');
  const scale = statistic ? toStatistic(statistic).fromScale(s.given) : s.given;
  const bar = await progressBar(progressLabel, !o.json);
  let report: AuditReport;
  try {
    report = await auditReport(
      scenario,
      {
        mechanism: s.mechanism,
        scale,
        alphas: s.alphas,
        epsilon: s.epsilon,
        delta: s.delta,
        cost: s.cost,
        eta: d.eta,
        releases: s.releases,
        ...(s.coordinateScales ? { coordinateScales: s.coordinateScales } : {}),
        ...(o.empirical ? { empirical: empiricalOptions(o) } : {}),
        ...(o.robustness ? { robustness: { domain: robustnessDomain(o, d.domain) } } : {}),
      },
      { onProgress: (done, total, step) => bar.update(done, total, step) },
    );
  } catch (e) {
    throw e instanceof InputError && e.path === 'coordinateScales' && !o.coordinateScales ? new InputError(e.reason, 'spec.coordinateScales') : asFlagError(e);
  } finally {
    bar.stop();
  }
  const name =
    statistic && statistic.divisor !== 1
      ? `${scenario.name} (${statistic.label}: scale ${s.given} = ${numDown(scale)} on one unit's contribution, n = ${statistic.units} public)`
      : scenario.name;
  return { name, report };
}

/**
 * `audit --data T --query STAT --group-by G --scale S`: each public group's statistic audited on its
 * own rows' laws at S in the statistic's units (a mean's: S × the group's n on one unit's
 * contribution). The verdict fails when any group's does.
 */
async function auditGroups(o: AuditOptions, query: Statistic): Promise<void> {
  const t = await loadStatistic(o, query);
  const groupBy = (o.groupBy ?? o.given)!;
  const s = auditSettings(o, {}, t.groups[0].scenario);
  const audited = [];
  for (const g of t.groups)
    audited.push({ g, ...(await auditOne(o, g.scenario, {}, s, { label: t.label, units: g.units, divisor: g.divisor }, `audit ${groupBy} = ${g.group}`)) });
  const over = audited.reduce((n, x) => n + x.report.over, 0);
  setCommandExit(over === 0 ? EXIT.ok : EXIT.checkFailed);
  const shown = { mechanism: s.mechanism, scale: s.given, epsilon: s.epsilon, delta: s.delta };
  const notes = statisticAssumptions(t, groupBy);
  if (o.json) {
    const groups = audited.map((x) => ({ group: x.g.group, units: x.g.units, ...auditJson(x.name, shown, x.report, !!o.empirical) }));
    process.stdout.write(`${jsonText({ statistic: t.label, groupBy, notes, verdict: over === 0 ? 'pass' : 'fail', skipped: t.skipped, groups })}\n`);
    return;
  }
  const parts = audited.map((x) => `${groupBy} = ${x.g.group} (n = ${x.g.units})\n${auditText(x.name, shown, x.report)}`);
  const failed = audited.filter((x) => x.report.over > 0).map((x) => x.g.group);
  process.stdout.write(
    `${notes.join('\n')}\n\n${parts.join('\n')}\n${failed.length ? `FAIL: the group(s) ${failed.join(', ')} exceed ε at scale ${s.given}` : `PASS: every group of '${groupBy}' is within ε at scale ${s.given}`}\n`,
  );
}

/** `--domain` (or the spec's) for the robustness report: one LO,HI, or one per coordinate. */
function robustnessDomain(o: AuditOptions, spec: SpecDefaults['domain']): [number, number][] {
  if (o.domain !== undefined) return parseRanges(o.domain);
  if (spec) return Array.isArray(spec[0]) ? (spec as [number, number][]) : [spec as [number, number]];
  throw new InputError(
    'is needed with --robustness: LO,HI;LO,HI;… — one LO,HI range (the interval an adversary may move mass to), or one per coordinate of a vector query',
    '--domain',
  );
}

/** The report as JSON, mirroring the text (non-finite numbers as text). */
function auditJson(name: string, s: { mechanism: string; scale: number; epsilon: number; delta: number }, r: AuditReport, empirical: boolean) {
  const { joint } = r;
  return {
    scenario: name,
    ...s,
    verdict: r.over === 0 ? 'pass' : 'fail',
    over: r.over,
    ...(r.certified.length ? { certified: r.certified.map((c) => ({ alpha: jsonAlpha(c.alpha), by: c.by })) } : {}),
    rows: r.rows.map((row) => Object.fromEntries(Object.entries({ ...row, alpha: jsonAlpha(row.alpha) }).map(([k, v]) => [k, jsonNumber(v)]))),
    mi: r.mi,
    // On ℝ the joint account decides N releases; on ℝ^d the rows bound them together.
    ...(joint ? { releases: { n: r.releases, rows: joint.rows.map((row) => jointJson(row, s.epsilon)) } } : r.releases > 1 ? { releases: r.releases } : {}),
    ...(empirical ? { empirical: r.empirical } : {}),
    ...(r.robustness ? { robustness: robustJson(r.robustness) } : {}),
  };
}

const jointJson = (r: Accounting['rows'][number], epsilon: number) => ({
  ...r,
  alpha: jsonAlpha(r.alpha),
  divergence: jsonNumber(r.divergence),
  naiveSum: jsonNumber(r.naiveSum),
  slack: jsonNumber(epsilon - r.divergence),
});

const CERT = {
  'bernstein-ellipse': 'certified quadrature (Bernstein-ellipse bounds, docs/math.md §8)',
  'sup-at-atoms': 'α = ∞: exact supremum at the atoms (docs/math.md §4)',
  'data-processing': "the data's own divergence, an upper bound on any release of it (data processing, docs/math.md §4)",
  'order-monotone': 'the exact ε-Pufferfish level: D_α ≤ D∞ at every order α (used where the quadrature cannot certify, e.g. α = 10¹²)',
  'coupled-bound':
    "coupled bound over a coupling of the two laws — the optimal transport's or a Knothe–Rosenblatt one, the smaller (an upper bound, docs/math.md §12): a pass is certified, a fail may be the bound's looseness",
} as const;

/** The report as text: the rows, how they are certified, the optional parts and the verdict. */
function auditText(name: string, s: { mechanism: string; scale: number; epsilon: number; delta: number }, r: AuditReport): string {
  const together = r.releases > 1 && !r.joint ? `; ${r.releases} releases of the same value together (docs/math.md §9; the verdict is theirs)` : '';
  const certs = [...new Set(r.rows.map((row) => row.certificate))];
  const bounds = r.rows.some((row) => row.certificate === 'coupled-bound');
  return (
    `${name}\n${s.mechanism} noise${bounds ? ' per coordinate' : ''}, scale ${s.scale}${together}; slack to ε = ${s.epsilon}; (ε′, δ) at δ = ${s.delta}\n` +
    summaryLine(r, s.epsilon) +
    `\n${auditTable(r.rows)}\n` +
    `\nerror bounds: ${certs.map((c) => CERT[c]).join('; ')}\n` +
    r.certified
      .map(
        (c) =>
          `\nα = ${c.alpha === Infinity ? '∞' : c.alpha}: rows above ε, but every (prior, pair) is certified within ε at this scale by ${c.by.join(', ')} (the conditions calibrate uses, docs/math.md §3–§4)\n`,
      )
      .join('') +
    miLines(r.mi) +
    empiricalLines(r.empirical ?? [], bounds ? 'the certified bounds above decide' : 'the exact rows above decide') +
    jointLines(r, s.epsilon) +
    robustLines(r.robustness) +
    `\nverdict: ${r.over === 0 ? 'pass' : `fail (${r.over} row${r.over === 1 ? '' : 's'} over ε)`}\n`
  );
}

/**
 * A long audit's verdict before its rows: per order, the rows over ε and the largest D_α with
 * its pair (the rows follow; the verdict is repeated at the end).
 */
function summaryLine(r: AuditReport, epsilon: number): string {
  if (r.rows.length <= 20) return '';
  const orders = [...new Set(r.rows.map((row) => row.alpha))];
  const per = orders.map((a) => {
    const rows = r.rows.filter((row) => row.alpha === a);
    const top = rows.reduce((x, y) => (y.divergence > x.divergence ? y : x));
    const over = rows.filter((row) => !(row.slack >= 0)).length;
    return `α = ${a === Infinity ? '∞' : a}: ${over} of ${rows.length} over, largest D_α ${numUp(top.divergence)} (${top.prior}: ${top.direction.join(' ‖ ')})`;
  });
  return `summary: ${r.over === 0 ? 'pass' : `fail, ${r.over} of ${r.rows.length} rows over ε = ${epsilon}`}; ${per.join('; ')}\n`;
}

/** The MI rows: exact values on ℝ, upper bounds on ℝ^d. */
function miLines(mi: MiRow[]): string {
  if (!mi.length) return '';
  const line = (m: MiRow) =>
    'atMost' in m
      ? `  ${m.prior}: ≤ ${numUp(m.atMost)} nats (${m.how === 'max-entropy' ? 'max-entropy bound summed over the coordinates, docs/math.md §12' : "the data's own I(X; S), data processing"})`
      : `  ${m.prior}: ${precisionUp(m.nats, 6)} nats = ${precisionUp(m.bits, 6)} bits (± ${m.error.toExponential(1)})${m.impliedByPufferfish !== null ? `; the exact ε-PP level implies ≤ ${precisionUp(m.impliedByPufferfish, 6)} nats` : ''}`;
  const bounds = mi.some((m) => 'atMost' in m) ? ', upper bounds' : '';
  return `\nmutual information I(Y; S) (secrets weighted by their probabilities)${bounds}:\n${mi.map(line).join('\n')}\n`;
}

/** The joint account's table of N releases of a value on ℝ (none otherwise). */
function jointLines(r: AuditReport, epsilon: number): string {
  if (!r.joint) return '';
  return `\n${r.releases} releases of the same value together (docs/math.md §9; the verdict is theirs):\n${table(
    ['α', 'joint D_α ≤', 'slack', 'naive sum'],
    r.joint.rows.map((row) => [
      row.alpha === Infinity ? '∞' : String(row.alpha),
      numUp(row.divergence),
      numDown(epsilon - row.divergence),
      naiveText(row.naiveSum),
    ]),
    [0, 1, 2, 3],
  )}\n`;
}

/** The robustness report's lines (none without one). */
function robustLines(robust: RobustnessReport | null): string {
  if (!robust) return '';
  return (
    `\nrobustness (ε-contamination, docs/math.md §10): every prior within λ of the class, mass moved anywhere in the domain\n` +
    `${table(
      ['λ', 'D_α ≤', 'slack'],
      robust.rows.map((r) => [String(r.lambda), numUp(r.divergence), numDown(r.slack)]),
      [0, 1, 2],
    )}\n` +
    `largest λ within ε: ${numDown(robust.largestLambda)}${robust.binding ? `; binding: prior '${robust.binding.prior}', pair ${robust.binding.pair.join(' vs ')} (group totals ${robust.binding.counts.join(' and ')})` : ''}\n` +
    (robust.warning ? `warning: ${robust.warning}\n` : '')
  );
}

/** The robustness report as JSON (non-finite numbers as text). */
const robustJson = (robust: RobustnessReport) => ({
  ...robust,
  rows: robust.rows.map((r) => ({ ...r, divergence: jsonNumber(r.divergence), slack: jsonNumber(r.slack) })),
});

/** `--samples` and `--level` of the empirical audit, checked (it tests one claimed α). */
function empiricalOptions(o: AuditOptions): { samples: number; level: number } {
  const samples = numberSetting('samples', o.samples);
  const level = numberSetting('level', o.level);
  return { samples, level };
}

/** The empirical audit's lines, one per pair; `decides`: what does decide privacy. */
function empiricalLines(empirical: EmpiricalRow[], decides: string): string {
  return empirical
    .map((e) => {
      const r = e.result;
      const power = `a sampling test of limited power${r.resolution !== null ? `: its confidence bounds cost about ${r.resolution.toPrecision(2)} in ε here, so smaller violations go unseen` : ''}`;
      const witness = r.verdict === 'violation' && r.witness ? ` (witness: ${r.witness.set}, ${r.witness.direction})` : '';
      return `\nempirical audit, ${e.prior}: ${e.pair.join(' vs ')} (${r.samples} draws per secret, false-alarm level ${r.level}): ε at δ = ${r.delta} is at least ${precisionDown(r.lowerBound, 4)}; the claim implies ≤ ${precisionUp(r.claimed, 4)} → ${r.verdict}${r.verdict === 'violation' ? witness : ` (${power}; not evidence of privacy — ${decides})`}\n`;
    })
    .join('');
}

/** Registers `audit`. */
export function auditCommand(program: Command): void {
  withSourceOptions(program.command('audit'))
    .description('Exact Rényi divergence of the released outputs at a given noise scale, per prior, pair and direction.')
    .addOption(settingOption('spec'))
    .addOption(settingOption('scenario').choices(BUILTIN_IDS))
    .addOption(settingOption('scale', 'noise scale to audit: Laplace b, Gaussian σ, exponential θ (required)'))
    .addOption(settingOption('window', "with --sequence: audit the series' window counts, every window at --scale (the bound per secret time)"))
    .addOption(settingOption('windowsReleased'))
    .addOption(settingOption('start'))
    .addOption(settingOption('coordinateScales', 'vector queries: coordinate i has noise wᵢ × the scale (default all 1)'))
    .addOption(settingOption('mechanism', `noise: ${MECHANISMS.join(' | ')} (default: spec, else laplace)`))
    .addOption(settingOption('alpha', 'Rényi order(s): A | A,B,… | FROM:TO:STEP | inf (Laplace) (default: spec, else 2)'))
    .addOption(settingOption('epsilon', 'budget the slack is measured against (default: spec, else 1)', { one: true }))
    .addOption(settingOption('delta', 'δ for the (ε′, δ) conversions'))
    .addOption(settingOption('cost', 'exponential mechanism cost (exact accounting: abs only)'))
    .addOption(settingOption('empirical'))
    .addOption(settingOption('samples'))
    .addOption(settingOption('level', 'empirical audit: false-alarm probability bound'))
    .addOption(settingOption('releases', 'audit N releases of the same value together (the verdict is theirs; docs/math.md §9)'))
    .addOption(settingOption('guarantee', 'with --empirical: mi runs the sliced-MI test of ε-MI Pufferfish'))
    .addOption(settingOption('projection', 'the ε-MI level of a projection release A·f(X) + N(0, σ²I_k) at σ = --scale'))
    .addOption(settingOption('robustness'))
    .addOption(
      settingOption(
        'domain',
        "with --robustness: the interval an adversary may move mass to (must cover every value; a vector query: one range per coordinate, 'LO,HI;LO,HI')",
      ),
    )
    .addOption(settingOption('json', 'print {"rows": [...], "mi": [...]} as JSON, mirroring the tables'))
    .addHelpText(
      'after',
      `
Columns: D_α and its proven error bound (certified Gauss–Kronrod quadrature, docs/math.md §8); slack = ε − (D_α + error);
ε′ at δ by eq. (5) of the paper, ε′ = D_α + log(1/δ)/(α−1), and by the sharper conversion
ε′ = D_α + log((α−1)/α) − (log δ + log α)/(α−1) (Canonne–Kamath–Steinke 2020, Prop. 12);
ε-PP = the exact ε-Pufferfish level sup log p/q of Laplace-shaped noise.

Example:
  pufferfish audit --scenario heart --scale 0.8 --alpha 1.5,2,4,inf`,
    )
    .action((o: AuditOptions) => runAudit(o));
}
