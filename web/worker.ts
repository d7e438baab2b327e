// The library runs here, off the page's thread. Messages in: load | builtin | values | calibrate | audit | release.
import * as vega from 'vega';
import { compile } from 'vega-lite';
import { expressionInterpreter } from 'vega-interpreter';
import {
  applicableMethods,
  audit,
  builtinScenario,
  formatPath,
  validate,
  workerSettingsSchema,
  calibrate,
  checkSettings,
  distinctValues,
  InputError,
  METHOD_LABEL,
  numericColumns,
  parseDelimited,
  release,
  scaleVsAlphaChart,
  tableScenario,
  textHistograms,
  uciQuirks,
  varianceChart,
  type CalibrationResult,
  type ChartRow as Row,
  type Mechanism,
  type Scenario,
  type SingleMethod,
  type TextTable,
} from '../src/index.js';

let table: TextTable | null = null;
let scenario: Scenario | null = null;

/** Vega with its AST interpreter instead of `new Function`, so the page's CSP can forbid eval. */
async function svg(spec: Record<string, unknown>): Promise<string> {
  const view = new vega.View(vega.parse(compile(spec as never).spec, undefined, { ast: true }), { renderer: 'none', expr: expressionInterpreter });
  const out = await view.toSVG();
  view.finalize();
  return out;
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
      postMine({ type: 'loaded', columns: table.columns, numeric: numericColumns(table), rows: table.rows.length });
    } else if (m.type === 'builtin') {
      table = null;
      scenario = builtinScenario(m.id);
      post({ type: 'loaded-builtin', name: scenario.name, secrets: Object.keys(scenario.priors[0].conditionals) });
    } else if (m.type === 'values') {
      if (!table) throw new InputError('load a table first', 'file');
      post({ type: 'values', column: m.column, values: distinctValues(table, m.column) });
    } else if (m.type === 'calibrate') {
      const p = m.params;
      checkedSettings({ mechanisms: p.mechanisms, methods: p.methods, alpha: p.alpha, epsilon: p.epsilon });
      if (table) {
        if (!p.query || !p.secretColumn) throw new InputError('choose the query column and the secret column', 'form');
        const h = textHistograms(table, {
          query: p.query,
          secretColumn: p.secretColumn,
          values: p.values?.length ? p.values : undefined,
          given: p.given || undefined,
        });
        scenario = tableScenario(h, {
          name: `${p.fileName}: ${p.query} by ${p.secretColumn}${p.given ? ` given ${p.given}` : ''}`,
          given: p.given || undefined,
        }).scenario;
      }
      if (!scenario) throw new InputError('load a table or pick a built-in scenario', 'form');
      // Same checks and wording as the CLI (α, ε, mechanism).
      for (const mechanism of p.mechanisms as Mechanism[]) checkSettings({ mechanism, method: 'theorem', alpha: p.alpha, epsilon: p.epsilon });
      if (!p.mechanisms.length || !p.methods.length) throw new InputError('choose at least one mechanism and one method', 'form');
      // The chosen methods that the family's rule table has for this α (the others are skipped, not errors).
      const applies = (mechanism: Mechanism, alpha = p.alpha) => {
        const ok = applicableMethods({ mechanism, method: 'best', alpha, epsilon: p.epsilon });
        return (p.methods as SingleMethod[]).filter((m) => ok.includes(m));
      };
      const rows: (CalibrationResult & { label: string })[] = [];
      for (const mechanism of p.mechanisms as Mechanism[]) {
        for (const method of applies(mechanism)) {
          try {
            rows.push({ ...calibrate(scenario, { mechanism, method, alpha: p.alpha, epsilon: p.epsilon }), label: METHOD_LABEL[method] });
          } catch (err) {
            if (!(err instanceof InputError)) throw err;
          }
        }
      }
      post({
        type: 'results',
        alpha: p.alpha,
        epsilon: p.epsilon,
        scenario: scenario.name,
        rows: rows.map((r) => ({
          mechanism: r.mechanism,
          method: r.method,
          label: r.label,
          rule: r.rule,
          scale: r.scale,
          variance: r.variance,
          binding: r.binding,
          explanation: r.explanation,
        })),
      });
      // Plots: scale against α per method (Figures 1 and 3), variance against ε.
      // The α axis follows the chosen order (marked on the plot).
      const top = Number.isFinite(p.alpha) ? Math.max(5.25, p.alpha * 1.2) : 5.25;
      const alphas = Array.from({ length: 17 }, (_, i) => Number((1.25 + ((top - 1.25) * i) / 16).toPrecision(4)));
      const byAlpha: Row[] = [];
      const byEps: Row[] = [];
      for (const mechanism of p.mechanisms as Mechanism[])
        for (const method of p.methods as SingleMethod[]) {
          for (const alpha of alphas)
            if (applies(mechanism, alpha).includes(method))
              byAlpha.push({
                dataset: scenario.name,
                mechanism,
                method: METHOD_LABEL[method],
                alpha,
                epsilon: p.epsilon,
                scale: calibrate(scenario, { mechanism, method, alpha, epsilon: p.epsilon }).scale,
              });
          if (applies(mechanism).includes(method))
            for (const epsilon of [0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 4, 5]) {
              const v = calibrate(scenario, { mechanism, method, alpha: p.alpha, epsilon }).variance;
              if (v > 0) byEps.push({ dataset: scenario.name, mechanism: `${mechanism}: ${METHOD_LABEL[method]}`, epsilon, variance: v });
            }
        }
      postMine({
        type: 'plots',
        alpha: await svg(scaleVsAlphaChart(byAlpha, { title: `Noise scale against α (ε = ${p.epsilon})`, mark: p.alpha })),
        // The numbers behind the plots, for a text alternative.
        numbers: [
          ...byAlpha.map((r) => ({ mechanism: r.mechanism, method: r.method, alpha: r.alpha, epsilon: r.epsilon, value: r.scale, what: 'scale' })),
          ...byEps.map((r) => ({ mechanism: r.mechanism, method: '', alpha: p.alpha, epsilon: r.epsilon, value: r.variance, what: 'variance' })),
        ],
        epsilon: byEps.length
          ? await svg(varianceChart(byEps, { title: `Noise variance against ε (α = ${p.alpha})`, x: 'epsilon', xTitle: 'privacy budget ε', color: 'method' }))
          : '',
      });
    } else if (m.type === 'audit') {
      checkedSettings({ mechanism: m.mechanism, scale: m.scale, alpha: m.alpha, epsilon: m.epsilon });
      if (!scenario) throw new InputError('calibrate first', 'form');
      const rows = audit(scenario, { mechanism: m.mechanism, scale: m.scale, alphas: [m.alpha], epsilon: m.epsilon, delta: 1e-6 });
      post({ type: 'audit', rows, mechanism: m.mechanism, scale: m.scale, alpha: m.alpha, epsilon: m.epsilon });
    } else if (m.type === 'release') {
      if (typeof m.value !== 'number' || !Number.isFinite(m.value)) throw new InputError('enter the value to privatize (a finite number)', 'value');
      checkedSettings({ mechanism: m.mechanism, alpha: m.alpha, epsilon: m.epsilon, value: m.value, count: m.count, methods: m.methods });
      if (!scenario) throw new InputError('calibrate first', 'form');
      let r: ReturnType<typeof release>;
      try {
        // The raw value only after the page has shown why and the user confirmed.
        // The method the results recommend: the smallest scale among the methods chosen (else best).
        const sc = scenario;
        const base = { mechanism: m.mechanism as Mechanism, alpha: m.alpha as number, epsilon: m.epsilon as number };
        const ok = applicableMethods({ ...base, method: 'best' });
        const chosen = (Array.isArray(m.methods) ? (m.methods as SingleMethod[]) : []).filter((k) => ok.includes(k));
        const method = chosen.length
          ? chosen.map((k) => ({ k, s: calibrate(sc, { ...base, method: k }).scale })).reduce((x, y) => (y.s < x.s ? y : x)).k
          : 'best';
        r = release(scenario, { mechanism: m.mechanism, method, alpha: m.alpha, epsilon: m.epsilon }, m.value, {
          count: m.count,
          allowNoNoise: m.allowNoNoise === true,
        });
      } catch (err) {
        if (err instanceof InputError && err.path === 'allow-no-noise') {
          post({ type: 'no-noise', reason: err.reason });
          return;
        }
        throw err;
      }
      post({ type: 'released', values: r.values, scale: r.scale, method: r.method, guarantee: r.guarantee });
    } else if (m.type === 'spec') {
      if (!scenario) throw new InputError('calibrate first', 'form');
      const p = scenario.priors.map((pr) => ({
        name: pr.name,
        conditionals: Object.fromEntries(
          Object.entries(pr.conditionals).map(([k, d]) => [
            k,
            { values: [...d.values], counts: d.numerators.map(Number), ...(pr.probabilities ? { probability: pr.probabilities[k] } : {}) },
          ]),
        ),
      }));
      post({
        type: 'spec',
        spec: {
          name: scenario.name,
          priors: p,
          ...(scenario.pairs ? { pairs: scenario.pairs } : {}),
          mechanism: m.mechanism,
          alpha: m.alpha,
          epsilon: m.epsilon,
        },
      });
    }
  } catch (err) {
    postMine({ type: 'error', message: err instanceof InputError ? `error: ${err.message}` : `error: internal error: ${(err as Error).message}` });
  }
};
