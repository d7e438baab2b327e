// The library runs here, off the page's thread. Messages in: load | builtin | values | calibrate | audit | release.
import * as vega from 'vega';
import { compile } from 'vega-lite';
import { expressionInterpreter } from 'vega-interpreter';
import {
  applicableMethods,
  calibrate,
  checkSettings,
  METHOD_LABEL,
  type CalibrationResult,
  type Mechanism,
  type SingleMethod,
} from '../src/calibrate/calibrate.js';
import { audit } from '../src/audit/audit.js';
import { builtinScenario } from '../src/scenarios/builtin.js';
import { checkContamination } from '../src/calibrate/contamination.js';
import { columnSummaries, distinctValues, parseDelimited, textHistograms, type TextTable } from '../src/sources/csvText.js';
import { mechanismDef, noiseOptions } from '../src/mechanisms/registry.js';
import { parsePriorClass, tableScenario } from '../src/sources/priors.js';
import { formatPath } from '../src/spec/load.js';
import { validate, workerSettingsSchema } from '../src/spec/schema.js';
import { calibrateEpsDelta, epsDeltaBest, epsDeltaTrials, DEFAULT_DELTA_ALPHAS } from '../src/calibrate/epsDelta.js';
import { InputError } from '../src/errors.js';
import { release } from '../src/release/release.js';
import { scaleVsAlphaChart, varianceChart, type Row } from '../src/reproduce/charts.js';
import { uciQuirks } from '../src/uci/formats.js';
import type { Scenario } from '../src/distribution/scenario.js';
import { auditPoints } from '../src/account/points.js';
import { dimensionOf } from '../src/calibrate/points.js';
import { isPointScenario, pointScenarioOf, type PointScenario } from '../src/distribution/points.js';
import { releasePoints } from '../src/release/points.js';
import { scenarioSpec } from '../src/spec/write.js';
import { CalibrationPool, defaultThreads } from '../src/calibrate/pool.js';
import { webRunner } from './webRunner.js';

/**
 * Calibrations run on this worker and nested ones, one fewer threads than cores (at least 1, at most 8; `defaultThreads`), or as many as the page asks
 * (`?threads=N`); nested workers start only for work that repays them. Same code either way, so the same numbers.
 */
let pool: CalibrationPool | null = null;
let poolHelpers: number | undefined;
function poolOf(threads: unknown, helpers: unknown): CalibrationPool {
  const n = Number.isInteger(threads) && (threads as number) >= 1 ? (threads as number) : defaultThreads(navigator.hardwareConcurrency || 1, 8);
  const worth = helpers === 0 ? 0 : undefined;
  if (!pool || pool.threads !== n || poolHelpers !== worth) {
    poolHelpers = worth;
    void pool?.close();
    pool = new CalibrationPool(n, (t) => webRunner(t, worth));
  }
  return pool;
}

let table: TextTable | null = null;
let scenario: Scenario | PointScenario | null = null;
/** The contamination class on the form (λ > 0), as calibrate and release settings take it. */
const contaminationOf = (c: { lambda?: number; domain?: [number, number] } | undefined) =>
  c && (c.lambda ?? 0) > 0 ? { contamination: { lambda: c.lambda as number, domain: c.domain as [number, number] } } : {};
/** α from a message: a number, or 'inf' (structured clone keeps Infinity too, but the form sends text). */
const alphaOf = (a: unknown): number => (a === 'inf' ? Infinity : (a as number));

/** Vega with its AST interpreter instead of `new Function`, so the page's CSP can forbid eval. */
async function svg(spec: Record<string, unknown>): Promise<string> {
  const view = new vega.View(vega.parse(compile(spec as never).spec, undefined, { ast: true }), { renderer: 'none', expr: expressionInterpreter });
  const out = await view.toSVG();
  view.finalize();
  return out;
}

/** The query columns of the scenario last built from the table (several: a vector query); none for a built-in one. */
let columns: string[] = [];

/** A result row as the page shows it: the 95% half-width of one coordinate's noise beside the scale. */
const half = (r: CalibrationResult) => (r.scale > 0 ? mechanismDef(r.mechanism).halfWidth(r.scale, 0.95, noiseOptions({})) : 0);
const rowOf = (r: CalibrationResult & { label: string; renyiEpsilon?: number }) => ({
  mechanism: r.mechanism,
  method: r.method,
  label: r.label,
  rule: r.rule,
  scale: r.scale,
  halfWidth: half(r),
  variance: r.variance,
  binding: r.binding,
  explanation: r.explanation,
  // With an (ε, δ) target: the Rényi order and budget this row went through.
  ...(r.renyiEpsilon !== undefined ? { alpha: r.alpha, renyiEpsilon: r.renyiEpsilon } : {}),
});

/**
 * A vector query's calibrations (docs/math.md §12), here in this worker: every chosen mechanism and
 * method the vector calibration has (exact would need a d-dimensional integral: listed as skipped),
 * at the form's α or, with an (ε, δ) target, at each method's best order. No plots yet.
 */
async function calibrateVectorRows(
  sc: PointScenario,
  p: any,
  o: {
    mechanisms: Mechanism[];
    skipped: { mechanism: string; method: string; reason: string }[];
    data: unknown;
    cont: { contamination?: unknown };
    applies: (mechanism: Mechanism) => SingleMethod[];
    post: (m: Record<string, unknown>) => void;
  },
): Promise<void> {
  if (o.cont.contamination)
    throw new InputError(
      "covers one column's range on this page; for several columns give the box with the CLI (--contamination λ --domain LO,HI;LO,HI), or set λ to 0",
      'contamination',
    );
  const d = dimensionOf(sc);
  const rows = [];
  for (const mechanism of o.mechanisms) {
    const ok = p.delta === undefined ? o.applies(mechanism) : (p.methods as SingleMethod[]);
    for (const method of p.methods as SingleMethod[]) {
      if (method === 'exact') {
        o.skipped.push({ mechanism, method: METHOD_LABEL[method], reason: `a ${d}-dimensional release would need a ${d}-dimensional integral` });
        continue;
      }
      if (!ok.includes(method)) {
        o.skipped.push({ mechanism, method: METHOD_LABEL[method], reason: `does not apply at α = ${p.alpha}` });
        continue;
      }
      try {
        const r =
          p.delta === undefined
            ? calibrate(sc, { mechanism, method, alpha: p.alpha === 'inf' ? Infinity : p.alpha, epsilon: p.epsilon })
            : calibrateEpsDelta(sc, { mechanism, method }, p.epsilon, p.delta, DEFAULT_DELTA_ALPHAS);
        rows.push(rowOf({ ...r, label: METHOD_LABEL[method] }));
      } catch (err) {
        if (!(err instanceof InputError)) throw err;
        o.skipped.push({ mechanism, method: METHOD_LABEL[method], reason: err.reason });
      }
    }
  }
  o.post({
    type: 'results',
    alpha: p.alpha,
    epsilon: p.epsilon,
    delta: p.delta,
    scenario: sc.name,
    data: o.data,
    skipped: o.skipped,
    rows,
    columns,
    dimension: d,
  });
  o.post({
    type: 'plots',
    alpha: '',
    epsilon: '',
    numbers: [],
    notPlotted: [],
    note: `No plots for a vector query yet (${d} columns released together); the table lists each method's common noise scale.`,
  });
}

/**
 * A vector value as typed ("12, 40"): `d` coordinates, each a plain decimal number read exactly
 * (no hexadecimal, no empty coordinate read as 0); the first bad one is named by its position.
 */
function coordinates(text: unknown, d: number): number[] {
  const parts = typeof text === 'string' && text.trim() !== '' ? text.split(',').map((x) => x.trim()) : [];
  if (parts.length !== d) throw new InputError(`needs ${d} numbers separated by commas (one per query column), got ${parts.length}`, 'value');
  return parts.map((x, i) => {
    const v = Number(x);
    if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(x) || !Number.isFinite(v))
      throw new InputError(`coordinate ${i + 1} ('${x}') is not a finite decimal number`, 'value');
    return v;
  });
}

/** The request being answered: every response carries its id and kind (the page drops stale ones). */
let current: { rid?: number; kind?: string } = {};
const post = (m: Record<string, unknown>) => (self as unknown as Worker).postMessage({ ...m, ...current });

/** A message's settings through the same schema as spec files; the first problem, by field. */
function checkedSettings(settings: Record<string, unknown>): void {
  const r = validate(workerSettingsSchema, settings);
  if (!r.ok) throw new InputError(r.message, r.path.length ? formatPath(r.path) : 'form');
}

self.onmessage = async (e: MessageEvent) => {
  const m = e.data;
  current = { rid: m.rid, kind: m.kind };
  const me = current;
  // An await may let the next request in: answers after it still carry this request's id.
  const postMine = (x: Record<string, unknown>) => (self as unknown as Worker).postMessage({ ...x, ...me });
  try {
    if (m.type === 'load' || m.type === 'load-parquet') {
      if (m.type === 'load-parquet') {
        // Parquet is read by hyparquet, loaded only when a Parquet file arrives.
        const { parquetTable } = await import('../src/sources/parquetText.js');
        table = await parquetTable(m.bytes);
      } else {
        const q = uciQuirks(m.name);
        table = parseDelimited(m.text, { separator: q.separator, header: q.header, columns: q.columns, skip: q.skip });
      }
      scenario = null;
      columns = [];
      // One pass for the preview; the query list is its numeric columns (the same test as numericColumns).
      const summaries = columnSummaries(table);
      const numeric = summaries.filter((c) => c.numeric).map((c) => c.name);
      postMine({ type: 'loaded', columns: table.columns, numeric, rows: table.rows.length, summaries });
    } else if (m.type === 'builtin') {
      table = null;
      columns = [];
      const b = builtinScenario(m.id);
      scenario = b;
      const xs = b.priors.flatMap((pr) => Object.values(pr.conditionals).flatMap((d) => [d.values[0], d.values[d.values.length - 1]]));
      post({ type: 'loaded-builtin', name: b.name, secrets: Object.keys(b.priors[0].conditionals), range: [Math.min(...xs), Math.max(...xs)] });
    } else if (m.type === 'values') {
      if (!table) throw new InputError('load a table first', 'file');
      post({ type: 'values', column: m.column, ...distinctValues(table, m.column) });
    } else if (m.type === 'calibrate') {
      const p = m.params;
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
      let data: { rows: number; used: number; dropped: number; skippedGiven: string[] } | null = null;
      if (table) {
        if (!p.query || !p.secretColumn) throw new InputError('choose the query column and the secret column', 'form');
        const queries: string[] = [p.query, ...(Array.isArray(p.also) ? p.also : [])];
        const h = textHistograms(table, {
          query: p.query,
          ...(queries.length > 1 ? { queries } : {}),
          secretColumn: p.secretColumn,
          values: p.values?.length ? p.values : undefined,
          given: p.given || undefined,
        });
        const t = tableScenario(h, {
          name: `${p.fileName}: ${queries.join(',')} by ${p.secretColumn}${p.given ? ` given ${p.given}` : ''}`,
          given: p.given || undefined,
          prior: parsePriorClass(p.prior ?? 'empirical'),
        });
        scenario = h.vectors ? pointScenarioOf(t.scenario, h.vectors) : t.scenario;
        columns = queries;
        // Rows behind the priors actually built (public values left out are not counted as used).
        let used = 0;
        for (const [gv, g] of h.groups) if (!t.skippedGiven.includes(gv)) for (const hist of g.values()) used += hist.counts.reduce((a, b) => a + b, 0);
        data = { rows: h.rows, used, dropped: h.dropped, skippedGiven: t.skippedGiven };
      }
      if (!scenario) throw new InputError('load a table or pick a built-in scenario', 'form');
      // Same checks and wording as the CLI (α, ε, mechanism).
      // A family that cannot give this α at all (Gaussian at α = ∞) is listed with its reason while
      // another family can; otherwise the error stops the calibration.
      const skipped: { mechanism: string; method: string; reason: string }[] = [];
      let mechanisms = (p.mechanisms as Mechanism[]).filter((mechanism) => {
        const why = mechanismDef(mechanism).alphaRange(alpha);
        if (why) skipped.push({ mechanism, method: 'every method', reason: why });
        return !why;
      });
      if (mechanisms.length === 0) {
        mechanisms = p.mechanisms;
        skipped.length = 0;
      }
      for (const mechanism of mechanisms) checkSettings({ mechanism, method: 'theorem', alpha, epsilon: p.epsilon });
      if (!p.mechanisms.length || !p.methods.length) throw new InputError('choose at least one mechanism and one method', 'form');
      const cont = contaminationOf(p.contamination);
      // The chosen methods that the family's rule table has for this α; the others are listed with the reason.
      const applies = (mechanism: Mechanism, a = alpha) => {
        const ok = applicableMethods({ mechanism, method: 'best', alpha: a, epsilon: p.epsilon });
        return (p.methods as SingleMethod[]).filter((k) => ok.includes(k));
      };
      if (isPointScenario(scenario)) {
        await calibrateVectorRows(scenario, p, { mechanisms, skipped, data, cont, applies, post: postMine });
        return;
      }
      // A bad range is the calibration's error (by field), not a reason to skip every method.
      if (cont.contamination) checkContamination(cont.contamination, scenario);
      const sc = scenario;
      const settingsAt = (mechanism: Mechanism, method: SingleMethod, a: number, epsilon: number) => ({ mechanism, method, alpha: a, epsilon, ...cont });
      const workers = poolOf(p.threads, p.helpers);
      /** Calibrations on the pool, each settled: an InputError is the caller's to list; any other error stops the request. */
      const settled = async (jobs: { mechanism: Mechanism; method: SingleMethod; alpha: number; epsilon: number }[]) => {
        const out = await workers.calibrateSettled(jobs.map((j) => ({ scenario: sc, settings: settingsAt(j.mechanism, j.method, j.alpha, j.epsilon) })));
        for (const r of out) if (r instanceof Error && !(r instanceof InputError)) throw r;
        return out as (CalibrationResult | InputError)[];
      };
      if (p.delta !== undefined) {
        // (ε, δ): every (mechanism, method) tries the orders of the grid (epsDeltaTrials), all on the
        // pool at once; each keeps its smallest scale (epsDeltaBest), as `calibrate --delta` does.
        const groups: { mechanism: Mechanism; method: SingleMethod; trials: ReturnType<typeof epsDeltaTrials>; from: number }[] = [];
        const jobs: { mechanism: Mechanism; method: SingleMethod; alpha: number; epsilon: number }[] = [];
        for (const mechanism of mechanisms)
          for (const method of p.methods as SingleMethod[]) {
            // No order with a positive budget: epsDeltaBest says so below, and the row is listed as skipped.
            const trials = epsDeltaTrials({ mechanism, method, ...cont }, p.epsilon, p.delta);
            groups.push({ mechanism, method, trials, from: jobs.length });
            for (const t of trials) jobs.push({ mechanism, method, alpha: t.alpha, epsilon: t.renyiEpsilon });
          }
        const out = await settled(jobs);
        const rows = [];
        for (const g of groups) {
          try {
            const r = epsDeltaBest(g.trials, out.slice(g.from, g.from + g.trials.length), p.epsilon, p.delta, g.method);
            rows.push(rowOf({ ...r, label: METHOD_LABEL[g.method] }));
          } catch (err) {
            if (!(err instanceof InputError)) throw err;
            skipped.push({ mechanism: g.mechanism, method: METHOD_LABEL[g.method], reason: err.reason });
          }
        }
        postMine({ type: 'results', alpha: p.alpha, epsilon: p.epsilon, delta: p.delta, scenario: sc.name, data, skipped, rows, columns });
        postMine({
          type: 'plots',
          alpha: '',
          epsilon: '',
          numbers: [],
          notPlotted: [],
          note: 'No plots for an (ε, δ) target: each method goes through its own Rényi order (shown in the rule column).',
        });
        return;
      }
      const rows: (CalibrationResult & { label: string })[] = [];
      const asked: { mechanism: Mechanism; method: SingleMethod; alpha: number; epsilon: number }[] = [];
      for (const mechanism of mechanisms) {
        const ok = applies(mechanism);
        for (const method of p.methods as SingleMethod[]) {
          if (ok.includes(method)) asked.push({ mechanism, method, alpha, epsilon: p.epsilon });
          else skipped.push({ mechanism, method: METHOD_LABEL[method], reason: `does not apply at α = ${p.alpha}` });
        }
      }
      for (const [k, r] of (await settled(asked)).entries()) {
        const { mechanism, method } = asked[k];
        if (r instanceof InputError) skipped.push({ mechanism, method: METHOD_LABEL[method], reason: r.reason });
        else rows.push({ ...r, label: METHOD_LABEL[method] });
      }
      postMine({ type: 'results', alpha: p.alpha, epsilon: p.epsilon, scenario: sc.name, data, skipped, rows: rows.map(rowOf), columns });
      // Plots: scale against α per method (Figures 1 and 3), variance against ε. Curves use the
      // closed-form methods; exact (a certified quadrature per point) only at the chosen α and ε.
      // The α axis follows the chosen order (marked on the plot).
      const top = Number.isFinite(alpha) ? Math.max(5.25, alpha * 1.2) : 5.25;
      const alphas = Array.from({ length: 17 }, (_, i) => Number((1.25 + ((top - 1.25) * i) / 16).toPrecision(4)));
      const epsilons = [0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 4, 5];
      const byAlpha: Row[] = [];
      const byEps: Row[] = [];
      const notPlotted: string[] = [];
      const shown = (mechanism: string, method: string) => rows.find((r) => r.mechanism === mechanism && r.method === method);
      // Every plotted calibration at once, on the pool; assembled in the order asked.
      const curve: { mechanism: Mechanism; method: SingleMethod; alpha: number; epsilon: number }[] = [];
      for (const mechanism of mechanisms)
        for (const method of p.methods as SingleMethod[]) {
          if (method === 'exact') continue;
          for (const a of alphas) if (applies(mechanism, a).includes(method)) curve.push({ mechanism, method, alpha: a, epsilon: p.epsilon });
          if (shown(mechanism, method)) for (const e of epsilons) curve.push({ mechanism, method, alpha, epsilon: e });
        }
      const curveResults = await settled(curve);
      const at = (mechanism: Mechanism, method: SingleMethod, a: number, e: number) => {
        const k = curve.findIndex((c) => c.mechanism === mechanism && c.method === method && c.alpha === a && c.epsilon === e);
        return k >= 0 ? curveResults[k] : undefined;
      };
      for (const mechanism of mechanisms)
        for (const method of p.methods as SingleMethod[]) {
          const here = shown(mechanism, method);
          const point = (a: number) => ({ dataset: sc.name, mechanism, method: METHOD_LABEL[method], alpha: a, epsilon: p.epsilon });
          if (method === 'exact') {
            if (here && Number.isFinite(alpha)) byAlpha.push({ ...point(alpha), scale: here.scale });
          } else {
            for (const a of alphas) {
              const r = at(mechanism, method, a, p.epsilon);
              if (r && !(r instanceof InputError)) byAlpha.push({ ...point(a), scale: r.scale });
            }
          }
          if (!here) continue;
          const vs =
            method === 'exact'
              ? [{ epsilon: p.epsilon, variance: here.variance }]
              : epsilons.map((e) => {
                  const r = at(mechanism, method, alpha, e);
                  if (r instanceof InputError) throw r;
                  return { epsilon: e, variance: r!.variance };
                });
          const kept = vs.filter((x) => x.variance > 0);
          if (kept.length < vs.length) notPlotted.push(`${mechanism} ${METHOD_LABEL[method]}`);
          for (const x of kept) byEps.push({ dataset: sc.name, mechanism, method: METHOD_LABEL[method], epsilon: x.epsilon, variance: x.variance });
        }
      postMine({
        type: 'plots',
        alpha: await svg(scaleVsAlphaChart(byAlpha, { title: `Noise scale against α (ε = ${p.epsilon})`, mark: alpha })),
        // The numbers behind the plots, for a text alternative.
        numbers: [
          ...byAlpha.map((r) => ({ mechanism: r.mechanism, method: r.method, alpha: r.alpha, epsilon: r.epsilon, value: r.scale, what: 'scale' })),
          ...byEps.map((r) => ({ mechanism: r.mechanism, method: r.method, alpha: p.alpha, epsilon: r.epsilon, value: r.variance, what: 'variance' })),
        ],
        notPlotted,
        epsilon: byEps.length
          ? await svg(varianceChart(byEps, { title: `Noise variance against ε (α = ${p.alpha})`, x: 'epsilon', xTitle: 'privacy budget ε', byMethod: true }))
          : '',
      });
    } else if (m.type === 'audit') {
      checkedSettings({ mechanism: m.mechanism, scale: m.scale, alpha: m.alpha, epsilon: m.epsilon });
      if (!scenario) throw new InputError('calibrate first', 'form');
      const settings = { mechanism: m.mechanism, scale: m.scale, alphas: [alphaOf(m.alpha)], epsilon: m.epsilon, delta: 1e-6 };
      // A vector query: certified upper bounds (the exact divergence would need a d-dimensional integral).
      const sc = scenario;
      const bound = isPointScenario(sc);
      const rows = isPointScenario(sc) ? auditPoints(sc, settings) : audit(sc, settings);
      post({ type: 'audit', rows, mechanism: m.mechanism, scale: m.scale, alpha: m.alpha, epsilon: m.epsilon, target: m.target ?? null, bound });
    } else if (m.type === 'release') {
      const vector = scenario !== null && isPointScenario(scenario);
      // A vector query reads its coordinates from the text as typed; a scalar one, from the number field.
      const value = vector ? coordinates(m.vector, dimensionOf(scenario as PointScenario)) : m.value;
      if (!vector && (typeof m.value !== 'number' || !Number.isFinite(m.value)))
        throw new InputError('enter the value to privatize (a finite number)', 'value');
      checkedSettings({
        mechanism: m.mechanism,
        ...(m.delta !== undefined ? { delta: m.delta } : { alpha: m.alpha }),
        epsilon: m.epsilon,
        ...(vector ? {} : { value: m.value }),
        count: m.count,
        methods: m.methods,
      });
      const delta = m.delta as number | undefined;
      if (!scenario) throw new InputError('calibrate first', 'form');
      let r: {
        values: (number | number[])[];
        scale: number;
        method: string;
        guarantee: string;
        together: number;
        alpha: number;
        target?: unknown;
        confidence: number;
        intervals: unknown[];
      };
      try {
        // The raw value only after the page has shown why and the user confirmed.
        // The method the results recommend: the smallest scale among the methods chosen (else best).
        const sc = scenario;
        const base = {
          mechanism: m.mechanism as Mechanism,
          alpha: delta === undefined ? alphaOf(m.alpha) : 2, // (ε, δ): the order is searched; 2 stands in for applicability

          epsilon: m.epsilon as number,
          ...contaminationOf(m.contamination),
        };
        // The method picked in the release step; else the smallest scale among the chosen methods
        // that apply to this many draws accounted together (exact covers one release); else best.
        const smallest = (): SingleMethod | 'best' => {
          const ok = applicableMethods({ ...base, method: 'best' });
          const chosen = (Array.isArray(m.methods) ? (m.methods as SingleMethod[]) : []).filter((k) => ok.includes(k));
          const count = typeof m.count === 'number' ? m.count : 1;
          const scaleOf = (k: SingleMethod) => {
            if (vector && k === 'exact') return Infinity;
            try {
              return delta === undefined
                ? calibrate(sc, { ...base, method: k, releases: count }).scale
                : calibrateEpsDelta(sc, { ...base, method: k, releases: count }, base.epsilon, delta, DEFAULT_DELTA_ALPHAS).scale;
            } catch (err) {
              if (err instanceof InputError) return Infinity;
              throw err;
            }
          };
          const fits = chosen.map((k) => ({ k, s: scaleOf(k) })).filter((x) => x.s < Infinity);
          return fits.length ? fits.reduce((x, y) => (y.s < x.s ? y : x)).k : 'best';
        };
        const method = typeof m.method === 'string' && m.method !== '' ? (m.method as SingleMethod) : smallest();
        const opts = { count: m.count, allowNoNoise: m.allowNoNoise === true, ...(delta !== undefined ? { delta } : {}) };
        if (isPointScenario(sc)) {
          const v = releasePoints(sc, { ...base, method }, value as number[], opts);
          r = { ...v, together: v.values.length };
        } else {
          const v = release(sc, { ...base, method }, value as number, opts);
          // How many draws the calibration covered together (the page claims joint accounting only from this).
          r = { ...v, together: v.calibration?.releases ?? 1 };
        }
      } catch (err) {
        if (err instanceof InputError && err.path === 'allow-no-noise') {
          post({ type: 'no-noise', reason: err.reason });
          return;
        }
        throw err;
      }
      post({
        type: 'released',
        values: r.values,
        scale: r.scale,
        method: r.method,
        guarantee: r.guarantee,
        together: r.together,
        confidence: r.confidence,
        intervals: r.intervals,
        ...(r.target ? { alpha: r.alpha } : {}),
      });
    } else if (m.type === 'spec') {
      if (!scenario) throw new InputError('calibrate first', 'form');
      post({
        type: 'spec',
        spec: {
          ...scenarioSpec(scenario),
          mechanism: m.mechanism,
          // An (ε, δ) target: the spec carries δ, and the CLI searches the orders as the page did.
          ...(m.delta !== undefined ? { delta: m.delta } : { alpha: m.alpha }),
          epsilon: m.epsilon,
        },
      });
    }
  } catch (err) {
    postMine({ type: 'error', message: err instanceof InputError ? `error: ${err.message}` : `error: internal error: ${(err as Error).message}` });
  }
};
