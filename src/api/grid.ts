import { applicableMethods, calibrate, calibrationRule, METHOD_LABEL } from '../calibrate/calibrate.js';
import { hasSource, isSourceMethod, type SourceMethodName } from '../calibrate/result.js';
import type { Scenario } from '../distribution/scenario.js';
import type { CalibrationResult, CalibrationSettings, Mechanism, Method, SingleMethod } from '../calibrate/calibrate.js';
import type { BoxContamination, PointSettings } from '../calibrate/points.js';
import type { Cost, Eta } from '../conditions/costs.js';
import type { Progress } from '../calibrate/driver.js';
import { calibrateEpsDeltaAsync, DEFAULT_DELTA_ALPHAS, ordersProgress } from '../calibrate/epsDelta.js';
import { mechanismDef } from '../mechanisms/registry.js';
import { InputError } from '../errors.js';
import { checkSetting } from '../settings.js';
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
 * What a grid asks: families × methods × orders × budgets, or an (ε, δ) target met through each
 * one's best order. A law source's own methods (a chain's MQM, group DP) and `best` are asked of
 * the calibration itself, which says why where one does not apply.
 */
export interface GridRequest {
  mechanisms: readonly Mechanism[];
  methods: readonly (Method | SourceMethodName)[];
  /** The Rényi order, or several (each a row); not read with `delta` (`orders` is). */
  alpha: number | readonly number[];
  /** The budget, or several (each a row; with `delta`, the ε of each target). */
  epsilon: number | readonly number[];
  /** An (ε, δ) target: each (family, method, ε) through its best order. */
  delta?: number;
  /** The orders an (ε, δ) target searches (default `DEFAULT_DELTA_ALPHAS`). */
  orders?: readonly number[];
  /**
   * What every calibration of the grid also takes: N releases, a contamination class (as given: at
   * λ = 0 its domain is still checked), the exponential's options, coordinate weights.
   */
  releases?: number;
  contamination?: BoxContamination;
  cost?: Cost;
  eta?: Eta;
  coordinateScales?: readonly number[];
}

/** The settings every calibration of a grid shares, beyond its family, method, order and budget. */
type Shared = Pick<PointSettings, 'releases' | 'contamination' | 'cost' | 'eta' | 'coordinateScales'>;

/** A request's shared settings, only those given (a key present but undefined would reach the wire). */
function sharedOf(req: GridRequest): Shared {
  const out: Shared = {};
  for (const key of ['releases', 'contamination', 'cost', 'eta', 'coordinateScales'] as const)
    if (req[key] !== undefined) (out as Record<string, unknown>)[key] = req[key];
  return out;
}

/**
 * Where a grid's refusals go: listed with their reasons (the page shows them beside the rows), or
 * thrown, the first in the grid's order (a command line asked for each one).
 */
export type Refusals = Skipped[] | 'throw';

/** One calibration of a grid. */
type GridJob = { mechanism: Mechanism; method: Method | SourceMethodName; alpha: number; epsilon: number };

/** A method's name in a grid's rows (a law source's own methods by their names). */
const labelOf = (method: Method | SourceMethodName): string => (isSourceMethod(method) ? method : method === 'best' ? 'best' : METHOD_LABEL[method]);

/** What a grid needs of a thread pool (`CalibrationPool` has it): calibrations settled, an error returned in its place rather than thrown. */
export interface GridRunner {
  /**
   * Every job's result, or its error in its place; `onDone` as each settles, `onUnits` a job's
   * units where they are reported. With `firstError`, jobs run one after another start no more
   * after an error (each later one is given that error).
   */
  calibrateSettled(
    jobs: { scenario: AnyScenario; settings: PointSettings }[],
    onDone?: (done: number) => void,
    onUnits?: (job: number, done: number, total: number) => void,
    firstError?: boolean,
  ): Promise<(CalibrationResult | Error)[]>;
  /** One calibration (its units at once where the runner has threads); its error thrown. */
  calibrate(scenario: AnyScenario, settings: PointSettings, onProgress?: Progress): Promise<CalibrationResult>;
}

/**
 * The runner of this thread: each calibration in turn, an error returned in its place (a page or
 * script without a thread pool; the pool's numbers are the same).
 * @example (await thisThread.calibrateSettled([{ scenario: builtinScenario('heart'), settings: { mechanism: 'laplace', method: 'theorem', alpha: 2, epsilon: 1 } }]))[0].scale
 */
export const thisThread: GridRunner = {
  calibrateSettled: async (jobs, onDone, onUnits, firstError) => {
    const out: (CalibrationResult | Error)[] = [];
    for (const [k, j] of jobs.entries()) {
      const failed = firstError ? out.find((r) => r instanceof Error) : undefined;
      if (failed) out.push(failed);
      else
        try {
          out.push(calibrate(j.scenario, j.settings, onUnits ? { onProgress: (d, t) => onUnits(k, d, t) } : {}));
        } catch (e) {
          out.push(e instanceof Error ? e : new Error(String(e)));
        }
      onDone?.(k + 1);
    }
    return out;
  },
  calibrate: async (scenario, settings, onProgress) => calibrate(scenario, settings, onProgress ? { onProgress } : {}),
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
function applyingMethods(methods: readonly SingleMethod[], mechanism: Mechanism, alpha: number, epsilon: number): SingleMethod[] {
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

/**
 * Calibrations on the runner, each settled in its place (an error too), with `shared` settings;
 * with `firstError`, where the runner takes them one after another (this thread), none is started
 * after the first error.
 */
async function settledJobs(
  runner: GridRunner,
  scenario: AnyScenario,
  jobs: readonly GridJob[],
  shared: Shared = {},
  progress?: GridProgress,
  firstError = false,
): Promise<(CalibrationResult | Error)[]> {
  progress?.step(0, `${jobs.length} calibration${jobs.length === 1 ? '' : 's'}`);
  // A job that reports its units names the step as it is first heard of; its units move the bar.
  let heard = -1;
  const onUnits =
    progress?.within &&
    ((k: number, done: number, total: number) => {
      if (k > heard) progress.step(k, `${jobs[k].mechanism} ${labelOf(jobs[k].method)}`);
      heard = Math.max(heard, k);
      progress.within!(k)(done, total);
    });
  return runner.calibrateSettled(
    jobs.map((j) => ({ scenario, settings: { ...j, ...shared } as PointSettings })),
    progress ? (done) => progress.done(done) : undefined,
    onUnits || undefined,
    firstError,
  );
}

/**
 * A grid's progress as its consumer sees it: positions (job k, and k + its share done) that never
 * move back, though several jobs run at once on a pool and report in any order.
 */
function forward(p: GridProgress): GridProgress {
  let at = 0;
  const ahead = (pos: number) => {
    if (pos < at) return false;
    at = pos;
    return true;
  };
  return {
    step: (k, what) => {
      if (ahead(k)) p.step(k, what);
    },
    done: (k) => {
      if (ahead(k)) p.done(k);
    },
    ...(p.within ? { within: (k: number) => (d: number, t: number) => (ahead(k + (t > 0 ? d / t : 0)) ? p.within!(k)(d, t) : undefined) } : {}),
  };
}

/** A refusal listed, or thrown where the caller asked for each calibration. */
function refuse(refusals: Refusals, s: Skipped, error: InputError): void {
  if (refusals === 'throw') throw error;
  refusals.push(s);
}

const many = (x: number | readonly number[]): readonly number[] => (typeof x === 'number' ? [x] : x);

/**
 * A grid of calibrations of one law source: every (family, method, order, budget) of the request,
 * on the runner's threads at once, in that order. What does not apply, or is refused, goes to
 * `refusals`: listed with its reason (the rule table's where it says one, else the calibration's),
 * or thrown. With `delta`, each (family, method, ε) meets (ε, δ) through its best Rényi order, the
 * orders searched in turn with each one's units at once, most passed over once the best is known.
 * @example (await calibrationGrid(builtinScenario('heart'), { mechanisms: ['laplace'], methods: ['theorem'], alpha: 2, epsilon: 1 }, thisThread, [])).length // 1
 */
export async function calibrationGrid(
  scenario: AnyScenario,
  req: GridRequest,
  runner: GridRunner,
  refusals: Refusals,
  progress?: (total: number) => GridProgress,
): Promise<GridRow[]> {
  const monotone = progress && ((n: number) => forward(progress(n)));
  return req.delta === undefined ? renyiGrid(scenario, req, runner, refusals, monotone) : epsDeltaGrid(scenario, req, req.delta, runner, refusals, monotone);
}

/**
 * The jobs of a Rényi grid, in order; where refusals are listed, those the rule table refuses
 * (or the family's orders exclude) are listed before any work. A law source, `best` and a source's
 * own methods are asked of the calibration (its laws may take no family the rule table would offer).
 */
function renyiJobs(scenario: AnyScenario, req: GridRequest, refusals: Refusals): GridJob[] {
  const strict = refusals === 'throw';
  const ask = strict || hasSource(scenario as Scenario<unknown>);
  const jobs: GridJob[] = [];
  const families = new Map<number, Mechanism[]>();
  for (const alpha of many(req.alpha))
    if (!families.has(alpha)) families.set(alpha, strict ? [...req.mechanisms] : gridFamilies(req.mechanisms, alpha, refusals));
  for (const mechanism of req.mechanisms)
    for (const method of req.methods)
      for (const alpha of many(req.alpha)) {
        if (!families.get(alpha)!.includes(mechanism)) continue;
        for (const epsilon of many(req.epsilon)) {
          const rule = ask || isSourceMethod(method) || method === 'best' ? null : ruleRefusal(mechanism, method, alpha, epsilon);
          if (rule) (refusals as Skipped[]).push({ mechanism, method: METHOD_LABEL[method as SingleMethod], reason: rule });
          else jobs.push({ mechanism, method, alpha, epsilon });
        }
      }
  return jobs;
}

/** The family's rule table's reason the method does not apply at α, or null where it does. */
function ruleRefusal(mechanism: Mechanism, method: SingleMethod, alpha: number, epsilon: number): string | null {
  return applyingMethods([method], mechanism, alpha, epsilon).length ? null : whyNot(mechanism, method, alpha, epsilon);
}

async function renyiGrid(
  scenario: AnyScenario,
  req: GridRequest,
  runner: GridRunner,
  refusals: Refusals,
  progress?: (total: number) => GridProgress,
): Promise<GridRow[]> {
  const asked = renyiJobs(scenario, req, refusals);
  const rows: GridRow[] = [];
  const out = await settledJobs(runner, scenario, asked, sharedOf(req), asked.length ? progress?.(asked.length) : undefined, refusals === 'throw');
  // In the grid's order: a refusal is listed (or thrown); any other error stops the grid.
  for (const [k, r] of out.entries()) {
    const { mechanism, method } = asked[k];
    if (r instanceof InputError) refuse(refusals, { mechanism, method: labelOf(method), reason: r.reason }, r);
    else if (r instanceof Error) throw r;
    else rows.push({ ...r, label: labelOf(method) });
  }
  return rows;
}

async function epsDeltaGrid(
  scenario: AnyScenario,
  req: GridRequest,
  delta: number,
  runner: GridRunner,
  refusals: Refusals,
  progress?: (total: number) => GridProgress,
): Promise<GridRow[]> {
  const targets = req.mechanisms.flatMap((mechanism) =>
    req.methods.flatMap((method) => [...new Set(many(req.epsilon))].map((epsilon) => ({ mechanism, method, epsilon }))),
  );
  // The target itself is checked first: a bad ε or δ is the request's error, not a method's refusal.
  for (const epsilon of many(req.epsilon)) checkSetting('epsilon', epsilon);
  checkSetting('delta', delta);
  const steps = targets.length ? progress?.(targets.length) : undefined;
  const shared = sharedOf(req);
  const rows: GridRow[] = [];
  for (const [k, { mechanism, method, epsilon }] of targets.entries()) {
    steps?.step(k, `${mechanism} ${labelOf(method)}: searching the orders`);
    const orders = ordersProgress(steps?.within?.(k), (req.orders ?? DEFAULT_DELTA_ALPHAS).length);
    // Listed refusals pass an order over (returned); thrown ones stop the search, as the library's calibration does.
    const at = async (s: CalibrationSettings, tried: number): Promise<CalibrationResult | Error> => {
      try {
        return await runner.calibrate(scenario, s as PointSettings, orders.at(tried));
      } catch (e) {
        if (refusals !== 'throw' && e instanceof InputError) return e;
        throw e;
      }
    };
    try {
      const target = { mechanism, method, ...shared, epsilon, delta, ...(req.orders ? { alphas: req.orders } : {}) };
      const r = await calibrateEpsDeltaAsync(scenario, target as Parameters<typeof calibrateEpsDeltaAsync>[1], at);
      orders.finish();
      rows.push({ ...r, label: labelOf(method) });
    } catch (err) {
      if (!(err instanceof InputError)) throw err;
      refuse(refusals, { mechanism, method: labelOf(method), reason: err.reason }, err);
    }
    steps?.done(k + 1);
  }
  return rows;
}
