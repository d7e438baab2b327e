// `calibrate --data T --sequence COL --order-by DATE --query count:S --window month|N|L1,L2,…`:
// the noise per window of a series' window counts (docs/math.md §19). Parse, call, format.
import { InputError } from '../errors.js';
import { MECHANISMS } from '../calibrate/calibrate.js';
import { FAMILY_OF, mechanismDef } from '../mechanisms/registry.js';
import type { Budget, ReleaseGroup } from '../account/budget.js';
import type { WindowScenario } from '../markov/windowScenario.js';
import { calibrateWindows, exactWindowApplies, WINDOW_METHODS, windowSteps, type WindowResult } from '../calibrate/windows.js';
import { windowGuarantee } from '../release/windows.js';
import { auditWindows } from '../audit/windows.js';
import { type MarkovModel, neverPossibleNote } from '../markov/chain.js';
import { calendarUnit } from '../markov/calendar.js';
import { asFlagError, gridSetting, parseConfidence, parseDelta, refuseIn } from './flags.js';
import { barDigits, decimalUp, jsonNumber, jsonText, numUp } from './format.js';
import { EXIT, setCommandExit } from './exitCode.js';
import { parseNames } from './grid.js';
import { loadWindows, type WindowOptions } from './input.js';
import { decimalValue } from '../numerics/float.js';
import { checkSetting, settingDefault, wholeNumber } from '../settings.js';
import type { Mechanism } from '../mechanisms/registry.js';
import { closedWindows } from '../sources/chainCounts.js';
import { progressBar, withTrials } from './progress.js';
import { spanProblems, windowSpans } from './windowSpans.js';
import { halfWidthAt } from './calibration.js';

/** `calibrate … --sequence … --window …`: each method × α × ε, the noise each window gets. */
export async function calibrateWindowsCli(o: WindowOptions): Promise<void> {
  refuseIn('window', o);
  refuseIn('windowSpecOut', o);
  const confidence = parseConfidence(o.confidence);
  const { model, lengths, d } = await loadWindows(o);
  const released = o.windowsReleased === undefined ? lengths.length : wholeNumber(o.windowsReleased, '--windows-released', 1, lengths.length);
  const mechanisms = o.mechanism ? parseNames(o.mechanism, 'mechanism', MECHANISMS) : [d.mechanism ?? FAMILY_OF.default];
  if (mechanisms.length !== 1) throw new InputError('takes one noise family for window counts', '--mechanism');
  const methods = parseNames(o.method ?? d.method ?? settingDefault('method'), o.method ? 'method' : 'spec.method', WINDOW_METHODS);
  const alphas = gridSetting('alpha', o.alpha, d.alpha);
  const epsilons = gridSetting('epsilon', o.epsilon, d.epsilon);
  // An (ε, δ) target searches the orders itself (--alpha lists them).
  const delta = parseDelta(o.delta, d.delta);
  const grid =
    delta === undefined
      ? methods.flatMap((method) => alphas.flatMap((alpha) => epsilons.map((epsilon) => ({ mechanism: mechanisms[0], method, alpha, epsilon, released }))))
      : methods.flatMap((method) =>
          epsilons.map((epsilon) => ({ mechanism: mechanisms[0], method, alpha: Infinity, epsilon, released, delta, ...(o.alpha ? { alphas } : {}) })),
        );
  const bar = await progressBar('calibrate', !o.json);
  let results: WindowResult[];
  try {
    results = grid.map((s, k) => {
      bar.update(k, grid.length);
      try {
        // Each scale the bounds try is a step: a long search is never silent.
        return calibrateWindows(model, lengths, s, (step) => bar.update(k, grid.length, step));
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
      `${jsonText({ query: o.query, windows, notes: windowNotes(o, model), confidence, results: results.map((r, i) => ({ ...r, scale: r.scale === null ? null : jsonNumber(r.scale), halfWidth: bars[i] === null ? null : jsonNumber(bars[i]!) })) })}\n`,
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
  const what = o.data ? `${o.data.split(/[\\/]/).pop()}: ${o.query} per window over ${o.sequence}` : `${o.spec}: the ${model.query.kind} per window`;
  const head = `${what} (T = ${w.length}; ${windowsText(w.lengths)}${w.released < w.lengths.length ? `, the first ${w.released} released` : ''}); ${model.chains.length} chain(s); secrets X_i = a for every time i and state a${windowNotes(
    o,
    model,
  )
    .map((x) => `\n${x}`)
    .join('')}`;
  const rows = results.map((r, i) => {
    const name = r.winner ? `best→${r.winner}` : r.method;
    const a = r.alpha === Infinity ? '∞' : String(r.alpha);
    return `${name}\t${a}\t${r.target ? `${r.target.epsilon}, δ=${r.target.delta}` : r.epsilon}\t${r.scale === null ? 'n/a' : up(r.scale)}\t${bars[i] === null ? '' : `±${up(bars[i]!)}`}\t${r.binding ? `X[${r.binding.time}]: ${r.binding.pair.join(' vs ')}` : ''}`;
  });
  const notes = results.map((r) => `${r.winner ? `best→${r.winner}` : r.method} (α=${r.alpha === Infinity ? '∞' : r.alpha}, ε=${r.epsilon}): ${r.explanation}`);
  return `${head}\neach window's ${model.query.kind} gets independent ${results[0].mechanism} noise at the scale shown; the guarantee covers all ${w.released < w.lengths.length ? 'released ' : ''}windows together\n\nmethod\tα\tε\tscale\t± (${confidence})\tbinding\n${rows.join('\n')}\n\n${notes.join('\n')}`;
}

/** The states a window's step may be in and their values, as `windowCounts` takes them (one walk of the chain). */
const stepsOf = (model: MarkovModel): [string[], number[]] => {
  const { states, values } = windowSteps(model);
  return [states, values];
};

/** A release computes the windows' counts from a table: a spec has none. */
function noTable(): never {
  throw new InputError("a release computes each window's count from --data … --sequence …; a spec gives the chain, not the data", 'spec');
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
  o: WindowOptions & { value?: string; out?: string; ledger?: string; truncate?: string; count?: string; scale?: string; allowNoNoise?: boolean },
): Promise<void> {
  refuseIn('windowRelease', o);
  refuseIn('window', o);
  // A release reads one series' counts: the table's independent sequences would be pooled.
  if (o.groupBy !== undefined)
    throw new InputError(
      'is not taken by a release of window counts: they are the counts of one series; release one sequence (a table of its rows)',
      '--group-by',
    );
  const confidence = parseConfidence(o.confidence);
  // With a ledger, the series it recorded when it was opened: the table gives only the windows' counts.
  const w = await loadWindows(o, o.ledger);
  const table = w.table ?? noTable();
  const released = o.windowsReleased === undefined ? w.lengths.length : wholeNumber(o.windowsReleased, '--windows-released', 1, w.lengths.length);
  // An (ε, δ) target searches the orders itself (--alpha lists them), as calibrate --window does.
  const targetDelta = o.ledger === undefined ? parseDelta(o.delta, w.d.delta) : undefined;
  const s = {
    mechanism: one(o.mechanism ? parseNames(o.mechanism, 'mechanism', MECHANISMS) : [w.d.mechanism ?? FAMILY_OF.default], '--mechanism'),
    method: one(parseNames(o.method ?? w.d.method ?? settingDefault('method'), o.method ? 'method' : 'spec.method', WINDOW_METHODS), '--method'),
    alpha: targetDelta === undefined ? one(gridSetting('alpha', o.alpha, w.d.alpha), '--alpha') : Infinity,
    epsilon: one(gridSetting('epsilon', o.epsilon, w.d.epsilon), '--epsilon'),
    ...(targetDelta !== undefined ? { delta: targetDelta, ...(o.alpha ? { alphas: gridSetting('alpha', o.alpha, w.d.alpha) } : {}) } : {}),
  };
  if (o.ledger !== undefined) {
    refuseIn('windowLedger', o);
    return releaseNextWindow(o as WindowOptions & { ledger: string; scale?: string }, w, s.mechanism, confidence);
  }
  if (o.scale !== undefined)
    throw new InputError("goes with --ledger: a scale that is not calibrated here needs the ledger's joint check as its guarantee", '--scale');
  const [{ windowCounts }, { releaseWindows }] = await Promise.all([import('../sources/sequence.js'), import('../release/windows.js')]);
  const counts = closedWindows(
    await windowCounts(table.source, table.q, ...stepsOf(w.model), w.lengths.slice(0, released), table.start ?? undefined),
    w.lengths,
    w.labels,
  );
  let r: ReturnType<typeof releaseWindows>;
  try {
    r = releaseWindows(w.model, w.lengths, counts, s, { confidence, allowNoNoise: o.allowNoNoise ?? false });
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
    `${o.data!.split(/[\\/]/).pop()}: ${o.query} per window, ${released} of ${w.lengths.length} window(s) released\n${c.mechanism} noise, scale ${up(r.scale)} per window (${method}): ${windowGuarantee(c)} for every X_i = a, the ${released} released window(s) together\neach interval holds its window's true ${w.model.query.kind} with probability ${confidence} over the noise (±${up(r.halfWidth)})\n\nwindow\tvalue\tinterval\n${lines.join('\n')}\n(values to a tenth of their error bar, intervals rounded outward; --json has every digit)\n`,
  );
}

/**
 * What the windows' output says beside the scales: windows given as lengths count rows in the
 * order column's order, whatever it holds (trading days, a step index: a missing day is not a
 * step; calendar windows check the days), and the states no secret names.
 */
function windowNotes(o: WindowOptions, model: MarkovModel): string[] {
  const rows =
    o.data && !calendarUnit(o.window ?? '')
      ? `a window's steps are rows taken in the order of '${o.orderBy}', whatever values it holds: a missing day is no step (--window month|week reads dates and refuses gaps)`
      : '';
  return [rows, neverPossibleNote(model)].filter(Boolean);
}

/** The windows' lengths in words: one length for all, each of up to 12, or their range. */
function windowsText(lengths: readonly number[]): string {
  const m = lengths.length;
  const [lo, hi] = [Math.min(...lengths), Math.max(...lengths)];
  if (lo === hi) return `${m} window${m === 1 ? '' : 's'} of ${lo} step${lo === 1 ? '' : 's'}`;
  return m <= 12 ? `${m} windows of ${lengths.join(', ')} steps` : `${m} windows of ${lo}–${hi} steps`;
}

/**
 * The refusal of a window past a series' last (a ledger made for its windows, all recorded): the
 * scale one more window would need within the budget on the series extended by it, and how to plan it.
 */
export async function pastLastWindow(
  s: WindowScenario,
  past: readonly ReleaseGroup[],
  mechanism: Mechanism,
  budget: Budget,
  window: string | undefined,
  json?: boolean,
): Promise<InputError> {
  const [{ scaleBeyondSeries }, { nextWindowLength }] = await Promise.all([import('../account/budget.js'), import('../markov/calendar.js')]);
  const m = s.lengths.length;
  const L = nextWindowLength(window ?? '', s.lengths, s.labels);
  const fit = await withTrials('plan', json !== true, (onTrial) => scaleBeyondSeries(s, past, { mechanism, count: 1 }, budget, L, onTrial));
  const more =
    fit === null
      ? `no ${mechanism} scale would let a window ${m + 1} of ${L} steps fit this budget`
      : `a window ${m + 1} of ${L} steps would need ${mechanismDef(mechanism).symbol} ≥ ${numUp(fit)} within this budget, every released window as recorded`;
  return new InputError(
    `all ${m} windows of the series are recorded in this ledger: ${more}. That window belongs to a longer series (--length ${s.model.length + L}): plan it with account --length ${s.model.length + L} --window … --release (one per released window) --next ${mechanism}`,
    '--ledger',
  );
}

/**
 * `release … --window … --ledger L`: the next window not yet recorded in the series' ledger, at
 * `--scale` or at the largest scale at which every window of the series fits the ledger's budget
 * (the plan for the whole series); the ledger records it — as exactly that window: a release
 * recorded meanwhile makes it refuse — before its value is drawn and shown. A release that would
 * exceed the budget is refused with the scale that would fit.
 */
async function releaseNextWindow(
  o: WindowOptions & { ledger: string; scale?: string },
  w: Awaited<ReturnType<typeof loadWindows>>,
  mechanism: Mechanism,
  confidence: number,
): Promise<void> {
  refuseIn('windowLedgerRecords', o);
  const table = w.table ?? noTable();
  const scenario = w.scenario;
  const { ledgerPast, ledgerEntry } = await import('./ledgerCommand.js');
  const { rows, budget, groups } = await ledgerPast(o.ledger, scenario);
  const next = rows.length;
  const m = w.lengths.length;
  if (next >= m) throw await pastLastWindow(scenario, groups, mechanism, budget, o.window, o.json);
  // The window must be closed before anything is recorded (a refused release leaves the ledger as it
  // was), and before the plan's search: a window whose rows are not all in yet is refused at once.
  const [{ windowCounts }, { drawWindows }] = await Promise.all([import('../sources/sequence.js'), import('../release/windows.js')]);
  const counts = closedWindows(
    await windowCounts(table.source, table.q, ...stepsOf(w.model), w.lengths.slice(0, next + 1), table.start ?? undefined),
    w.lengths,
    w.labels,
    '--ledger',
  );
  // Each window is recorded with the order values of its first and last rows: rows added inside
  // windows already out (a gap filled late) would move every later window's rows, and are refused.
  const span = await windowSpans(table, w.lengths.slice(0, next + 1));
  const moved = spanProblems(rows, span)[0];
  if (moved) throw new InputError(`${moved}, and the series cannot go on from this table`, '--data');
  let scale: number;
  if (o.scale !== undefined) {
    scale = decimalValue(o.scale);
    checkSetting('scale', scale, '--scale', `'${o.scale}'`);
  } else {
    // The plan: one scale at which all m windows fit the ledger's budget together. It is the same
    // search at every release: the last planned scale is proved its answer in two checks.
    const { smallestFittingScale } = await import('../account/budget.js');
    const guess = rows.filter((r) => r.mechanism === mechanism).pop()?.scale;
    const plan = await withTrials('plan', !o.json, (onTrial) => smallestFittingScale(scenario, [], { mechanism, count: m }, budget, 1, onTrial, guess));
    if (plan === null) throw new InputError(`no scale of ${mechanism} noise lets all ${m} windows fit the ledger's budget`, '--ledger');
    scale = plan;
  }
  const entry = await ledgerEntry(o.ledger, scenario as never, {
    mechanism,
    scale,
    count: 1,
    position: next + 1,
    query: `window ${next + 1} of ${m} (${w.labels[next]}; ${span[next][0]} … ${span[next][1]})`,
  });
  const r = drawWindows([counts[next]], mechanism, scale, { confidence });
  if (o.json) {
    const release = { window: w.labels[next], index: next + 1, value: r.values[0], interval: r.intervals[0].map(jsonNumber) };
    process.stdout.write(
      `${jsonText({ query: o.query, scale: jsonNumber(scale), confidence, halfWidth: jsonNumber(r.halfWidth), release, ledger: { release: entry.seq, level: jsonNumber(entry.level), alpha: entry.alpha, chain: w.recorded ? 'recorded' : 'estimated' } })}\n`,
    );
  } else {
    const up = (x: number) => String(Number(decimalUp(x, 4)));
    const digits = barDigits(r.halfWidth);
    process.stdout.write(
      `${scenario.name}\nwindow ${next + 1} of ${m} (${w.labels[next]}): ${mechanism} noise, scale ${up(scale)}; ±${up(r.halfWidth)} with probability ${confidence}\nledger: recorded as release ${entry.seq}; the joint level of the ${next + 1} window(s) released is ${Number(decimalUp(entry.level, 6))} (α = ${entry.alpha}), ${exactWindowApplies(mechanism) ? 'boundary' : 'path'}-coupled bound${w.recorded ? ', under the chain the ledger recorded when it was opened' : ''}\n\nwindow\tvalue\tinterval\n${w.labels[next]}\t${digits.value(r.values[0])}\t${digits.interval(r.intervals[0])}\n`,
    );
  }
  await entry.shown();
}

/**
 * `audit … --window … --scale S`: the boundary- or path-coupled bound on D_α (the smaller per pair) at every order asked, every
 * released window at S, with the secret time and pair that bind it and the times that need the
 * most (docs/math.md §19). Exit 1 where an order is over ε.
 */
export async function auditWindowsCli(o: WindowOptions & { scale?: string; empirical?: boolean }): Promise<void> {
  refuseIn('windowAudit', o);
  refuseIn('window', o);
  if (o.scale === undefined) throw new InputError('is required (the noise scale of every window)', '--scale');
  const scale = decimalValue(o.scale);
  checkSetting('scale', scale, '--scale', `'${o.scale}'`);
  const w = await loadWindows(o);
  const released = o.windowsReleased === undefined ? w.lengths.length : wholeNumber(o.windowsReleased, '--windows-released', 1, w.lengths.length);
  const mechanism = one(o.mechanism ? parseNames(o.mechanism, 'mechanism', MECHANISMS) : [w.d.mechanism ?? FAMILY_OF.default], '--mechanism');
  const alphas = gridSetting('alpha', o.alpha, w.d.alpha);
  const epsilon = one(gridSetting('epsilon', o.epsilon, w.d.epsilon), '--epsilon');
  const rows = auditWindows(w.model, w.lengths, { mechanism, scale, alphas, released });
  const over = rows.filter((r) => !(r.bound <= epsilon)).length;
  setCommandExit(over === 0 ? EXIT.ok : EXIT.checkFailed);
  const verdict = over === 0 ? 'pass' : `fail (${over} order(s) over ε)`;
  if (o.json) {
    process.stdout.write(
      `${jsonText({ windows: { lengths: w.lengths, released }, mechanism, scale, epsilon, verdict: over === 0 ? 'pass' : 'fail', rows: rows.map((r) => ({ ...r, bound: jsonNumber(r.bound), perTime: r.perTime.map(jsonNumber) })) })}\n`,
    );
    return;
  }
  const lines = rows.map(
    (r) =>
      `α = ${r.alpha}: D_α ≤ ${numUp(r.bound)}${r.binding ? ` (binding X[${r.binding.time}]: ${r.binding.pair.join(' vs ')})` : ''}; the times needing most: ${r.top.map((x) => `${x.time} (${numUp(x.bound)})`).join(', ')}`,
  );
  process.stdout.write(
    `${o.data ? `${o.data.split(/[\\/]/).pop()}: ${o.query} per window` : `${o.spec}: the ${w.model.query.kind} per window`} (${released} of ${w.lengths.length} windows at ${mechanism} scale ${scale})\n${exactWindowApplies(mechanism) ? 'boundary-coupled (per pair the smaller of it and the path-coupled)' : 'path-coupled'} bound per secret time (docs/math.md §19), ε = ${epsilon}\n\n${lines.join('\n')}\n\nverdict: ${verdict}\n`,
  );
}
