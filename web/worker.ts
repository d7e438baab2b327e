// The library runs here, off the page's thread: one handler per request of the protocol (protocol.ts).
import { PRIOR_DRAWS, SETTINGS, settingDefault, wholeNumber } from '../src/settings.js';
import * as vega from 'vega';
import { compile } from 'vega-lite';
import { expressionInterpreter } from 'vega-interpreter';
import { applicableMethods, calibrate, checkSettings, type CalibrationResult, type Mechanism, type SingleMethod } from '../src/calibrate/calibrate.js';
import { audit } from '../src/audit/audit.js';
import { builtinScenario } from '../src/scenarios/builtin.js';
import { checkContamination } from '../src/calibrate/contamination.js';
import { columnSummaries, distinctValues, parseDelimited, textHistograms, type TextTable } from '../src/sources/csvText.js';
import { mechanismDef, noiseOptions } from '../src/mechanisms/registry.js';
import { parsePriorClass, tableLaws } from '../src/sources/priors.js';
import { formatPath } from '../src/spec/load.js';
import { validate, workerSettingsSchema } from '../src/spec/schema.js';
import { DEFAULT_DELTA_ALPHAS } from '../src/calibrate/epsDelta.js';
import { calibrateFor } from '../src/api/guarantee.js';
import { smallestEpsilon } from '../src/api/accuracy.js';
import { calibrationGrid, gridFamilies, type GridRequest, type Skipped } from '../src/api/grid.js';
import { calibrationCurves } from '../src/api/curves.js';
import { refuseLeftOutGroups, resultInUnits, statisticAssumptions, statisticFromText, toStatistic, type TableStatistic } from '../src/api/statisticLaws.js';
import { statisticText, type Statistic } from '../src/sources/statistic.js';
import { InputError } from '../src/errors.js';
import { isDecimal } from '../src/numerics/float.js';
import { release } from '../src/release/release.js';
import { methodScaleBars, scaleVsAlphaChart, transitionHeatmap, varianceChart, type Row } from '../src/reproduce/charts.js';
import { closedWindows, parseSequenceQuery, sequenceChain, textOrderValues, textTransitionCounts, textWindowCounts } from '../src/sources/chainCounts.js';
import { calendarUnit, seriesWindows } from '../src/markov/calendar.js';
import { releaseWindows, windowGuarantee } from '../src/release/windows.js';
import { calibrateWindows, WINDOW_METHODS, windowContribution, windowSteps, type WindowMethod } from '../src/calibrate/windows.js';
import { auditWindows } from '../src/audit/windows.js';
import type { AuditRow } from '../src/audit/rows.js';
import { type MarkovModel, neverPossibleNote } from '../src/markov/chain.js';
import { markovScenario } from '../src/markov/source.js';
import { uciQuirks } from '../src/uci/formats.js';
import type { Scenario } from '../src/distribution/scenario.js';
import type { AnyScenario } from '../src/distribution/lawKind.js';
import type { PointScenario } from '../src/distribution/points.js';
import { scenarioSpec } from '../src/spec/write.js';
import { CalibrationPool, defaultThreads } from '../src/calibrate/pool.js';
import { webRunner } from './webRunner.js';
import type { CalibrateParams, DataUsed, Envelope, FormAlpha, FormContamination, PlotNumber, Request, Response, ResultRow, StatisticPlan } from './protocol.js';

/** What the worker holds between requests: the loaded table, the scenario last built, its query columns, the chain's spec. */
const state: {
  table: TextTable | null;
  scenario: Scenario | PointScenario | null;
  columns: string[];
  pool: CalibrationPool | null;
  helpers?: number;
  chain: { name: string; markov: unknown } | null;
  /** The statistic last calibrated (sum or mean of a column), whose groups' laws are one row's contribution. */
  statistic: TableStatistic | null;
  /** The window lengths of the chain's window counts last calibrated (null: one count). */
  windows: number[] | null;
  /** The chain those windows were calibrated on (what their audit reads). */
  windowModel: MarkovModel | null;
  /** What a release of those windows reads from the table: the series' columns, the counted state, each window's label; `groups`: several sequences. */
  /** The series whose windows were calibrated last: each state's value per step (a count: 1 for its state). */
  windowSeries: { q: { sequence: string; orderBy: string }; states: string[]; values: number[]; labels: string[]; groups: boolean } | null;
} = {
  windowSeries: null,
  statistic: null,
  windows: null,
  windowModel: null,
  table: null,
  scenario: null,
  columns: [],
  pool: null,
  chain: null,
};

/**
 * Calibrations run on this worker and nested ones, one fewer threads than cores (at least 1, at most
 * 8; `defaultThreads`), or as many as the page asks (`?threads=N`); nested workers start only for
 * work that repays them. Same code either way, so the same numbers.
 */
function poolOf(threads: number | undefined, helpers: number | undefined): CalibrationPool {
  const n = Number.isInteger(threads) && (threads as number) >= 1 ? (threads as number) : defaultThreads(navigator.hardwareConcurrency || 1, 8);
  const worth = helpers === 0 ? 0 : undefined;
  if (!state.pool || state.pool.threads !== n || state.helpers !== worth) {
    state.helpers = worth;
    void state.pool?.close();
    state.pool = new CalibrationPool(n, (t) => webRunner(t, worth));
  }
  return state.pool;
}

/** The contamination class on the form (λ > 0), as calibrate and release settings take it. */
const contaminationOf = (c: FormContamination | undefined) => (c && (c.lambda ?? 0) > 0 ? { contamination: { lambda: c.lambda, domain: c.domain } } : {});
/** α from a message: a number, or 'inf'. */
const alphaOf = (a: FormAlpha | number | undefined): number => (a === 'inf' ? Infinity : (a as number));

/** Vega with its AST interpreter instead of `new Function`, so the page's CSP can forbid eval. */
async function svg(spec: Record<string, unknown>): Promise<string> {
  const view = new vega.View(vega.parse(compile(spec as never).spec, undefined, { ast: true }), { renderer: 'none', expr: expressionInterpreter });
  const out = await view.toSVG();
  view.finalize();
  return out;
}

/** A result row as the page shows it: the 95% half-width of one coordinate's noise beside the scale. */
const half = (r: CalibrationResult) => (r.scale > 0 ? mechanismDef(r.mechanism).halfWidth(r.scale, 0.95, noiseOptions({})) : 0);
const rowOf = (r: CalibrationResult & { label: string; renyiEpsilon?: number }): ResultRow => ({
  mechanism: r.mechanism,
  method: r.method,
  label: r.label,
  rule: r.rule,
  scale: r.scale,
  halfWidth: half(r),
  variance: r.variance,
  binding: r.binding,
  explanation: r.explanation,
  ...(r.renyiEpsilon !== undefined ? { alpha: r.alpha, renyiEpsilon: r.renyiEpsilon } : {}),
});

/** A message's settings through the same schema as spec files; the first problem, by field. */
function checkedSettings(settings: Record<string, unknown>): void {
  // An empty or unreadable field reaches the worker as NaN: said as such, not as a type error.
  const blank = Object.entries(settings).find(([, v]) => typeof v === 'number' && Number.isNaN(v));
  if (blank) throw new InputError('is empty or not a number: give a value', blank[0]);
  const r = validate(workerSettingsSchema, settings);
  if (!r.ok) throw new InputError(r.message, r.path.length ? formatPath(r.path) : 'form');
}

type Post = (r: Response) => void;

/** The plots answer that draws none, saying why (it also ends the calibration on the page). */
const noPlotsAnswer = (note: string): Response => ({ type: 'plots', alpha: '', epsilon: '', numbers: [], notPlotted: [], note });

/**
 * Progress of `total` jobs as the page shows it: `step(k, label)` when job k starts, `within(k)`
 * a callback for job k's own units; posted at most every 200 ms (and at each job's start), so a
 * long calculation shows movement within a second and the page is not flooded.
 */
function progressOf(post: Post, total: number) {
  let last = 0;
  let label = '';
  const send = (done: number, force: boolean) => {
    const now = performance.now();
    if (!force && now - last < 200) return;
    last = now;
    post({ type: 'progress', done: Math.min(done, total), total, step: label });
  };
  return {
    step(k: number, what: string) {
      label = what;
      send(k, true);
    },
    within: (k: number) => (done: number, of: number) => send(k + (of > 0 ? done / of : 0), false),
    done: (k: number) => send(k, false),
  };
}

/** The form's prior class as the CLI's `--prior` text, its draws read as the CLI reads N. */
function priorText(p: CalibrateParams): string {
  if (p.priorDraws === undefined) return p.prior ?? settingDefault('prior');
  return `${p.prior}:${wholeNumber(p.priorDraws, 'prior-draws', PRIOR_DRAWS.min, PRIOR_DRAWS.max)}`;
}

/** The form's seed, read as the CLI reads --seed; absent: 0, the CLI's default. */
const seedOf = (p: CalibrateParams): number => (p.seed === undefined ? 0 : wholeNumber(p.seed, 'seed', SETTINGS.seed.min, SETTINGS.seed.max));

/** The form's prior class and its seed (the CLI's `--prior`, `--seed`). */
const priorClassOf = (p: CalibrateParams) => parsePriorClass(priorText(p), seedOf(p));

/** The form's table scenario (several query columns: a vector query), with the rows behind it. */
function formLaws(table: TextTable, p: CalibrateParams): { scenario: Scenario | PointScenario; data: DataUsed } {
  if (!p.query || !p.secretColumn) throw new InputError('choose the query column and the secret column', 'form');
  const queries: string[] = [p.query, ...(Array.isArray(p.also) ? p.also : [])];
  const h = textHistograms(table, {
    query: p.query,
    ...(queries.length > 1 ? { queries } : {}),
    secretColumn: p.secretColumn,
    values: p.values?.length ? p.values : undefined,
    given: p.given || undefined,
  });
  const t = tableLaws(h, {
    name: `${p.fileName}: ${queries.join(',')} by ${p.secretColumn}${p.given ? ` given ${p.given}` : ''}`,
    given: p.given || undefined,
    prior: priorClassOf(p),
  });
  state.columns = queries;
  return { scenario: t.scenario, data: { rows: h.rows, used: t.used, dropped: h.dropped, skippedGiven: t.skippedGiven } };
}

/** The page's progress for a grid's jobs. */
const gridProgress = (post: Post) => (total: number) => progressOf(post, total);

/** The form's grid on the page's pool: every chosen (family, method), what does not apply listed in `skipped`. */
const formGrid = (
  p: CalibrateParams,
  sc: AnyScenario,
  mechanisms: Mechanism[],
  alpha: number,
  skipped: Skipped[],
  cont: ReturnType<typeof contaminationOf>,
  post: Post,
) =>
  calibrationGrid(
    sc,
    { mechanisms, methods: p.methods as GridRequest['methods'], alpha, epsilon: p.epsilon, ...(p.delta !== undefined ? { delta: p.delta } : {}), ...cont },
    poolOf(p.threads, p.helpers),
    skipped,
    gridProgress(post),
  );

/**
 * Plots: scale against α per method (Figures 1 and 3), variance against ε. Curves use the
 * closed-form methods; exact (a certified quadrature per point) only at the chosen α and ε. The α
 * axis follows the chosen order (marked on the plot).
 */
async function plots(
  p: CalibrateParams,
  sc: AnyScenario,
  mechanisms: Mechanism[],
  alpha: number,
  rows: (CalibrationResult & { label: string })[],
  cont: ReturnType<typeof contaminationOf>,
): Promise<Extract<Response, { type: 'plots' }>> {
  const c = await calibrationCurves(
    sc,
    { mechanisms, methods: p.methods as SingleMethod[], alpha, epsilon: p.epsilon, ...cont },
    rows,
    poolOf(p.threads, p.helpers),
  );
  const byAlpha: Row[] = c.byAlpha.map((x) => ({
    dataset: sc.name,
    mechanism: x.mechanism,
    method: x.method,
    alpha: x.alpha,
    epsilon: p.epsilon,
    scale: x.scale,
  }));
  const byEps: Row[] = c.byEpsilon.map((x) => ({ dataset: sc.name, mechanism: x.mechanism, method: x.method, epsilon: x.epsilon, variance: x.variance }));
  const notPlotted = c.notPlotted;
  const numbers: PlotNumber[] = [
    ...byAlpha.map((r) => ({
      mechanism: String(r.mechanism),
      method: String(r.method),
      alpha: Number(r.alpha),
      epsilon: Number(r.epsilon),
      value: Number(r.scale),
      what: 'scale' as const,
    })),
    ...byEps.map((r) => ({
      mechanism: String(r.mechanism),
      method: String(r.method),
      alpha: p.alpha,
      epsilon: Number(r.epsilon),
      value: Number(r.variance),
      what: 'variance' as const,
    })),
  ];
  const remarks = mechanisms.flatMap((m) => {
    const r = mechanismDef(m).coupledIsTheorem;
    return r && p.methods.includes('theorem') && p.methods.includes('coupled') ? [r] : [];
  });
  return {
    type: 'plots',
    remarks,
    alpha: await svg(scaleVsAlphaChart(byAlpha, { title: `Noise scale against α (ε = ${p.epsilon})`, mark: alpha })),
    numbers,
    notPlotted,
    epsilon: byEps.length
      ? await svg(varianceChart(byEps, { title: `Noise variance against ε (α = ${p.alpha})`, x: 'epsilon', xTitle: 'privacy budget ε', byMethod: true }))
      : '',
  };
}

/** Why the page draws no plots for these results, or null. */
function noPlots(p: CalibrateParams): string | null {
  if (state.columns.length > 1)
    return `No plots for a vector query yet (${state.columns.length} columns released together); the table lists each method's common noise scale.`;
  if (p.delta !== undefined) return 'No plots for an (ε, δ) target: each method goes through its own Rényi order (shown in the rule column).';
  return null;
}

/** A sequence table as its chain class, the chain's laws as the scenario (the CLI's `--sequence`, same counts and chains). */
function chainLaws(table: TextTable, p: CalibrateParams) {
  const s = p.sequence!;
  if (!s.state || !s.orderBy || !s.query) throw new InputError('choose the state column, the order column and what to release', 'form');
  const t = textTransitionCounts(table, { sequence: s.state, orderBy: s.orderBy, ...(s.groupBy ? { groupBy: s.groupBy } : {}) });
  const prior = priorClassOf(p);
  const { markov, model } = sequenceChain(t, { query: parseSequenceQuery(s.query), ...(s.length !== undefined ? { length: s.length } : {}), prior });
  const name = `${p.fileName}: ${s.query} over ${s.state}${s.groupBy ? ` by ${s.groupBy}` : ''} (T = ${markov.length})`;
  const scenario = markovScenario(model, name).scenario;
  state.scenario = scenario as Scenario | PointScenario;
  state.columns = 'histogram' in markov.query ? t.states : [s.query];
  state.chain = { name, markov: { ...markov, chains: markov.chains.map((c, i) => (i === 0 ? { ...c, transitionCounts: t.counts } : c)) } };
  return {
    scenario,
    t,
    markov,
    model,
    data: { rows: t.rows, used: t.rows - t.dropped, dropped: t.dropped, droppedWhy: 'a missing state, order or group value', skippedGiven: [] },
  };
}

/**
 * The audit of the window counts last calibrated, at the form's scale and order (`audit --window`):
 * one row per order, the bound on D_α (path- or boundary-coupled, the smaller per pair) at its binding time and pair — a certified upper
 * bound, so a pass is certified and a fail may be the bound's looseness.
 */
function windowAudit(model: MarkovModel, lengths: number[], m: Extract<Request, { type: 'audit' }>): Response {
  if (alphaOf(m.alpha) === Infinity)
    throw new InputError(
      'the window bounds hold at finite orders α > 0 but 1 (at α = ∞ the MQM and group DP are ε-Pufferfish by construction, with nothing to audit): give a finite α',
      'alpha',
    );
  const rows = auditWindows(model, lengths, { mechanism: m.mechanism as Mechanism, scale: m.scale, alphas: [alphaOf(m.alpha)] }).map(
    (r): AuditRow => ({
      alpha: r.alpha,
      prior: r.binding ? `X[${r.binding.time}] of ${lengths.length} windows` : `${lengths.length} windows`,
      pair: r.binding?.pair ?? ['', ''],
      direction: r.binding?.pair ?? ['', ''],
      divergence: r.bound,
      error: 0,
      certificate: 'coupled-bound',
      slack: m.epsilon - r.bound,
      epsilonEq5: null,
      epsilonSharp: null,
      pufferfishEpsilon: null,
    }),
  );
  return { type: 'audit', rows, mechanism: m.mechanism, scale: m.scale, alpha: m.alpha, epsilon: m.epsilon, target: m.target ?? null, bound: true };
}

/**
 * The window counts of the series calibrated last, released together (the CLI's `release --window`
 * without a ledger): each closed window's count read from the table, one exact draw each at the
 * smallest scale of the vector's methods (boundary- and path-coupled, MQM, group DP) for all windows together.
 * A series released as it happens, a window at a time under one budget, is the CLI's ledger.
 */
function onWindowsRelease(model: MarkovModel, lengths: number[], series: NonNullable<typeof state.windowSeries>, m: ReleaseRequest, post: Post): void {
  if (m.count !== 1) throw new InputError('draws one release per window (each further draw would cost budget): set Draws to 1', 'count');
  if (series.groups) throw new InputError('releases the windows of one series: choose no independent sequences', 'form');
  checkedSettings({ mechanism: m.mechanism, epsilon: m.epsilon, methods: m.methods, ...(m.delta !== undefined ? { delta: m.delta } : { alpha: m.alpha }) });
  const counts = closedWindows(textWindowCounts(state.table!, series.q, series.states, series.values, lengths), lengths, series.labels, 'form');
  const r = releaseWindows(
    model,
    lengths,
    counts,
    // With an (ε, δ) target the orders come from the windows' grid; α = 2 stands in, unread.
    {
      mechanism: m.mechanism as Mechanism,
      // The method the curator picked from the windows' rows, else the smallest scale of them all.
      method: (WINDOW_METHODS as readonly string[]).includes(m.method) ? (m.method as WindowMethod) : 'best',
      epsilon: m.epsilon,
      ...(m.delta !== undefined ? { alpha: 2, delta: m.delta } : { alpha: alphaOf(m.alpha) }),
    },
    { allowNoNoise: m.allowNoNoise },
  );
  const c = r.calibration;
  post({
    type: 'released',
    values: r.values,
    intervals: r.intervals,
    labels: series.labels.map((l) => `window ${l} (${c.winner ?? c.method}, scale ${r.scale})`),
    scale: r.scale,
    method: c.winner ?? c.method,
    guarantee: `${windowGuarantee(c)} for every X_i = a, the ${lengths.length} windows together`,
    together: lengths.length,
    windows: true,
    confidence: r.confidence,
  });
}

/** The chain's spec, with the windows last calibrated in its query (`calibrate --spec` then gives the window methods). */
const chainSpec = (markov: unknown) =>
  state.windows ? { ...(markov as { query: object }), query: { ...(markov as { query: object }).query, windows: state.windows } } : markov;

/**
 * Window counts of the chain (the CLI's `calibrate --sequence … --window`): the vector's methods —
 * the boundary- and path-coupled bounds, the MQM and group DP (docs/math.md §19) — per family, each window's noise
 * scale with its 95% error bar; a method that does not apply is listed with its reason.
 */
async function windowRows(p: CalibrateParams, model: MarkovModel, length: number, mechanisms: Mechanism[], alpha: number, skipped: Skipped[], post: Post) {
  const s = p.sequence!;
  if (calendarUnit(s.window!) && s.groupBy)
    throw new InputError('calendar windows read the dates of one series: choose no independent sequences, or give window lengths', 'window');
  const { lengths, labels } = await seriesWindows(s.window!, length, () => textOrderValues(state.table!, { sequence: s.state, orderBy: s.orderBy }, length));
  windowContribution(model);
  const methods = WINDOW_METHODS.filter((m) => m !== 'best');
  const progress = progressOf(post, mechanisms.length * methods.length);
  const rows: ResultRow[] = [];
  let k = 0;
  for (const mechanism of mechanisms)
    for (const method of methods) {
      const at = k++;
      progress.step(at, `${mechanism} ${method}: ${lengths.length} windows`);
      const target = p.delta !== undefined ? { delta: p.delta } : {};
      const r = calibrateWindows(model, lengths, { mechanism, method, alpha, epsilon: p.epsilon, ...target }, (step) =>
        progress.step(at, `${mechanism} ${step}: ${lengths.length} windows`),
      );
      if (r.scale === null) {
        skipped.push({ mechanism, method, reason: r.explanation });
        continue;
      }
      const def = mechanismDef(mechanism);
      rows.push({
        mechanism,
        method,
        label: `${method} (${lengths.length} windows)`,
        rule: r.explanation,
        scale: r.scale,
        halfWidth: r.scale > 0 ? def.halfWidth(r.scale, 0.95, noiseOptions({})) : 0,
        variance: def.variance(r.scale, noiseOptions({})),
        binding: r.binding ? { prior: `X[${r.binding.time}]`, pair: r.binding.pair } : null,
        explanation: r.explanation,
        // With an (ε, δ) target: the order it went through and its Rényi budget (α = ∞: ε itself).
        ...(r.target ? { alpha: r.alpha, renyiEpsilon: r.epsilon } : {}),
      });
    }
  state.windows = lengths;
  state.windowModel = model;
  const q = { sequence: s.state, orderBy: s.orderBy };
  state.windowSeries = { q, ...windowSteps(model), labels, groups: !!s.groupBy };
  return rows;
}

/**
 * A chain: every chosen (mechanism, method) in turn on this worker — the chain's own methods need
 * the chain, which the pool's tasks do not carry — then the transition matrix and the noise per method.
 */
async function onChain(p: CalibrateParams, post: Post, mechanisms: Mechanism[], alpha: number, cont: ReturnType<typeof contaminationOf>): Promise<void> {
  const { scenario, t, markov, model, data } = chainLaws(state.table!, p);
  const skipped: Skipped[] = [];
  // The chain's laws and its own methods, through the page's grid (each run on this thread, its units as progress).
  const rows: ResultRow[] = p.sequence?.window
    ? await windowRows(p, model, markov.length, mechanisms, alpha, skipped, post)
    : (await formGrid(p, scenario, mechanisms, alpha, skipped, cont, post)).map(rowOf);
  post({
    type: 'results',
    alpha: p.alpha,
    epsilon: p.epsilon,
    ...(p.delta !== undefined ? { delta: p.delta } : {}),
    scenario: scenario.name,
    data,
    skipped,
    rows,
    columns: state.columns,
    ...(state.columns.length > 1 ? { dimension: state.columns.length } : {}),
  });
  const transition = markov.chains[0].transition;
  post({
    type: 'chain',
    states: t.states,
    transition,
    counts: t.counts,
    sequences: t.sequences,
    longest: t.longest,
    length: markov.length,
    draws: markov.chains.length - 1,
    note: neverPossibleNote(model),
    heatmap: await svg(transitionHeatmap(t.states, transition)),
    bars: await svg(
      methodScaleBars(
        rows.map((r) => ({ method: r.label, mechanism: r.mechanism, scale: r.scale })),
        `Noise scale per method (${p.delta !== undefined ? `ε = ${p.epsilon}, δ = ${p.delta}` : `α = ${p.alpha === 'inf' ? '∞' : p.alpha}, ε = ${p.epsilon}`})`,
      ),
    ),
  });
  post(
    noPlotsAnswer(
      `For a chain the page shows the transition matrix and the noise per method (above); the scale against α is in the CLI (calibrate --alpha 1.5:10:0.5).${p.sequence?.window ? ' Window counts take the vector’s own methods (boundary- and path-coupled, MQM, group DP), whichever method boxes are ticked.' : ''}`,
    ),
  );
}

/** The calibration form: the results table, then the plots. */
async function onCalibrate(p: CalibrateParams, post: Post): Promise<void> {
  // With an (ε, δ) target the orders come from the grid; α = 2 stands in for the up-front checks.
  const alpha = p.delta !== undefined ? 2 : alphaOf(p.alpha);
  checkedSettings({
    mechanisms: p.mechanisms,
    methods: p.methods,
    // With an (ε, δ) target the α field is not read (disabled), so it is not checked either.
    ...(p.delta !== undefined ? { delta: p.delta } : { alpha: p.alpha }),
    epsilon: p.epsilon,
    contamination: p.contamination?.lambda,
  });
  forgetCalibration();
  if (state.table && p.sequence) {
    const mechanisms = gridFamilies(p.mechanisms as Mechanism[], alpha, []);
    for (const mechanism of mechanisms) checkSettings({ mechanism, method: 'theorem', alpha, epsilon: p.epsilon });
    if (!p.mechanisms.length || !p.methods.length) throw new InputError('choose at least one mechanism and one method', 'form');
    return onChain(p, post, mechanisms, alpha, contaminationOf(p.contamination));
  }
  if (state.table && p.statistic) return onStatistic(p, post, alpha);
  let data: DataUsed | null = null;
  if (state.table) ({ scenario: state.scenario, data } = formLaws(state.table, p));
  const sc = state.scenario;
  if (!sc) throw new InputError('load a table or pick a built-in scenario', 'form');
  const skipped: Skipped[] = [];
  const mechanisms = gridFamilies(p.mechanisms as Mechanism[], alpha, skipped);
  // Same checks and wording as the CLI (α, ε, mechanism).
  for (const mechanism of mechanisms) checkSettings({ mechanism, method: 'theorem', alpha, epsilon: p.epsilon });
  if (!p.mechanisms.length || !p.methods.length) throw new InputError('choose at least one mechanism and one method', 'form');
  const cont = contaminationOf(p.contamination);
  if (cont.contamination && state.columns.length > 1)
    throw new InputError(
      "covers one column's range on this page; for several columns give the box with the CLI (--contamination λ --domain LO,HI;LO,HI), or set λ to 0",
      'contamination',
    );
  // A bad range is the calibration's error (by field), not a reason to skip every method.
  if (cont.contamination) checkContamination(cont.contamination, sc as Scenario);
  const columns = state.columns;
  const results = (rows: ResultRow[]): Response => ({
    type: 'results',
    alpha: p.alpha,
    epsilon: p.epsilon,
    ...(p.delta !== undefined ? { delta: p.delta } : {}),
    scenario: sc.name,
    data,
    skipped,
    rows,
    columns,
    ...(columns.length > 1 ? { dimension: columns.length } : {}),
  });
  if (p.delta !== undefined) {
    post(results((await formGrid(p, sc, mechanisms, alpha, skipped, cont, post)).map(rowOf)));
    post(noPlotsAnswer(noPlots(p) ?? ''));
    return;
  }
  const rows = await formGrid(p, sc, mechanisms, alpha, skipped, cont, post);
  post(results(rows.map(rowOf)));
  const none = noPlots(p);
  post(none ? noPlotsAnswer(none) : await plots(p, sc, mechanisms, alpha, rows, cont));
}

/**
 * A sum or mean of the table's column (the CLI's `--query sum:COL|mean:COL`, per public group with
 * `given` as `--group-by`): each group's noise is calibrated on its own rows' laws of one row's
 * contribution, and shown in the statistic's units (docs/math.md §18); with `targetHalfwidth`, the
 * smallest ε per group whose 95% error bar is within it (`best` for the first family).
 */
async function onStatistic(p: CalibrateParams, post: Post, alpha: number): Promise<void> {
  const kind = p.statistic!;
  const ofColumn = kind === 'sum' || kind === 'mean';
  if ((ofColumn && !p.query) || !p.secretColumn) throw new InputError(`choose ${ofColumn ? 'the query column and ' : ''}the secret column`, 'form');
  if (p.also?.length) throw new InputError('a statistic is of one column or condition: untick the further columns', 'form');
  if (p.delta !== undefined && p.targetHalfwidth !== undefined)
    throw new InputError('plans by accuracy at a Rényi order on this page: give α, or use the CLI (--delta with --target-halfwidth)', 'target-halfwidth');
  const statistic: Statistic = {
    kind,
    ...(ofColumn ? { column: p.query } : p.predicate ? { predicate: p.predicate } : {}),
    ...(p.unit ? { unit: p.unit } : {}),
  };
  let t: TableStatistic;
  try {
    t = statisticFromText(state.table!, {
      statistic,
      secretColumn: p.secretColumn,
      ...(p.values?.length ? { values: p.values } : {}),
      ...(p.given ? { groupBy: p.given } : {}),
      prior: priorText(p),
      ...(p.seed !== undefined ? { seed: seedOf(p) } : {}),
      name: `${p.fileName}: ${statisticText(statistic)} by ${p.secretColumn}${p.given ? ` per ${p.given}` : ''}${p.unit ? ` (units: ${p.unit})` : ''}`,
    });
  } catch (err) {
    // The CLI's flags, as the page's fields.
    const field = err instanceof InputError && err.path !== undefined ? PAGE_FIELD[err.path] : undefined;
    if (field) throw new InputError((err as InputError).reason, field);
    throw err;
  }
  state.scenario = null;
  state.statistic = t;
  state.columns = [ofColumn ? p.query : t.label];
  if (!p.mechanisms.length || !p.methods.length) throw new InputError('choose at least one mechanism and one method', 'form');
  const skipped: Skipped[] = [];
  // Integer noise adds to a count or sum; a mean divides by n (the CLI refuses it the same way).
  const mechanisms = gridFamilies(p.mechanisms as Mechanism[], alpha, skipped).filter((mechanism) => {
    const lattice = (kind === 'mean' || kind === 'share') && mechanismDef(mechanism).composes === 'lattice';
    if (lattice)
      skipped.push({
        mechanism,
        method: 'every method',
        reason: `a ${kind} divides by n: publish the ${kind === 'mean' ? 'sum' : 'count'} (integer noise), then divide`,
      });
    return !lattice;
  });
  if (!mechanisms.length) throw new InputError(`choose a mechanism that releases a ${kind} (Laplace or Gaussian)`, 'form');
  for (const mechanism of mechanisms) checkSettings({ mechanism, method: 'theorem', alpha, epsilon: p.epsilon });
  const cont = contaminationOf(p.contamination);
  const rows: ResultRow[] = [];
  for (const g of t.groups) {
    const to = toStatistic(g);
    // (ε, δ): each method through its best order, as for a table's values (calibrate --delta).
    const found = await formGrid(p, g.scenario, mechanisms, alpha, skipped, cont, post);
    for (const r of found)
      rows.push({ ...rowOf({ ...resultInUnits(r, g), label: r.label }), halfWidth: to.scale(half(r)), ...(p.given ? { group: g.group } : {}), units: g.units });
  }
  const plan = p.targetHalfwidth === undefined ? undefined : await statisticPlan(p, t, mechanisms[0], alpha, cont);
  post({
    type: 'results',
    alpha: p.alpha,
    epsilon: p.epsilon,
    ...(p.delta !== undefined ? { delta: p.delta } : {}),
    scenario: t.groups[0].scenario.name.replace(/ \| .*$/, ''),
    data: null,
    skipped,
    rows,
    columns: state.columns,
    statistic: { label: t.label, ...(p.given ? { groupBy: p.given } : {}), notes: statisticAssumptions(t, p.given || undefined) },
    ...(plan ? { plan } : {}),
  });
  post(
    noPlotsAnswer(
      `No plots for a statistic yet: the table lists each group’s noise per method.${t.groups.length > 1 ? ' The audit checks every group at one scale in the statistic’s units (as audit --group-by does); no spec is written per group (nor by the CLI).' : ''}`,
    ),
  );
}

/** The page's field for a statistic's CLI flag. */
const PAGE_FIELD: Record<string, string> = { '--group-by': 'given', '--unit': 'unit' };

/** The plan by accuracy of a statistic: per group, the smallest ε whose 95% error bar (best method) is within ±H. */
async function statisticPlan(
  p: CalibrateParams,
  t: TableStatistic,
  mechanism: Mechanism,
  alpha: number,
  cont: ReturnType<typeof contaminationOf>,
): Promise<StatisticPlan> {
  const target = p.targetHalfwidth as number;
  if (!(target > 0 && Number.isFinite(target)))
    throw new InputError('must be a number > 0 (the error bar wanted, ± in the statistic’s units)', 'target-halfwidth');
  const groups: StatisticPlan['groups'] = [];
  for (const g of t.groups) {
    const bar = (epsilon: number) => {
      const r = calibrate(g.scenario, { mechanism, method: 'best', alpha, epsilon, ...cont });
      return toStatistic(g).scale(half(r));
    };
    const found = await smallestEpsilon(async (e) => bar(e), target);
    groups.push({ group: g.group, epsilon: found.epsilon, halfWidth: bar(found.epsilon), floor: found.floor });
  }
  return { target, mechanism, groups };
}

/**
 * A vector value as typed ("12, 40"): `d` coordinates, each a plain decimal number read exactly
 * (no hexadecimal, no empty coordinate read as 0); the first bad one is named by its position.
 */
function coordinates(text: string, d: number): number[] {
  const parts = text.trim() !== '' ? text.split(',').map((x) => x.trim()) : [];
  if (parts.length !== d) throw new InputError(`needs ${d} numbers separated by commas (one per query column), got ${parts.length}`, 'value');
  return parts.map((x, i) => {
    const v = isDecimal(x) ? Number(x) : Number.NaN;
    if (!Number.isFinite(v)) throw new InputError(`coordinate ${i + 1} ('${x}') is not a finite decimal number`, 'value');
    return v;
  });
}

type ReleaseRequest = Extract<Request, { type: 'release' }>;

/**
 * The method of a release: the one picked in the release step, else the smallest scale among the
 * chosen methods that apply to this many draws accounted together (exact covers one release), else best.
 */
function releaseMethod(m: ReleaseRequest, sc: AnyScenario, base: { mechanism: Mechanism; alpha: number; epsilon: number }): SingleMethod | 'best' {
  if (m.method !== '') return m.method as SingleMethod;
  const ok = applicableMethods({ ...base, method: 'best' });
  const chosen = (m.methods as SingleMethod[]).filter((k) => ok.includes(k));
  const scaleOf = (k: SingleMethod) => {
    try {
      const noise = { mechanism: base.mechanism, method: k };
      const held = { releases: m.count, ...contaminationOf(m.contamination) };
      return m.delta === undefined
        ? calibrateFor(sc, { kind: 'renyi', alpha: base.alpha, epsilon: base.epsilon, ...held }, noise).scale
        : calibrateFor(sc, { kind: 'epsilon-delta', epsilon: base.epsilon, delta: m.delta, alphas: DEFAULT_DELTA_ALPHAS, ...held }, noise).scale;
    } catch (err) {
      if (err instanceof InputError) return Infinity;
      throw err;
    }
  };
  const fits = chosen.map((k) => ({ k, s: scaleOf(k) })).filter((x) => x.s < Infinity);
  return fits.length ? fits.reduce((x, y) => (y.s < x.s ? y : x)).k : 'best';
}

/** A release's notes for the curator, joined (none: undefined). */
const notesOf = (r: object) => [(r as { note?: string }).note, (r as { drawNote?: string }).drawNote].filter((x): x is string => !!x).join(' ') || undefined;

/**
 * A statistic's release: the tool computes each group's total from the table and adds the noise
 * calibrated for its own rows (one draw per group), printed in the statistic's units (a mean's
 * value and interval divided by n, the interval rounded outward).
 */
function onStatisticRelease(t: TableStatistic, m: ReleaseRequest, post: Post): void {
  checkedSettings({ mechanism: m.mechanism, ...(m.delta !== undefined ? { delta: m.delta } : { alpha: m.alpha }), epsilon: m.epsilon, methods: m.methods });
  if (m.count !== 1) throw new InputError('draws one release per group for a statistic (each further draw would cost budget): set Draws to 1', 'count');
  refuseLeftOutGroups(t, m.leaveOutGroups);
  const base = {
    mechanism: m.mechanism as Mechanism,
    alpha: m.delta === undefined ? alphaOf(m.alpha) : 2,
    epsilon: m.epsilon,
    ...contaminationOf(m.contamination),
  };
  const out = t.groups.map((g) => {
    const r = release(g.scenario, { ...base, method: releaseMethod(m, g.scenario, base) }, g.total, {
      count: 1,
      allowNoNoise: m.allowNoNoise,
      ...(m.delta !== undefined ? { delta: m.delta } : {}),
    });
    const to = toStatistic(g);
    return { g, r, value: to.value(r.values[0] as number), interval: to.interval(r.intervals[0] as [number, number]), scale: to.scale(r.scale) };
  });
  post({
    type: 'released',
    values: out.map((x) => x.value),
    intervals: out.map((x) => x.interval),
    labels: out.map((x) => `${x.g.group ? `${x.g.group} (n = ${x.g.units}` : `(n = ${x.g.units}`}, ${x.r.method}, scale ${x.scale})`),
    ...(t.skipped.length ? { note: `${t.skipped.length} group(s) left out, not released (rows of one secret value)` } : {}),
    scale: out[0].scale,
    method: out.map((x) => x.r.method).join(', '),
    guarantee: out[0].r.guarantee,
    together: 1,
    confidence: out[0].r.confidence,
  });
}

/** A release of the value (a vector query: the coordinates as typed), after the page's confirmation of what it publishes. */
function onRelease(m: ReleaseRequest, post: Post): void {
  if (state.statistic) {
    try {
      onStatisticRelease(state.statistic, m, post);
    } catch (err) {
      if (err instanceof InputError && err.path === '--leave-out-groups') post({ type: 'left-out', reason: err.reason });
      else if (err instanceof InputError && err.path === 'allow-no-noise') post({ type: 'no-noise', reason: err.reason });
      else throw err;
    }
    return;
  }
  if (state.windows && state.windowModel && state.windowSeries) {
    try {
      onWindowsRelease(state.windowModel, state.windows, state.windowSeries, m, post);
    } catch (err) {
      if (!(err instanceof InputError && err.path === 'allow-no-noise')) throw err;
      post({ type: 'no-noise', reason: err.reason });
    }
    return;
  }
  const sc = state.scenario;
  const vector = state.columns.length > 1;
  if (!vector && (typeof m.value !== 'number' || !Number.isFinite(m.value))) throw new InputError('enter the value to privatize (a finite number)', 'value');
  checkedSettings({
    mechanism: m.mechanism,
    ...(m.delta !== undefined ? { delta: m.delta } : { alpha: m.alpha }),
    epsilon: m.epsilon,
    ...(vector ? {} : { value: m.value }),
    count: m.count,
    methods: m.methods,
  });
  if (!sc) throw new InputError('calibrate first', 'form');
  const value = vector ? coordinates(m.vector, state.columns.length) : m.value;
  // (ε, δ): the order is searched; 2 stands in for applicability.
  const base = {
    mechanism: m.mechanism as Mechanism,
    alpha: m.delta === undefined ? alphaOf(m.alpha) : 2,
    epsilon: m.epsilon,
    ...contaminationOf(m.contamination),
  };
  let r: ReturnType<typeof release>;
  try {
    const opts = { count: m.count, allowNoNoise: m.allowNoNoise, ...(m.delta !== undefined ? { delta: m.delta } : {}) };
    r = release(sc, { ...base, method: releaseMethod(m, sc, base) }, value, opts);
  } catch (err) {
    if (!(err instanceof InputError && err.path === 'allow-no-noise')) throw err;
    post({ type: 'no-noise', reason: err.reason });
    return;
  }
  // How many draws the calibration covered together (the page claims joint accounting only from this).
  const together = 'halfWidths' in r ? r.values.length : (r.calibration?.releases ?? settingDefault('releases'));
  post({
    type: 'released',
    values: r.values,
    scale: r.scale,
    method: r.method,
    guarantee: r.guarantee,
    together,
    confidence: r.confidence,
    intervals: r.intervals,
    ...(r.target ? { alpha: r.alpha } : {}),
    ...(notesOf(r) ? { note: notesOf(r) } : {}),
  });
}

/**
 * What the last calibration left for the audit, release and spec (a chain, its windows, a
 * statistic): gone once another table, scenario or calibration comes, so none of them answers for
 * laws no longer on the page.
 */
function forgetCalibration(): void {
  state.chain = null;
  state.windows = null;
  state.windowModel = null;
  state.windowSeries = null;
  state.statistic = null;
}

/** A table read: the preview's column summaries, and its numeric columns as the query list. */
function onTable(table: TextTable, post: Post): void {
  state.table = table;
  state.scenario = null;
  forgetCalibration();
  state.columns = [];
  const summaries = columnSummaries(table);
  post({ type: 'loaded', columns: table.columns, numeric: summaries.filter((c) => c.numeric).map((c) => c.name), rows: table.rows.length, summaries });
}

const handlers: { [T in Request['type']]: (m: Extract<Request, { type: T }>, post: Post) => void | Promise<void> } = {
  load: (m, post) => {
    const q = uciQuirks(m.name);
    onTable(parseDelimited(m.text, { separator: q.separator, header: q.header, columns: q.columns, skip: q.skip }), post);
  },
  // Parquet is read by hyparquet, loaded only when a Parquet file arrives.
  'load-parquet': async (m, post) => onTable(await (await import('../src/sources/parquetText.js')).parquetTable(m.bytes), post),
  builtin: (m, post) => {
    state.table = null;
    forgetCalibration();
    state.columns = [];
    const b = builtinScenario(m.id);
    state.scenario = b;
    const xs = b.priors.flatMap((pr) => Object.values(pr.conditionals).flatMap((d) => [d.values[0], d.values[d.values.length - 1]]));
    post({ type: 'loaded-builtin', name: b.name, secrets: Object.keys(b.priors[0].conditionals), range: [Math.min(...xs), Math.max(...xs)] });
  },
  values: (m, post) => {
    if (!state.table) throw new InputError('load a table first', 'file');
    post({ type: 'values', column: m.column, ...distinctValues(state.table, m.column) });
  },
  calibrate: (m, post) => onCalibrate(m.params, post),
  audit: (m, post) => {
    checkedSettings({ mechanism: m.mechanism, scale: m.scale, alpha: m.alpha, epsilon: m.epsilon });
    // A statistic's scale is in its own units: one unit's contribution takes it times n (rounded down), as `audit --data … --query mean:COL` does.
    if (state.windows && state.windowModel) {
      post(windowAudit(state.windowModel, state.windows, m));
      return;
    }
    const s = { mechanism: m.mechanism as Mechanism, alphas: [alphaOf(m.alpha)], epsilon: m.epsilon, delta: 1e-6 };
    // Public groups (`audit --group-by`): each group on its own rows' laws, at the scale in the statistic's units.
    const groups = state.statistic?.groups;
    const byGroup = groups && (groups.length > 1 || groups[0].group !== '');
    if (!groups && !state.scenario) throw new InputError('calibrate first', 'form');
    const rows = groups
      ? groups.flatMap((g) => audit(g.scenario, { ...s, scale: toStatistic(g).fromScale(m.scale) }).map((r) => (byGroup ? { ...r, group: g.group } : r)))
      : audit(state.scenario!, { ...s, scale: m.scale });
    // Rows read off a coupled bound are certified upper bounds (a vector of more than two columns, Gaussian noise on two):
    // said so; two columns under Laplace noise are exact on ℝ² (docs/math.md §12).
    const bound = rows.some((r) => r.certificate === 'coupled-bound');
    post({ type: 'audit', rows, mechanism: m.mechanism, scale: m.scale, alpha: m.alpha, epsilon: m.epsilon, target: m.target ?? null, bound });
  },
  release: onRelease,
  spec: (m, post) => {
    if (state.statistic) {
      // One statistic of the whole table: its laws and n (`calibrate --spec` gives the same scales); per group: none (the CLI neither).
      const t = state.statistic;
      const g = t.groups.length === 1 && !t.groups[0].group ? t.groups[0] : null;
      const base = { mechanism: m.mechanism, ...(m.delta !== undefined ? { delta: m.delta } : { alpha: m.alpha }), epsilon: m.epsilon };
      post({ type: 'spec', spec: g ? { statistic: { ...t.statistic, units: g.units }, ...scenarioSpec(g.scenario), ...base } : null });
      return;
    }
    if (!state.scenario) throw new InputError('calibrate first', 'form');
    // An (ε, δ) target: the spec carries δ, and the CLI searches the orders as the page did.
    post({
      type: 'spec',
      spec: {
        ...(state.chain ? { name: state.chain.name, markov: chainSpec(state.chain.markov) } : scenarioSpec(state.scenario)),
        mechanism: m.mechanism,
        ...(m.delta !== undefined ? { delta: m.delta } : { alpha: m.alpha }),
        epsilon: m.epsilon,
      },
    });
  },
};

self.onmessage = async (e: MessageEvent<Envelope<Request>>) => {
  const m = e.data;
  // An await may let the next request in: this request's answers carry its own id and kind.
  const post: Post = (r) => (self as unknown as Worker).postMessage({ ...r, rid: m.rid, kind: m.kind });
  try {
    await (handlers[m.type] as (m: Request, post: Post) => void | Promise<void>)(m, post);
  } catch (err) {
    post({ type: 'error', message: err instanceof InputError ? `error: ${err.message}` : `error: internal error: ${(err as Error).message}` });
  }
};
