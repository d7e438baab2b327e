import type { Command } from 'commander';
import { asFlagError, gridSetting, notTakenBy, numberSetting, parseConfidence, refuseUnused, parseGuarantee, settingOption, specNotTakenBy } from './flags.js';
import { defaultMechanism, MECHANISMS, METHODS } from '../calibrate/calibrate.js';
import { costs } from '../conditions/costs.js';
import { calibrateFor } from '../api/guarantee.js';
import type { MiCalibrationResult } from '../mi/calibrateMI.js';
import { exactLimitsText } from '../mechanisms/kernels.js';
import { InputError } from '../errors.js';
import { BUILTIN_IDS } from '../scenarios/builtin.js';
import { UCI_SCENARIOS } from '../uci/scenarios.js';
import { parseNames } from './grid.js';
import { jsonNumber, resultsTable, jsonText } from './format.js';
import { calibrateGrid, calibrationText, halfWidthAt, resultsJson, barsNote } from './calibration.js';
import { progressBar } from './progress.js';
import {
  parseCoordinateScales,
  loadScenario,
  plan,
  withSourceOptions,
  parseStatisticFlag,
  checkGroupPrivate,
  givesWindows,
  specStatistic,
  type CalibrateOptions,
} from './input.js';

async function runCalibrate(o: CalibrateOptions): Promise<void> {
  checkGroupPrivate(o);
  const guarantee = parseGuarantee(o.guarantee);
  // A mean under ε-MI keeps its own calibration over i.i.d. rows (docs/math.md §7); every other
  // statistic, and a mean under the other guarantees, is a law source of contributions (§18).
  // (--target-mse, the rows a target error needs, belongs to that calibration.)
  if (o.query?.startsWith('mean:') && (guarantee === 'mi' || o.targetMse !== undefined)) return (await import('./projectionCommand.js')).calibrateMeanCli(o);
  if (o.projection !== undefined) {
    if (o.guarantee !== undefined && o.guarantee !== 'mi')
      throw new InputError('the projection mechanism is calibrated for ε-MI Pufferfish: --guarantee mi', '--guarantee');
    return (await import('./projectionCommand.js')).calibrateProjectionCli(o);
  }
  if (await givesWindows(o)) return (await import('./windowCommand.js')).calibrateWindowsCli(o);
  const statistic = o.data && o.sequence === undefined && o.query ? parseStatisticFlag(o.query) : null;
  if (guarantee === 'mi') {
    if (statistic)
      throw new InputError('a sum, count or share is calibrated for Rényi or ε-Pufferfish; under ε-MI only mean:COL is (over i.i.d. rows)', '--guarantee');
    return runCalibrateMI(o);
  }
  if (statistic) return (await import('./statisticCommand.js')).calibrateStatisticCli(o, statistic);
  const fromSpec = o.spec !== undefined ? await specStatistic(o) : null;
  if (fromSpec) return (await import('./statisticCommand.js')).calibrateStatisticCli(o, fromSpec.t.statistic, fromSpec);
  const confidence = parseConfidence(o.confidence);
  const { scenario, grid, source, fit, d } = await plan(o, { gaussian: true });
  const { results, settings } = await calibrateGrid(o, scenario, grid, d);
  const halfWidths = results.map((r, k) => halfWidthAt(r, settings[k], confidence));
  if (o.json) {
    process.stdout.write(
      jsonText({
        scenario: scenario.name,
        ...(source ? { source } : {}),
        ...(fit ? { fit } : {}),
        confidence,
        results: resultsJson(results, scenario, halfWidths),
      }) + '\n',
    );
    return;
  }
  const srcLine = source
    ? `\n${source.rows} rows, ${source.dropped} dropped (missing query, secret or public value); ${source.priors} prior(s)${source.skippedGiven.length ? `; public values with rows of fewer than two secrets, left out: ${source.skippedGiven.join(', ')}` : ''}${source.absentGiven.length ? `\npairs left out where a secret has no rows: ${source.absentGiven.map((g) => `${g.value} (no ${g.absent.join(', ')})`).join('; ')}` : ''}${source.notes.length ? `\n${source.notes.join('; ')}` : ''}`
    : '';
  const fitLines = fit
    ? `\nfitted priors (the guarantee covers these laws, not the table's own; docs/math.md §11):\n${fit.map((l) => `  ${l}`).join('\n')}`
    : '';
  process.stdout.write(`${scenario.name}${srcLine}${fitLines}\n\n${calibrationText(results, scenario, { confidence, halfWidths })}`);
}

/** `calibrate --guarantee mi`: ε-mutual-information Pufferfish (Nuradha–Goldfeld; docs/math.md §7). */
async function runCalibrateMI(o: CalibrateOptions): Promise<void> {
  const confidence = parseConfidence(o.confidence);
  const notTaken = 'with --guarantee mi (a mutual-information bound has no Rényi order, δ or contamination class)';
  refuseUnused(notTakenBy('mi', o), notTaken);
  const { scenario, d, source } = await loadScenario(o, { vector: true });
  // A spec's Rényi order is its default for the Rényi guarantee: only what would change the MI answer is refused.
  refuseUnused(
    specNotTakenBy('mi', d).filter(([field]) => field !== 'spec.alpha'),
    notTaken,
  );
  const { MI_METHODS } = await import('../mi/calibrateMI.js');
  const coordinateScales = parseCoordinateScales(o.coordinateScales) ?? d.coordinateScales;
  const mechanism = o.mechanism ? parseNames(o.mechanism, 'mechanism', MECHANISMS)[0] : (d.mechanism ?? defaultMechanism(scenario));
  const methods = o.method
    ? parseNames(o.method, 'method', MI_METHODS)
    : [d.method && (MI_METHODS as readonly string[]).includes(d.method) ? (d.method as (typeof MI_METHODS)[number]) : 'best'];
  const epsilons = gridSetting('epsilon', o.epsilon, d.epsilon);
  const releases = o.releases !== undefined ? numberSetting('releases', o.releases) : d.releases;
  const bar = await progressBar('calibrate', !o.json);
  const jobs = methods.flatMap((method) => epsilons.map((epsilon) => ({ method, epsilon })));
  let results: MiCalibrationResult[];
  try {
    results = jobs.map(({ method, epsilon }, k) => {
      try {
        const onProgress = (done: number, total: number) => bar.update(k * total + done, jobs.length * total);
        return calibrateFor(
          scenario,
          { kind: 'mi', epsilon, ...(releases !== undefined ? { releases } : {}) },
          { mechanism, method, ...(coordinateScales ? { coordinateScales } : {}) },
          { onProgress },
        );
      } catch (e) {
        throw asFlagError(e);
      }
    });
  } finally {
    bar.stop();
  }
  if (o.json) {
    process.stdout.write(
      jsonText({
        scenario: scenario.name,
        guarantee: 'mi',
        ...(source ? { source } : {}),
        confidence,
        results: results.map((r) => ({
          ...r,
          alpha: null,
          scale: jsonNumber(r.scale),
          variance: jsonNumber(r.variance),
          halfWidth: jsonNumber(halfWidthAt(r, {}, confidence)),
        })),
      }) + '\n',
    );
    return;
  }
  const halfWidths = results.map((r) => halfWidthAt(r, {}, confidence));
  process.stdout.write(
    `${scenario.name}\nguarantee: I(Y; S) ≤ ε nats (ε-MI Pufferfish)\n\n${resultsTable(results, { confidence, halfWidths })}\n${barsNote(
      confidence,
      results.some((r) => r.dimension !== undefined),
    )}\n`,
  );
  for (const r of results) process.stdout.write(`\n${r.method} (ε=${r.epsilon}): ${r.explanation}`);
  process.stdout.write('\n');
}

/** Registers `calibrate`. */
export function calibrateCommand(program: Command): void {
  withSourceOptions(program.command('calibrate'))
    .description('Smallest noise scale meeting (α, ε)-Rényi Pufferfish privacy for every prior and secret pair.')
    .addOption(settingOption('spec', 'scenario spec (JSON): priors, conditionals, pairs, mechanism, alpha, epsilon, method'))
    .addOption(settingOption('scenario').choices(BUILTIN_IDS))
    .addOption(settingOption('mechanism', `noise: ${MECHANISMS.join(' | ')} (default: spec, else laplace)`))
    .addOption(settingOption('method', `comma list of ${METHODS.join(', ')} (default: spec, else best)`))
    .addOption(
      settingOption(
        'alpha',
        'Rényi order(s): A | A,B,… | FROM:TO:STEP; "inf" for ε-Pufferfish (default: the spec value, which a spec must give; 2 with --scenario or --data)',
      ),
    )
    .addOption(settingOption('epsilon', 'budget(s): E | E,F,… | FROM:TO:STEP (default: the spec value, which a spec must give; 1 with --scenario or --data)'))
    .addOption(
      settingOption('releases', 'releases of the same value the guarantee must cover together (default: spec, else 1); Pufferfish guarantees do not compose'),
    )
    .addOption(
      settingOption(
        'contamination',
        'guarantee for every prior within λ of the class: up to λ of each conditional moved anywhere in --domain (default: spec, else 0)',
      ),
    )
    .addOption(
      settingOption(
        'domain',
        "with --contamination: the interval the moved mass may go to (must cover every value; a vector query may give one range per coordinate, 'LO,HI;LO,HI')",
      ),
    )
    .addOption(
      settingOption(
        'delta',
        '(ε, δ) target: the smallest scale meeting (ε, δ)-Pufferfish through some Rényi order (sharper conversion); α from --alpha, else 1.25…257',
        { noDefault: true },
      ),
    )
    .addOption(settingOption('fit', 'with --data or --scenario: calibrate for Gaussian priors fitted to each conditional: gaussian | mixture:K (reported)'))
    .addOption(settingOption('cost', `exponential mechanism cost c(z): ${Object.keys(costs).join(' | ')} (default abs)`))
    .addOption(settingOption('guarantee', 'renyi: (α, ε)-Rényi Pufferfish; mi: I(Y; S) ≤ ε nats, methods mi-exact | mi-variance | best'))
    .addOption(settingOption('coordinateScales', 'vector queries: coordinate i gets noise wᵢ × the calibrated scale (default all 1)'))
    .addOption(
      settingOption(
        'threads',
        'threads for independent pairs, priors and grid points: this one, plus worker threads started only when the work repays them (default: one fewer than the cores available, at least 1); results are identical',
      ),
    )
    .addOption(settingOption('confidence', 'error bars: the share of the noise the ± column covers, in (0, 1)'))
    .addOption(settingOption('targetHalfwidth'))
    .addOption(settingOption('groupPrivate'))
    .addOption(settingOption('window'))
    .addOption(settingOption('windowsReleased'))
    .addOption(settingOption('start'))
    .addOption(settingOption('target-mse', 'with --query mean:COL: the rows a private mean needs for this expected squared error'))
    .addOption(
      settingOption('projection', 'ε-MI projection mechanism A·f(X) + N(0, σ²I_k): a k×d matrix (JSON rows or CSV), or random:K (Gaussian sketch, --seed)'),
    )
    .addOption(settingOption('json', 'print {"results": [...]} as JSON'))
    .addHelpText(
      'after',
      `
Methods (docs/math.md §3):
  theorem          Laplace α∈(1,∞): Theorem 1 · α=∞: Remark 1 (W∞/ε) · α∈(0,1): Proposition 1
                   Gaussian α∈(1,∞): Theorem 2 (Remark 2 for point masses) · exponential: Corollary 1
  pierquin         Pierquin et al. 2024 Cor. 3.1: Laplace R_α(W∞/b) ≤ ε; Gaussian σ = W∞·√(α/(2ε))
  wasserstein-inf  Song et al. 2017: b = W∞/ε (valid for every α); exponential θ = η⁻¹(ε / sup c)
  coupled          joint-convexity bound (docs/math.md §4): log E_π* exp((α−1)·D_α(N+x‖N+x′)) ≤ (α−1)ε;
                   Laplace: Mironov's R_α per coupled pair; geometric: its shift's closed form (§21);
                   Gaussian: equals Theorem 2
  exact            smallest scale whose exact D_α of the released outputs (+ its error bound) ≤ ε,
                   every prior, pair and direction; 0 when the data alone meets ε (data processing)
  best             the smallest of every method that applies, naming the winner (default); includes
                   exact up to ${exactLimitsText()}

Gaussian and mixture priors (spec conditionals {"gaussian": {"mean", "sd"}} or {"mixture": [{"weight",
"mean", "sd"}, …]}, or --fit; Gaussian noise; docs/math.md §11): exact (closed form; equal-width
mixtures through the exact accountant), coupled (joint convexity over the components), theorem
(Theorem 2 over the quantile coupling), pierquin (equal widths only).

Built-in scenarios:
${UCI_SCENARIOS.map((d) => `  ${d.id.padEnd(12)} ${d.title}`).join('\n')}

Examples:
  pufferfish calibrate --scenario adult
  pufferfish calibrate --scenario heart --alpha 1.5:5:0.5 --epsilon 0.5,1 --method theorem,pierquin --json
  pufferfish calibrate --spec my-spec.json --mechanism gaussian --alpha 2,4,8
  pufferfish calibrate --scenario heart --fit gaussian --mechanism gaussian --alpha 4 --epsilon 0.5
  pufferfish calibrate --data adult.data --query education-num --secret-column relationship --values Husband,Not-in-family
  pufferfish calibrate --data adult.data --query education-num,hours-per-week --secret-column relationship --values Husband,Not-in-family
  pufferfish calibrate --data people.parquet --query income --secret "older=age >= 50" --secret "younger=age < 50" --given sex

Exit codes: 0 ok · 2 bad input (the message names the field) · 3 numerical failure (no number is printed).`,
    )
    .action((o: CalibrateOptions) => runCalibrate(o));
}
