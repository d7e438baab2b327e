// `calibrate --data T --sequence COL --order-by DATE --query count:S --window month|N|L1,L2,…`:
// the noise per window of a series' window counts (docs/math.md §19). Parse, call, format.
import { InputError } from '../errors.js';
import { MECHANISMS } from '../calibrate/calibrate.js';
import { FAMILY_OF } from '../mechanisms/registry.js';
import { parseWindows } from '../markov/calendar.js';
import { calibrateWindows, WINDOW_METHODS, type WindowResult } from '../calibrate/windows.js';
import type { MarkovModel } from '../markov/chain.js';
import { asFlagError, parseConfidence, refuseUnused } from './flags.js';
import { barDigits, decimalUp, jsonNumber, jsonText } from './format.js';
import { parseGrid, parseNames } from './grid.js';
import { tableSourceOf, type CalibrateOptions } from './input.js';
import type { TableSource } from '../sources/table.js';
import type { SequenceQuery } from '../sources/chainCounts.js';
import { wholeNumber } from './numbers.js';
import { progressBar } from './progress.js';
import { halfWidthAt } from './calibration.js';

/** Options of a window calibration. */
export interface WindowOptions extends CalibrateOptions {
  window?: string;
  windowsReleased?: string;
}

/** The chain class of a sequence table and its window lengths. */
async function loadWindows(o: WindowOptions): Promise<{
  model: MarkovModel;
  lengths: number[];
  labels: string[];
  source: TableSource;
  q: SequenceQuery;
  state: string;
}> {
  if (o.sequence === undefined || o.data === undefined)
    throw new InputError('is taken with --data … --sequence COL --order-by COL (windows of one time series)', '--window');
  if (!o.orderBy) throw new InputError('is required with --window (the order of the steps, and their dates for month windows)', '--order-by');
  if (!o.query) throw new InputError('is required with --window: count:STATE', '--query');
  const [{ transitionCounts, orderValues }, { sequenceChain, parseSequenceQuery }, { parsePriorClass }] = await Promise.all([
    import('../sources/sequence.js'),
    import('../sources/chainCounts.js'),
    import('../sources/priors.js'),
  ]);
  const query = (() => {
    try {
      return parseSequenceQuery(o.query!);
    } catch (e) {
      throw asFlagError(e);
    }
  })();
  // Another query is refused by the calibration (a window count counts one state).
  const state = 'count' in query ? query.count : '';
  const source = tableSourceOf(o);
  const q = { sequence: o.sequence, orderBy: o.orderBy, ...(o.groupBy ? { groupBy: o.groupBy } : {}) };
  const t = await transitionCounts(source, q).catch((e) => {
    throw asFlagError(e);
  });
  const length = o.length === undefined ? t.longest : wholeNumber(o.length, '--length', 1, 1_000_000);
  const seed = o.seed === undefined ? 0 : wholeNumber(o.seed, '--seed', 0, Number.MAX_SAFE_INTEGER);
  const prior = o.prior ? parsePriorClass(o.prior, seed) : undefined;
  const { model } = (() => {
    try {
      return sequenceChain(t, { query, length, ...(prior ? { prior } : {}) });
    } catch (e) {
      throw asFlagError(e);
    }
  })();
  if (o.window!.trim() === 'month' && o.groupBy)
    throw new InputError('month windows read the dates of one series; give no --group-by, or window lengths', '--window');
  let dates: string[] = [];
  const lengths = await parseWindows(o.window!, length, async () => (dates = await orderValues(source, q, length)));
  // Each window by its first date (month windows) or its steps.
  let start = 0;
  const labels = lengths.map((L) => {
    const label = dates.length ? dates[start].slice(0, 7) : `${start + 1}–${start + L}`;
    start += L;
    return label;
  });
  return { model, lengths, labels, source, q, state };
}

/** `calibrate … --sequence … --window …`: each method × α × ε, the noise each window gets. */
export async function calibrateWindowsCli(o: WindowOptions): Promise<void> {
  refuseUnused(
    [
      ['--delta', o.delta],
      ['--releases', o.releases],
      ['--contamination', o.contamination],
      ['--fit', o.fit],
      ['--coordinate-scales', o.coordinateScales],
      ['--spec-out', o.specOut],
      ['--guarantee', o.guarantee],
      ['--cost', o.cost],
    ],
    'with --window yet (window counts are calibrated for Rényi and ε-Pufferfish targets, with the default cost)',
  );
  const confidence = parseConfidence(o.confidence);
  const { model, lengths } = await loadWindows(o);
  const released = o.windowsReleased === undefined ? lengths.length : wholeNumber(o.windowsReleased, '--windows-released', 1, lengths.length);
  const mechanisms = o.mechanism ? parseNames(o.mechanism, 'mechanism', MECHANISMS) : [FAMILY_OF.default];
  if (mechanisms.length !== 1) throw new InputError('takes one noise family for window counts', '--mechanism');
  const methods = o.method ? parseNames(o.method, 'method', WINDOW_METHODS) : (['best'] as const);
  const alphas = o.alpha ? parseGrid(o.alpha, 'alpha', true) : [2];
  const epsilons = o.epsilon ? parseGrid(o.epsilon, 'epsilon') : [1];
  const grid = methods.flatMap((method) =>
    alphas.flatMap((alpha) => epsilons.map((epsilon) => ({ mechanism: mechanisms[0], method, alpha, epsilon, released }))),
  );
  const bar = await progressBar('calibrate', !o.json);
  let results: WindowResult[];
  try {
    results = grid.map((s, k) => {
      bar.update(k, grid.length);
      try {
        return calibrateWindows(model, lengths, s);
      } catch (e) {
        throw asFlagError(e);
      }
    });
  } finally {
    bar.stop();
  }
  const bars = results.map((r) => (r.scale === null ? null : halfWidthAt({ mechanism: r.mechanism, scale: r.scale }, {}, confidence)));
  const windows = { lengths, released, length: model.length };
  if (o.json) {
    process.stdout.write(
      `${jsonText({ query: o.query, windows, confidence, results: results.map((r, i) => ({ ...r, scale: r.scale === null ? null : jsonNumber(r.scale), halfWidth: bars[i] === null ? null : jsonNumber(bars[i]!) })) })}\n`,
    );
    return;
  }
  process.stdout.write(`${windowText(o, model, windows, results, bars, confidence)}\n`);
}

/** The results as text: the windows, one line per setting, and each explanation. */
function windowText(
  o: WindowOptions,
  model: MarkovModel,
  w: { lengths: number[]; released: number; length: number },
  results: WindowResult[],
  bars: (number | null)[],
  confidence: number,
): string {
  const up = (x: number) => String(Number(decimalUp(x, 4)));
  const head = `${o.data!.split(/[\\/]/).pop()}: ${o.query} per window over ${o.sequence} (T = ${w.length}; ${w.lengths.length} windows of ${[...new Set(w.lengths)].join('/')} steps${w.released < w.lengths.length ? `, the first ${w.released} released` : ''}); ${model.chains.length} chain(s); secrets X_i = a for every time i and state a`;
  const rows = results.map((r, i) => {
    const name = r.winner ? `best→${r.winner}` : r.method;
    const a = r.alpha === Infinity ? '∞' : String(r.alpha);
    return `${name}\t${a}\t${r.epsilon}\t${r.scale === null ? 'n/a' : up(r.scale)}\t${bars[i] === null ? '' : `±${up(bars[i]!)}`}\t${r.binding ? `X[${r.binding.time}]: ${r.binding.pair.join(' vs ')}` : ''}`;
  });
  const notes = results.map((r) => `${r.winner ? `best→${r.winner}` : r.method} (α=${r.alpha === Infinity ? '∞' : r.alpha}, ε=${r.epsilon}): ${r.explanation}`);
  return `${head}\neach window's count gets independent ${results[0].mechanism} noise at the scale shown; the guarantee covers all ${w.released < w.lengths.length ? 'released ' : ''}windows together\n\nmethod\tα\tε\tscale\t± (${confidence})\tbinding\n${rows.join('\n')}\n\n${notes.join('\n')}`;
}

/** The one value of a flag a release takes. */
function one<T>(values: readonly T[], flag: string): T {
  if (values.length !== 1) throw new InputError('release takes one value', flag);
  return values[0];
}

/**
 * `release --data T --sequence … --query count:S --window … [--windows-released K]`: each closed
 * window's count computed in the engine, released with independent noise at the scale that
 * covers the K released windows together.
 */
export async function releaseWindowsCli(
  o: WindowOptions & { value?: string; out?: string; ledger?: string; truncate?: string; count?: string; scale?: string },
): Promise<void> {
  refuseUnused(
    [
      ['--value', o.value],
      ['--out', o.out],
    ],
    "with --window: the tool computes each window's count from --data",
  );
  refuseUnused(
    [
      ['--ledger', o.ledger],
      ['--truncate', o.truncate],
      ['--count', o.count],
      ['--scale', o.scale],
      ['--delta', o.delta],
      ['--releases', o.releases],
      ['--contamination', o.contamination],
      ['--cost', o.cost],
    ],
    'with --window yet',
  );
  const confidence = parseConfidence(o.confidence);
  const w = await loadWindows(o);
  const released = o.windowsReleased === undefined ? w.lengths.length : wholeNumber(o.windowsReleased, '--windows-released', 1, w.lengths.length);
  const s = {
    mechanism: one(o.mechanism ? parseNames(o.mechanism, 'mechanism', MECHANISMS) : [FAMILY_OF.default], '--mechanism'),
    method: one(o.method ? parseNames(o.method, 'method', WINDOW_METHODS) : ['best' as const], '--method'),
    alpha: one(o.alpha ? parseGrid(o.alpha, 'alpha', true) : [2], '--alpha'),
    epsilon: one(o.epsilon ? parseGrid(o.epsilon, 'epsilon') : [1], '--epsilon'),
  };
  const [{ windowCounts }, { releaseWindows }] = await Promise.all([import('../sources/sequence.js'), import('../release/windows.js')]);
  const counts = await windowCounts(w.source, w.q, w.state, w.lengths.slice(0, released));
  let r: ReturnType<typeof releaseWindows>;
  try {
    r = releaseWindows(w.model, w.lengths, counts, s, { confidence });
  } catch (e) {
    throw asFlagError(e);
  }
  const c = r.calibration;
  if (o.json) {
    const windows = { lengths: w.lengths, labels: w.labels, released, length: w.model.length };
    const releases = r.values.map((value, i) => ({ window: w.labels[i], value, interval: r.intervals[i].map(jsonNumber) }));
    process.stdout.write(
      `${jsonText({ query: o.query, windows, calibration: { ...c, scale: jsonNumber(r.scale) }, confidence, halfWidth: jsonNumber(r.halfWidth), releases })}\n`,
    );
    return;
  }
  const up = (x: number) => String(Number(decimalUp(x, 4)));
  const digits = barDigits(r.halfWidth);
  const lines = r.values.map((v, i) => `${w.labels[i]}\t${digits.value(v)}\t${digits.interval(r.intervals[i])}`);
  const method = c.winner ? `best→${c.winner}` : c.method;
  process.stdout.write(
    `${o.data!.split(/[\\/]/).pop()}: ${o.query} per window, ${released} of ${w.lengths.length} window(s) released\n${c.mechanism} noise, scale ${up(r.scale)} per window (${method}): (α=${c.alpha === Infinity ? '∞' : c.alpha}, ε=${c.epsilon})-Rényi Pufferfish for every X_i = a, the ${released} released window(s) together\neach interval holds its window's true count with probability ${confidence} over the noise (±${up(r.halfWidth)})\n\nwindow\tvalue\tinterval\n${lines.join('\n')}\n(values to a tenth of their error bar, intervals rounded outward; --json has every digit)\n`,
  );
}
