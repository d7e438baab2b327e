import { applicableMethods, calibrate, calibrationRule, METHOD_LABEL } from '../calibrate/calibrate.js';
import { hasSource, isSourceMethod, type SourceMethodName } from '../calibrate/result.js';
import type { Scenario } from '../distribution/scenario.js';
import type { CalibrationResult, CalibrationSettings, Mechanism, SingleMethod } from '../calibrate/calibrate.js';
import type { PointSettings } from '../calibrate/points.js';
import type { Contamination } from '../calibrate/contamination.js';
import { calibrateEpsDelta, epsDeltaBest, epsDeltaTrials } from '../calibrate/epsDelta.js';
import { mechanismDef } from '../mechanisms/registry.js';
import { InputError } from '../errors.js';
import type { AnyScenario } from '../distribution/lawKind.js';

/** A (family, method) a grid passes over, and why: the family's rule table's reason, or the calibration's refusal. */
export interface Skipped {
  mechanism: string;
  method: string;
  reason: string;
}

/** A grid's result: the calibration, its method's label, and for an (ε, δ) target the Rényi budget its order was given. */
export type GridRow = CalibrationResult & { label: string; renyiEpsilon?: number };

/**
 * What a grid asks: families × methods at one Rényi order and budget, or an (ε, δ) target met
 * through each one's best order. A law source's own methods (a chain's MQM, group DP) are asked of
 * the calibration itself, which says why where one does not apply.
 */
export interface GridRequest {
  mechanisms: readonly Mechanism[];
  methods: readonly (SingleMethod | SourceMethodName)[];
  alpha: number;
  epsilon: number;
  /** An (ε, δ) target: each (family, method) through its best order (α is then not read). */
  delta?: number;
  contamination?: Contamination;
}

/** One calibration of a grid. */
export type GridJob = { mechanism: Mechanism; method: SingleMethod | SourceMethodName; alpha: number; epsilon: number };

/** A method's name in a grid's rows (a law source's own methods by their names). */
const labelOf = (method: SingleMethod | SourceMethodName): string => (isSourceMethod(method) ? method : METHOD_LABEL[method]);

/** What a grid needs of a thread pool (`CalibrationPool` has it): calibrations settled, an error returned in its place rather than thrown. */
export interface GridRunner {
  /** Every job's result, or its error in its place; `onDone` as each settles, `onUnits` a job's units where it runs on this thread. */
  calibrateSettled(
    jobs: { scenario: AnyScenario; settings: PointSettings }[],
    onDone?: (done: number) => void,
    onUnits?: (job: number, done: number, total: number) => void,
  ): Promise<(CalibrationResult | Error)[]>;
}

/**
 * The runner of this thread: each calibration in turn, an error returned in its place (a page or
 * script without a thread pool; the pool's numbers are the same).
 * @example (await thisThread.calibrateSettled([{ scenario: builtinScenario('heart'), settings: { mechanism: 'laplace', method: 'theorem', alpha: 2, epsilon: 1 } }]))[0].scale
 */
export const thisThread: GridRunner = {
  calibrateSettled: async (jobs, onDone, onUnits) =>
    jobs.map((j, k) => {
      try {
        return calibrate(j.scenario, j.settings, onUnits ? { onProgress: (d, t) => onUnits(k, d, t) } : {});
      } catch (e) {
        return e instanceof Error ? e : new Error(String(e));
      } finally {
        onDone?.(k + 1);
      }
    }),
};

/**
 * Progress of a grid's jobs: `step(k, what)` as job k starts (or is first heard of), `done(k)` as k
 * have settled, `within(k)` job k's own units where it runs on this thread.
 */
export interface GridProgress {
  /** Job k starts (or is first heard of), named `what`. */
  step(k: number, what: string): void;
  /** k jobs have settled. */
  done(k: number): void;
  /** Job k's own units (done, total), where it runs on this thread. */
  within?(k: number): (done: number, total: number) => void;
}

/**
 * The families that can give this α at all; one that cannot (Gaussian at α = ∞) is listed in
 * `skipped` with its reason while another family can, otherwise none is skipped and the
 * calibration's own error names the problem.
 * @example gridFamilies(['laplace', 'gaussian'], Infinity, []) // ['laplace']
 */
export function gridFamilies(mechanisms: readonly Mechanism[], alpha: number, skipped: Skipped[]): Mechanism[] {
  const mine: Skipped[] = [];
  const can = mechanisms.filter((mechanism) => {
    const why = mechanismDef(mechanism).alphaRange(alpha);
    if (why) mine.push({ mechanism, method: 'every method', reason: why });
    return !why;
  });
  if (!can.length) return [...mechanisms];
  skipped.push(...mine);
  return can;
}

/** The methods among `methods` the family's rule table has at α. */
export function applyingMethods(methods: readonly SingleMethod[], mechanism: Mechanism, alpha: number, epsilon: number): SingleMethod[] {
  const ok = applicableMethods({ mechanism, method: 'best', alpha, epsilon });
  return methods.filter((k) => ok.includes(k));
}

/** The family's own reason a method does not apply at α (its rule table's), as the CLI words it. */
function whyNot(mechanism: Mechanism, method: SingleMethod, alpha: number, epsilon: number): string {
  try {
    calibrationRule({ mechanism, method, alpha, epsilon });
  } catch (e) {
    if (e instanceof InputError) return e.reason;
    throw e;
  }
  return `does not apply at α = ${alpha === Infinity ? '∞' : alpha}`;
}

const contaminated = (c: Contamination | undefined) => (c && c.lambda > 0 ? { contamination: c } : {});

/**
 * Calibrations on the runner, each settled: an InputError is returned (the caller lists it as
 * skipped); any other error stops the grid.
 */
export async function settledJobs(
  runner: GridRunner,
  scenario: AnyScenario,
  jobs: readonly GridJob[],
  contamination?: Contamination,
  progress?: GridProgress,
): Promise<(CalibrationResult | InputError)[]> {
  progress?.step(0, `${jobs.length} calibration${jobs.length === 1 ? '' : 's'}`);
  // A job run on this thread reports its units: the step names it, its units move the bar.
  let heard = -1;
  const onUnits =
    progress?.within &&
    ((k: number, done: number, total: number) => {
      if (k !== heard) progress.step(k, `${jobs[k].mechanism} ${labelOf(jobs[k].method)}`);
      heard = k;
      progress.within!(k)(done, total);
    });
  const out = await runner.calibrateSettled(
    jobs.map((j) => ({ scenario, settings: { ...j, ...contaminated(contamination) } as PointSettings })),
    progress ? (done) => progress.done(done) : undefined,
    onUnits || undefined,
  );
  for (const r of out) if (r instanceof Error && !(r instanceof InputError)) throw r;
  return out as (CalibrationResult | InputError)[];
}

/** One calibration on this thread: an InputError is returned (its order is passed over), anything else thrown. */
function calibrateOrReason(scenario: AnyScenario, s: CalibrationSettings): CalibrationResult | InputError {
  try {
    return calibrate(scenario, s);
  } catch (e) {
    if (e instanceof InputError) return e;
    throw e;
  }
}

/**
 * A grid of calibrations of one law source, as the page's form asks them: every (family, method)
 * of the request that applies, on the runner's threads at once; what does not apply, or is refused,
 * is pushed to `skipped` with its reason. With `delta`, each (family, method) meets (ε, δ) through
 * its best Rényi order (exact accounting's orders in turn on this thread, where most are passed
 * over once the best is known; the others' orders on the runner at once).
 * @example (await calibrationGrid(builtinScenario('heart'), { mechanisms: ['laplace'], methods: ['theorem'], alpha: 2, epsilon: 1 }, thisThread, [])).length // 1
 */
export async function calibrationGrid(
  scenario: AnyScenario,
  req: GridRequest,
  runner: GridRunner,
  skipped: Skipped[],
  progress?: (total: number) => GridProgress,
): Promise<GridRow[]> {
  return req.delta === undefined ? renyiGrid(scenario, req, runner, skipped, progress) : epsDeltaGrid(scenario, req, req.delta, runner, skipped, progress);
}

async function renyiGrid(
  scenario: AnyScenario,
  req: GridRequest,
  runner: GridRunner,
  skipped: Skipped[],
  progress?: (total: number) => GridProgress,
): Promise<GridRow[]> {
  const { alpha, epsilon } = req;
  const asked: GridJob[] = [];
  // A law source (a chain) is asked directly: its own refusal says why where a method does not apply
  // (its laws may take no family the rule table would offer), in (family, method) order.
  const ask = hasSource(scenario as Scenario<unknown>);
  for (const mechanism of gridFamilies(req.mechanisms, alpha, skipped)) {
    const ok = applyingMethods(
      req.methods.filter((m): m is SingleMethod => !isSourceMethod(m)),
      mechanism,
      alpha,
      epsilon,
    );
    for (const method of req.methods) {
      if (ask || isSourceMethod(method) || ok.includes(method)) asked.push({ mechanism, method, alpha, epsilon });
      else skipped.push({ mechanism, method: METHOD_LABEL[method], reason: whyNot(mechanism, method, alpha, epsilon) });
    }
  }
  const rows: GridRow[] = [];
  const out = await settledJobs(runner, scenario, asked, req.contamination, asked.length ? progress?.(asked.length) : undefined);
  for (const [k, r] of out.entries()) {
    const { mechanism, method } = asked[k];
    if (r instanceof InputError) skipped.push({ mechanism, method: labelOf(method), reason: r.reason });
    else rows.push({ ...r, label: labelOf(method) });
  }
  return rows;
}

async function epsDeltaGrid(
  scenario: AnyScenario,
  req: GridRequest,
  delta: number,
  runner: GridRunner,
  skipped: Skipped[],
  progress?: (total: number) => GridProgress,
): Promise<GridRow[]> {
  const cont = contaminated(req.contamination);
  const groups: {
    mechanism: Mechanism;
    method: SingleMethod | SourceMethodName;
    trials: ReturnType<typeof epsDeltaTrials>;
    from: number;
    direct: boolean;
  }[] = [];
  const jobs: GridJob[] = [];
  for (const mechanism of req.mechanisms)
    for (const method of req.methods) {
      // No order with a positive budget: epsDeltaBest says so below, and the row is listed as skipped.
      const trials = epsDeltaTrials({ mechanism, method, ...cont }, req.epsilon, delta);
      // The exact accountant's orders run here, one after another: most are passed over once the
      // best is known (calibrateEpsDelta), which beats running them all on the pool. A law source's
      // own methods (group DP, the MQM) need its chain, which the pool's tasks do not carry.
      const direct = method === 'exact' || isSourceMethod(method);
      groups.push({ mechanism, method, trials, from: jobs.length, direct });
      if (!direct) for (const t of trials) jobs.push({ mechanism, method, alpha: t.alpha, epsilon: t.renyiEpsilon });
    }
  const out = await settledJobs(runner, scenario, jobs, req.contamination, jobs.length ? progress?.(jobs.length) : undefined);
  const rows: GridRow[] = [];
  const direct = groups.filter((g) => g.direct);
  const steps = direct.length ? progress?.(direct.length) : undefined;
  for (const g of groups) {
    if (g.direct) steps?.step(direct.indexOf(g), `${g.mechanism} ${labelOf(g.method)}: searching the orders`);
    try {
      const r = g.direct
        ? calibrateEpsDelta(scenario, { mechanism: g.mechanism, method: g.method, ...cont, epsilon: req.epsilon, delta }, (s) => calibrateOrReason(scenario, s))
        : epsDeltaBest(g.trials, out.slice(g.from, g.from + g.trials.length), req.epsilon, delta, g.method);
      rows.push({ ...r, label: labelOf(g.method) });
    } catch (err) {
      if (!(err instanceof InputError)) throw err;
      skipped.push({ mechanism: g.mechanism, method: labelOf(g.method), reason: err.reason });
    }
  }
  return rows;
}
