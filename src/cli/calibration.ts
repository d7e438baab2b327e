// A calibration's grid run and its results shown: shared by `calibrate` on any law source and by
// the statistics of a table (statisticCommand.ts), which calibrate each group the same way.
import { mechanismDef, noiseOptions } from '../mechanisms/registry.js';
import { heavyCalibration, type CalibrationResult, type CalibrationSettings } from '../calibrate/calibrate.js';
import { calibrationGrid, thisThread, type GridProgress, type GridRequest, type GridRunner } from '../api/grid.js';
import { decimalUp, jsonNumber, resultJson, resultsTable } from './format.js';
import { progressBar } from './progress.js';
import { fromSetting, parseDelta } from './flags.js';
import { parseCoordinateScales, parseThreads, type CalibrateOptions } from './input.js';
import type { AnyScenario } from '../distribution/lawKind.js';
import type { SpecDefaults } from '../spec/load.js';

/** Spread of the per-prior scale across a prior class (each prior's max over its pairs). */
function spread(r: CalibrationResult) {
  const per = new Map<string, number>();
  for (const p of r.pairs) per.set(p.prior, Math.max(per.get(p.prior) ?? 0, p.scale));
  const xs = [...per.values()].sort((a, b) => a - b);
  return { priors: xs.length, min: xs[0], median: xs[Math.floor((xs.length - 1) / 2)], max: xs[xs.length - 1] };
}

/**
 * Every result's explanation, grouped: results whose explanations differ only in their numbers
 * (the same method over a grid of α and ε) share one paragraph listing the settings.
 */
function explanations(results: CalibrationResult[]): string {
  // An (ε, δ) target: the Rényi budget the order leaves is not ε, and is not printed as it.
  const setting = (r: CalibrationResult) => {
    const t = (r as CalibrationResult & { target?: { epsilon: number; delta: number } }).target;
    const a = `α=${r.alpha === Infinity ? '∞' : r.alpha}`;
    return t ? `${a}, D_α ≤ ${Number(decimalUp(r.epsilon, 6))} for (ε=${t.epsilon}, δ=${t.delta})` : `${a}, ε=${r.epsilon}`;
  };
  const groups = new Map<string, { method: string; text: string; settings: string[] }>();
  for (const r of results) {
    const method = r.winner ? `best→${r.winner}` : r.method;
    const key = `${method}|${r.explanation.replace(/-?\d+(\.\d+)?(e[-+]?\d+)?/g, '#')}`;
    const g = groups.get(key) ?? { method, text: r.explanation, settings: [] };
    g.settings.push(setting(r));
    groups.set(key, g);
  }
  return [...groups.values()]
    .map(
      (g) =>
        `\n${g.method} (${g.settings.length > 3 ? `${g.settings.length} settings: ${g.settings.slice(0, 2).join('; ')}; … ${g.settings[g.settings.length - 1]}` : g.settings.join('; ')}): ${g.text}`,
    )
    .join('');
}

/**
 * The error bar a calibrated scale implies: the noise's `confidence` half-width in the query's
 * units, rounded up (0 without noise). A vector's is that of a coordinate of weight 1.
 */
export function halfWidthAt(r: { mechanism: string; scale: number }, s: Pick<CalibrationSettings, 'cost' | 'eta'>, confidence: number): number {
  if (r.scale === 0) return 0;
  if (r.scale === Infinity) return Infinity;
  return mechanismDef(r.mechanism as CalibrationSettings['mechanism']).halfWidth(r.scale, confidence, noiseOptions(s));
}

export const barsNote = (confidence: number, vector: boolean) =>
  `±: a release lies within ± of the true value with probability ${confidence} over the noise${vector ? " (per coordinate of weight 1; coordinate i's is at its own scale wᵢ·scale)" : ''}`;

/** A calibration's results as JSON, with their error bars and, over a prior class, their spread. */
export function resultsJson(results: CalibrationResult[], scenario: AnyScenario, halfWidths: number[]) {
  const many = manyPriors(results, scenario);
  return results.map((r, k) => ({ ...resultJson(r), halfWidth: jsonNumber(halfWidths[k]), ...(many ? { spread: spread(r) } : {}) }));
}

// Per-prior spreads come from per-pair results; reading the priors only then leaves a chain's laws
// uncomputed when only its chain methods ran.
const manyPriors = (results: CalibrationResult[], scenario: AnyScenario) => results.some((r) => (r.pairs?.length ?? 0) > 0) && scenario.priors.length > 1;

/** The results table, the error bars' meaning, each prior class's spread and the explanations. */
export function calibrationText(results: CalibrationResult[], scenario: AnyScenario, bars: { confidence: number; halfWidths: number[] }): string {
  let text = `${resultsTable(results, bars)}\n${barsNote(
    bars.confidence,
    results.some((r) => r.dimension !== undefined),
  )}\n`;
  if (manyPriors(results, scenario))
    for (const r of results) {
      const sp = spread(r);
      // A chain method (mqm-exact, group-dp) bounds the whole chain, not per prior: no spread to show.
      if (sp.priors === 0) continue;
      text += `\nspread over ${sp.priors} priors (${r.method}, α=${r.alpha === Infinity ? '∞' : r.alpha}, ε=${r.epsilon}): min ${sp.min}, median ${sp.median}, max ${sp.max}`;
    }
  return `${text}${explanations(results)}\n`;
}

/**
 * Every setting of the grid calibrated through the api's grid (the page's): a Rényi target, or
 * with `--delta` an (ε, δ) target met through the best order; on worker threads where the work
 * repays them (the same numbers). A setting that does not apply is an error naming its flag.
 */
export async function calibrateGrid(
  o: CalibrateOptions,
  scenario: AnyScenario,
  grid: CalibrationSettings[],
  d: SpecDefaults,
): Promise<{ results: CalibrationResult[]; settings: CalibrationSettings[] }> {
  const coordinateScales = parseCoordinateScales(o.coordinateScales) ?? d.coordinateScales;
  // --delta D: an (ε, δ) target, met through the best Rényi order (α from --alpha, else a built-in grid).
  const delta = parseDelta(o.delta, d.delta);
  // Every core by default where exact accounting reads many atoms (seconds a unit).
  const threads = parseThreads(o.threads, o.threads === undefined && grid.some((s) => heavyCalibration(scenario, s)));
  const bar = await progressBar('calibrate', !o.json);
  const req = {
    ...gridRequest(grid, coordinateScales),
    ...(delta !== undefined ? { delta, ...(o.alpha ? { orders: unique(grid.map((s) => s.alpha)) } : {}) } : {}),
  };
  const run = (runner: GridRunner) => calibrationGrid(scenario, req, runner, 'throw', barProgress(bar));
  try {
    const rows = threads > 1 ? await (await import('../calibrate/parallel.js')).withPool(threads, run) : await run(thisThread);
    const results = rows.map(({ label: _l, ...r }) => r);
    // Each result's own setting (the grid's repeated values are calibrated once).
    return { results, settings: results.map((r) => ({ ...grid[0], method: r.method as CalibrationSettings['method'], alpha: r.alpha, epsilon: r.epsilon })) };
  } catch (e) {
    throw fromSetting(e, o, o.spec !== undefined);
  } finally {
    bar.stop(); // also on an error: the terminal gets its cursor back
  }
}

const unique = <T>(xs: readonly T[]): T[] => [...new Set(xs)];

/** The grid method × α × ε (one family, its shared settings) as the api's request. */
function gridRequest(grid: CalibrationSettings[], coordinateScales: readonly number[] | undefined): GridRequest {
  const { mechanism, cost, eta, releases, contamination } = grid[0];
  return {
    mechanisms: [mechanism],
    methods: unique(grid.map((s) => s.method)),
    alpha: unique(grid.map((s) => s.alpha)),
    epsilon: unique(grid.map((s) => s.epsilon)),
    ...(cost !== undefined ? { cost } : {}),
    ...(eta !== undefined ? { eta } : {}),
    ...(releases !== undefined ? { releases } : {}),
    ...(contamination ? { contamination } : {}),
    ...(coordinateScales ? { coordinateScales } : {}),
  };
}

/**
 * A grid's progress on the bar (its positions never move back: `calibrationGrid`): one job in its
 * own units; several in units of the first job heard of (each job's share scaled to it), so the
 * total stays put while jobs of different sizes report.
 */
function barProgress(bar: { update(done: number, total: number): void }): (total: number) => GridProgress {
  return (jobs) => {
    let per = 0;
    const at = (pos: number) => bar.update(Math.floor(pos * (per || 1)), jobs * (per || 1));
    return {
      step: () => {},
      done: (k) => at(k),
      within: (k) => (d, t) => {
        if (jobs === 1) return bar.update(d, t);
        per ||= t;
        at(k + (t > 0 ? d / t : 0));
      },
    };
  };
}
