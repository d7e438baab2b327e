import { mkdirSync } from 'node:fs';
import { writeTextAtomically } from '../io/atomicWrite.js';
import { join } from 'node:path';
import { calibrate, type CalibrationResult, type Method } from '../calibrate/calibrate.js';
import type { Scenario } from '../distribution/scenario.js';
import { InputError } from '../errors.js';
import { validateSpec, type MarkovChain, type MarkovQuery } from '../markov/chain.js';
import { markovScenario } from '../markov/source.js';
import { calibrateWindows } from '../calibrate/windows.js';
import type { Row, VegaLiteSpec } from './charts.js';

/**
 * Transition counts of Seattle's daily weather 2012–2015 (NOAA, public domain; the vega-datasets
 * copy vendored in test/fixtures/weather), rows and columns in the order of `SEATTLE_STATES`: what
 * `--sequence weather --order-by date --spec-out` writes for that file (tested).
 */
export const SEATTLE_STATES = ['drizzle', 'fog', 'rain', 'snow', 'sun'];
export const SEATTLE_COUNTS = [
  [16, 3, 19, 0, 15],
  [1, 28, 32, 0, 40],
  [18, 36, 432, 11, 144],
  [1, 0, 10, 10, 5],
  [16, 34, 148, 5, 436],
];

const METHODS = ['group-dp', 'gk16', 'mqm-approx', 'mqm-exact', 'exact'] as const;

/** Every method's Laplace scale on one chain (null where it does not apply). */
function scales(states: string[], chain: MarkovChain, length: number, query: MarkovQuery, alpha: number): Record<string, number | null> {
  const { scenario } = markovScenario(validateSpec({ states, chains: [chain], length, query }), 'chain');
  const out: Record<string, number | null> = {};
  for (const method of METHODS) {
    try {
      const r: CalibrationResult = calibrate(scenario as Scenario, { mechanism: 'laplace', method: method as Method, alpha, epsilon: 1 });
      out[method] = r.scale;
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      out[method] = null;
    }
  }
  return out;
}

/** Seattle's chain: the transition counts' rows normalised, started stationary. */
const SEATTLE_CHAIN: MarkovChain = {
  name: 'seattle',
  transition: SEATTLE_COUNTS.map((row) => row.map((c) => c / row.reduce((a, b) => a + b, 0))),
  initial: 'stationary',
};

/** Song et al.'s binary chain M = [[1−q, q], [1−p, p]], started stationary. */
const binaryChain = (q: number, p: number): MarkovChain => ({
  name: `q=${q},p=${p}`,
  transition: [
    [1 - q, q],
    [1 - p, p],
  ],
  initial: 'stationary',
});

/**
 * Song, Wang and Chaudhuri's synthetic experiment (binary chain M = [[1−q, q], [1−p, p]], T = 100,
 * the count of state 1, ε = 1): the noise scale over (q, p) for GroupDP, GK16, MQMApprox, MQMExact
 * and the exact conditional laws, at α = ∞ (and, for `exact`, α = 2 on `alpha2` of the points).
 */
function markovGrid(points: number[], alpha2: number[], tick: () => void): Row[] {
  const rows: Row[] = [];
  for (const q of points)
    for (const p of points) {
      const chain = binaryChain(q, p);
      for (const [alpha, methods] of [[Infinity, METHODS], ...(alpha2.includes(q) && alpha2.includes(p) ? [[2, ['exact']] as const] : [])] as const) {
        const s = scales(['0', '1'], chain, 100, { count: '1' }, alpha);
        for (const method of methods) if (s[method] !== null) rows.push({ q, p, alpha: alpha === Infinity ? 'inf' : alpha, method, scale: s[method]! });
      }
      tick();
    }
  return rows;
}

/** The weather example: Seattle's rainy days in `length` days, every method at α = ∞. */
function markovWeather(length: number): Row[] {
  const s = scales(SEATTLE_STATES, SEATTLE_CHAIN, length, { count: 'rain' }, Infinity);
  return Object.entries(s).flatMap(([method, scale]) => (scale === null ? [] : [{ example: `Seattle, rainy days in ${length} days`, method, scale }]));
}

/** The window methods the reproduction compares (docs/math.md §19); `best` is their minimum. */
const WINDOW_METHODS = ['boundary-coupled', 'path-coupled', 'mqm-exact', 'group-dp'] as const;
/** Days of the months of 2015 (not a leap year): Seattle's twelve monthly counts. */
const MONTHS_2015 = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Each window method's Laplace scale per window at α, ε = 1 (null where it does not apply, e.g. path-coupled at α = ∞). */
function windowScales(states: string[], chain: MarkovChain, state: string, lengths: number[], alpha: number): Record<string, number | null> {
  const model = validateSpec({ states, chains: [chain], length: lengths.reduce((a, b) => a + b, 0), query: { count: state } });
  return Object.fromEntries(
    WINDOW_METHODS.map((method) => [method, calibrateWindows(model, lengths, { mechanism: 'laplace', method, alpha, epsilon: 1 }).scale]),
  );
}

/**
 * Window counts (docs/math.md §19): Song et al.'s binary chains (T = 100) in ten windows of 10 at α = 2,
 * and Seattle's twelve monthly counts of rain in 2015 at each order of `alphas`; one row per method and point.
 */
export function markovWindows(points: number[], alphas: number[], tick: () => void): { synthetic: Row[]; weather: Row[] } {
  const synthetic: Row[] = [];
  for (const q of points)
    for (const p of points) {
      const chain = binaryChain(q, p);
      const s = windowScales(['0', '1'], chain, '1', new Array<number>(10).fill(10), 2);
      for (const method of WINDOW_METHODS) if (s[method] !== null) synthetic.push({ q, p, alpha: 2, method, scale: s[method]! });
      tick();
    }
  const weather: Row[] = [];
  for (const alpha of alphas) {
    const s = windowScales(SEATTLE_STATES, SEATTLE_CHAIN, 'rain', MONTHS_2015, alpha);
    for (const method of WINDOW_METHODS) if (s[method] !== null) weather.push({ alpha, method, scale: s[method]! });
    tick();
  }
  return { synthetic, weather };
}

/** Seattle's monthly counts: each method's scale per month against α (the MQM and group DP hold at every α: flat). */
function windowsWeatherChart(rows: Row[]): VegaLiteSpec {
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: 'Seattle, 2015: Laplace scale per month for the 12 monthly counts of rain (ε = 1)',
    data: { values: rows },
    width: 320,
    height: 200,
    mark: { type: 'line', point: true },
    encoding: {
      x: { field: 'alpha', type: 'quantitative', title: 'Rényi order α' },
      y: { field: 'scale', type: 'quantitative', scale: { type: 'log' }, title: 'scale b per month' },
      color: { field: 'method', type: 'nominal' },
    },
  };
}

/** Scale over q, one panel per p: each method a line (log scale), as in Song et al.'s figure. */
function markovChart(rows: Row[], title = 'Laplace scale for ε-Pufferfish (ε = 1, T = 100, count of state 1)'): VegaLiteSpec {
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title,
    data: { values: rows },
    facet: { column: { field: 'p', type: 'ordinal', title: 'p = P(1 | 1)' } },
    spec: {
      width: 90,
      height: 160,
      mark: { type: 'line', point: true },
      encoding: {
        x: { field: 'q', type: 'quantitative', title: 'q = P(1 | 0)' },
        y: { field: 'scale', type: 'quantitative', scale: { type: 'log' }, title: 'scale b' },
        color: { field: 'method', type: 'nominal' },
      },
    },
  };
}

/**
 * `pufferfish reproduce --markov`: Song et al.'s synthetic grid and the weather example as CSV,
 * figures (SVG, PNG) and REPORT-markov.md in `out`, with their window counts (ten windows of 10; Seattle's
 * months of 2015 by α). Quick: q, p ∈ {0.1, 0.5, 0.9}, and α = 2 only for Seattle's months.
 */
export async function reproduceMarkov(o: { out: string; quick?: boolean; onProgress?: (done: number, total: number, label: string) => void }) {
  const { toCsv, toPng, toSvg } = await import('./render.js');
  const points = o.quick ? [0.1, 0.5, 0.9] : [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];
  const alpha2 = o.quick ? [0.1, 0.5] : [0.1, 0.5, 0.9];
  let done = 0;
  const alphas = o.quick ? [2] : [1.5, 2, 4, 8];
  const total = 2 * points.length ** 2 + 1 + alphas.length;
  const grid = markovGrid(points, alpha2, () => o.onProgress?.(++done, total, 'Markov grid'));
  const weather = markovWeather(365);
  o.onProgress?.(++done, total, 'weather');
  const windows = markovWindows(points, alphas, () => o.onProgress?.(++done, total, 'window counts'));
  mkdirSync(o.out, { recursive: true });
  await writeTextAtomically(join(o.out, 'markov-grid.csv'), '--out', toCsv(grid));
  await writeTextAtomically(join(o.out, 'markov-weather.csv'), '--out', toCsv(weather));
  const svg = await toSvg(markovChart(grid.filter((r) => r.alpha === 'inf')));
  await writeTextAtomically(join(o.out, 'markov-grid.svg'), '--out', svg);
  await writeTextAtomically(join(o.out, 'markov-grid.png'), '--out', toPng(svg));
  await writeTextAtomically(join(o.out, 'markov-windows.csv'), '--out', toCsv(windows.synthetic));
  await writeTextAtomically(join(o.out, 'markov-weather-windows.csv'), '--out', toCsv(windows.weather));
  for (const [name, spec] of [
    ['markov-windows', markovChart(windows.synthetic, 'Laplace scale per window, ten windows of 10 (α = 2, ε = 1, T = 100, count of state 1)')],
    ['markov-weather-windows', windowsWeatherChart(windows.weather)],
  ] as const) {
    const chart = await toSvg(spec);
    await writeTextAtomically(join(o.out, `${name}.svg`), '--out', chart);
    await writeTextAtomically(join(o.out, `${name}.png`), '--out', toPng(chart));
  }
  const win = (q: number, p: number, method: string) => windows.synthetic.find((r) => r.q === q && r.p === p && r.method === method)?.scale;
  const gains = points.flatMap((q) => points.map((p) => Number(win(q, p, 'mqm-exact')) / Number(win(q, p, 'path-coupled'))));
  const exactWindow = points.flatMap((q) => points.map((p) => Number(win(q, p, 'boundary-coupled')) / Number(win(q, p, 'path-coupled'))));
  const sea = (alpha: number, method: string) => windows.weather.find((r) => r.alpha === alpha && r.method === method)?.scale;
  const at = (q: number, p: number, method: string) => grid.find((r) => r.q === q && r.p === p && r.alpha === 'inf' && r.method === method)?.scale;
  const ratios = points.flatMap((q) => points.map((p) => Number(at(q, p, 'mqm-exact')) / Number(at(q, p, 'exact'))));
  const median = [...ratios].sort((a, b) => a - b)[Math.floor(ratios.length / 2)];
  const fmt = (x: unknown) => Number(Number(x).toPrecision(4)).toString();
  const report = [
    '# Markov chains: the reproduction of Song, Wang and Chaudhuri (SIGMOD 2017)',
    '',
    `Binary chain M = [[1−q, q], [1−p, p]], T = 100, the count of state 1, ε = 1, stationary start; q, p ∈ {${points.join(', ')}}.`,
    'Scales are Laplace b for ε-Pufferfish (α = ∞); `exact` is every per-pair method on the exact conditional laws (docs/math.md §13).',
    '',
    `MQMExact needs ${fmt(Math.min(...ratios))}× to ${fmt(Math.max(...ratios))}× the noise of the exact laws (median ${fmt(median)}×).`,
    '',
    '| q | p | GroupDP | GK16 | MQMApprox | MQMExact | exact (α = ∞) | exact (α = 2) |',
    '|---|---|---|---|---|---|---|---|',
    ...points.flatMap((q) =>
      points.map((p) => {
        const a2 = grid.find((r) => r.q === q && r.p === p && r.alpha === 2)?.scale;
        return `| ${q} | ${p} | ${['group-dp', 'gk16', 'mqm-approx', 'mqm-exact', 'exact'].map((m) => (at(q, p, m) === undefined ? '—' : fmt(at(q, p, m)))).join(' | ')} | ${a2 === undefined ? '' : fmt(a2)} |`;
      }),
    ),
    '',
    'Weather (Seattle 2012–2015, NOAA; the chain estimated from the day-to-day transitions), the number of rainy days in a year, α = ∞:',
    '',
    ...weather.map((r) => `- ${r.method}: b = ${fmt(r.scale)}`),
    '',
    '## Window counts (docs/math.md §19)',
    '',
    `The same binary chains in ten windows of 10 steps, one count of state 1 per window, α = 2, ε = 1: each window's Laplace scale. The MQM and group DP cover the vector with the noise of the whole count (ε-Pufferfish, so every α); the path-coupled bound is for α > 1. The MQM needs ${fmt(Math.min(...gains))}× to ${fmt(Math.max(...gains))}× the path-coupled noise; the boundary-coupled bound (the secret's own window exactly) ${fmt(Math.min(...exactWindow))}× to ${fmt(Math.max(...exactWindow))}× of it.`,
    '',
    '| q | p | boundary-coupled | path-coupled | MQMExact | GroupDP |',
    '|---|---|---|---|---|---|',
    ...points.flatMap((q) =>
      points.map((p) => `| ${q} | ${p} | ${WINDOW_METHODS.map((m) => (win(q, p, m) === undefined ? '—' : fmt(win(q, p, m)))).join(' | ')} |`),
    ),
    '',
    'Seattle, the twelve monthly counts of rain of 2015 (months of 31, 28, …, 31 days; the chain above, stationary start), ε = 1: the scale per month.',
    '',
    '| α | boundary-coupled | path-coupled | MQMExact | GroupDP |',
    '|---|---|---|---|---|',
    ...alphas.map((a) => `| ${a} | ${WINDOW_METHODS.map((m) => (sea(a, m) === undefined ? '—' : fmt(sea(a, m)))).join(' | ')} |`),
    '',
  ];
  await writeTextAtomically(join(o.out, 'REPORT-markov.md'), '--out', report.join('\n'));
  return {
    files: [
      'markov-grid.csv',
      'markov-weather.csv',
      'markov-grid.svg',
      'markov-grid.png',
      'markov-windows.csv',
      'markov-weather-windows.csv',
      'markov-windows.svg',
      'markov-windows.png',
      'markov-weather-windows.svg',
      'markov-weather-windows.png',
      'REPORT-markov.md',
    ],
    weatherWindows: windows.weather,
  };
}
