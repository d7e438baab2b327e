/**
 * Vega-Lite chart specifications of the paper's figures, one function per chart so the CLI
 * (`pufferfish reproduce`) and the web app draw from the same definitions. Rows are plain
 * objects; every spec embeds its data.
 */
export type Row = Record<string, string | number>;
export type VegaLiteSpec = Record<string, unknown>;

const base = (title: string, subtitle?: string) => ({
  $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
  title: subtitle ? { text: title, subtitle } : title,
  config: {
    font: 'DejaVu Sans',
    view: { stroke: '#ddd' },
    axis: { labelFontSize: 11, titleFontSize: 12 },
    legend: { labelFontSize: 11, titleFontSize: 12, labelLimit: 320, symbolType: 'stroke' },
    header: { labelFontSize: 13, labelFontWeight: 'bold' },
    facet: { spacing: 24 },
  },
});

/** One colour and one point shape per method, the same in every chart (Okabe–Ito colours, safe for colour blindness). */
const METHOD_STYLE: [string[], string, string][] = [
  [['Theorem 1/2', 'Theorem 1', 'Theorem 2', 'Corollary 1'], '#0072b2', 'circle'],
  [['Cor. 3.1 (Pierquin)', 'Cor. 3.1'], '#e69f00', 'square'],
  [['W∞ (Song)', 'W∞'], '#009e73', 'triangle-up'],
  [['coupled'], '#cc79a7', 'diamond'],
  [['exact'], '#d55e00', 'cross'],
];

/** Colour and shape encodings by `method` for the labels present (unknown labels grey), in a fixed order. */
function methodEncoding(rows: Row[], title = 'method', shapes = true) {
  const present = new Set(rows.map((r) => String(r.method)));
  const known = METHOD_STYLE.flatMap(([labels, colour, shape]) => labels.filter((l) => present.has(l)).map((l) => [l, colour, shape] as const));
  const rest = [...present].filter((l) => !known.some(([k]) => k === l)).map((l) => [l, '#777777', 'circle'] as const);
  const all = [...known, ...rest];
  const domain = all.map(([l]) => l);
  return {
    color: { field: 'method', type: 'nominal', title, sort: null, scale: { domain, range: all.map(([, c]) => c) } },
    // A shape only where points are drawn (a line alone has none: Vega-Lite would warn and drop it).
    ...(shapes ? { shape: { field: 'method', type: 'nominal', title, sort: null, scale: { domain, range: all.map(([, , s]) => s) } } } : {}),
  };
}

/**
 * Noise scale against α, one panel per dataset (rows) and mechanism (columns); colour = method,
 * dash = ε. `limit` rows ({dataset, mechanism, epsilon, limit}) draw a dashed black line in their panel.
 */
export function scaleVsAlphaChart(
  rows: Row[],
  opts: {
    title: string;
    subtitle?: string;
    logX?: boolean;
    yTitle?: string;
    limit?: Row[] /** α to mark with a vertical rule (the chosen order). */;
    mark?: number;
  },
): VegaLiteSpec {
  const xs = [...new Set(rows.map((r) => Number(r.alpha)))];
  const limitRows = (opts.limit ?? []).flatMap((l) => [Math.min(...xs), Math.max(...xs)].map((alpha) => ({ ...l, alpha, limitScale: l.limit })));
  const x = { field: 'alpha', type: 'quantitative', title: 'Rényi order α', scale: opts.logX ? { type: 'log' } : { zero: false } };
  const layers: unknown[] = [
    {
      transform: [{ filter: 'isValid(datum.scale)' }],
      mark: { type: 'line', point: rows.length <= 400 ? { size: 30, filled: false } : false, clip: true },
      encoding: {
        x,
        y: { field: 'scale', type: 'quantitative', title: opts.yTitle ?? 'scale (b or σ)', scale: { zero: false } },
        ...methodEncoding(rows, 'method', rows.length <= 400),
        strokeDash: { field: 'epsilon', type: 'nominal', title: 'ε', legend: { symbolStrokeColor: '#333' } },
      },
    },
  ];
  if (opts.mark !== undefined && Number.isFinite(opts.mark)) {
    layers.push({ mark: { type: 'rule', color: '#b00020', strokeDash: [4, 2], aria: false }, encoding: { x: { datum: opts.mark, type: 'quantitative' } } });
  }
  if (limitRows.length) {
    layers.push({
      transform: [{ filter: 'isValid(datum.limitScale)' }],
      mark: { type: 'line', color: 'black', strokeDash: [2, 3], clip: true },
      encoding: { x, y: { field: 'limitScale', type: 'quantitative' } },
    });
  }
  return {
    ...base(opts.title, opts.subtitle),
    data: { values: [...rows, ...limitRows] },
    facet: { row: { field: 'dataset', type: 'nominal', title: null }, column: { field: 'mechanism', type: 'nominal', title: null } },
    spec: { width: 260, height: 170, layer: layers },
    resolve: { scale: { y: 'independent' } },
  };
}

/** One panel per dataset (columns) of line marks with the given encoding. */
function perDataset(
  rows: Row[],
  title: string,
  subtitle: string | undefined,
  mark: Record<string, unknown>,
  encoding: Record<string, unknown>,
  independentY = true,
): VegaLiteSpec {
  return {
    ...base(title, subtitle),
    data: { values: rows },
    facet: { column: { field: 'dataset', type: 'nominal', title: null } },
    spec: { width: 200, height: 170, mark: { type: 'line', clip: true, ...mark }, encoding },
    ...(independentY ? { resolve: { scale: { y: 'independent' } } } : {}),
  };
}

const alphaAxis = { field: 'alpha', type: 'quantitative', title: 'Rényi order α', scale: { zero: false } };

/**
 * Noise variance against `x` (α or ε) on a log axis, one panel per dataset; colour = mechanism, or
 * with `byMethod` the method's own colour and shape (as in the scale chart) and dash = mechanism.
 */
export function varianceChart(
  rows: Row[],
  opts: { title: string; subtitle?: string; x: 'alpha' | 'epsilon'; xTitle: string; color?: string; byMethod?: boolean },
): VegaLiteSpec {
  return perDataset(rows, opts.title, opts.subtitle, opts.byMethod ? { point: { size: 30, filled: false } } : {}, {
    x: { field: opts.x, type: 'quantitative', title: opts.xTitle, scale: { zero: false } },
    y: { field: 'variance', type: 'quantitative', title: 'noise variance', scale: { type: 'log' } },
    ...(opts.byMethod
      ? { ...methodEncoding(rows), strokeDash: { field: 'mechanism', type: 'nominal', title: 'mechanism', legend: { symbolStrokeColor: '#333' } } }
      : { color: { field: 'mechanism', type: 'nominal', title: opts.color ?? 'mechanism' } }),
  });
}

/** Figure 2: W_α with distance e^{|z|/b} per b, against its bound e^{(α−1)ε/α}. */
export function walphaChart(rows: Row[], title: string): VegaLiteSpec {
  const curves = [...new Set(rows.map((r) => String(r.curve)))];
  return perDataset(
    rows,
    title,
    'W_α(b) for each b; black: the bound e^((α−1)ε/α); Theorem 1 holds for b wherever its curve is below',
    {},
    {
      x: alphaAxis,
      y: { field: 'value', type: 'quantitative', title: 'W_α (distance e^(|z|/b))', scale: { zero: false } },
      color: {
        field: 'curve',
        type: 'nominal',
        title: 'curve',
        sort: null,
        scale: { domain: curves, range: ['#4c78a8', '#f58518', '#e45756', '#72b7b2', '#54a24b', '#eeca3b', '#b279a2', '#000000'] },
      },
    },
  );
}

/** Figure 4b: variance saved by `exact` relative to Theorem 1/2, per dataset and mechanism. */
export function savedChart(rows: Row[], title: string): VegaLiteSpec {
  return perDataset(
    rows,
    title,
    'exact variance ÷ Theorem 1/2 variance (lower is better)',
    { point: true },
    {
      x: alphaAxis,
      y: { field: 'ratio', type: 'quantitative', title: 'variance ratio', scale: { domain: [0, 1] } },
      color: { field: 'mechanism', type: 'nominal' },
    },
    false,
  );
}

/**
 * A chain's transition matrix as a heat map: row = from, column = to, colour and label the
 * probability P(to | from) (the page's picture of a sequence table).
 * @example transitionHeatmap(['dry', 'wet'], [[0.8, 0.2], [0.3, 0.7]]).mark // 'rect'
 */
export function transitionHeatmap(
  states: readonly string[],
  transition: readonly (readonly number[])[],
  title = 'Transition probabilities P(to | from)',
): VegaLiteSpec {
  const values = states.flatMap((from, i) => states.map((to, j) => ({ from, to, p: transition[i][j], label: transition[i][j].toFixed(3) })));
  const axis = (field: string, title: string) => ({ field, type: 'nominal', sort: [...states], title });
  return {
    ...base(title),
    data: { values },
    width: Math.max(120, 48 * states.length),
    height: Math.max(120, 48 * states.length),
    layer: [
      {
        mark: 'rect',
        encoding: {
          x: axis('to', 'to'),
          y: axis('from', 'from'),
          color: { field: 'p', type: 'quantitative', title: 'P', scale: { domain: [0, 1], scheme: 'blues' } },
        },
      },
      {
        mark: { type: 'text', fontSize: 11 },
        encoding: {
          x: axis('to', 'to'),
          y: axis('from', 'from'),
          text: { field: 'label' },
          color: { condition: { test: 'datum.p > 0.5', value: 'white' }, value: 'black' },
        },
      },
    ],
  };
}

/**
 * Noise scale per method as bars, one colour per mechanism and the scale printed beside each bar:
 * the page's comparison of a chain's methods. Rows: {method, mechanism, scale > 0}.
 */
export function methodScaleBars(rows: Row[], title = 'Noise scale per method'): VegaLiteSpec {
  return {
    ...base(title),
    data: { values: rows.filter((r) => Number(r.scale) > 0) },
    width: 320,
    encoding: {
      y: { field: 'method', type: 'nominal', sort: { field: 'scale', order: 'ascending' }, title: null },
      x: { field: 'scale', type: 'quantitative', title: 'noise scale' },
      yOffset: { field: 'mechanism' },
    },
    layer: [
      { mark: 'bar', encoding: { color: { field: 'mechanism', type: 'nominal', title: 'mechanism' } } },
      { mark: { type: 'text', align: 'left', dx: 3, fontSize: 10 }, encoding: { text: { field: 'scale', type: 'quantitative', format: '.4~g' } } },
    ],
  };
}
