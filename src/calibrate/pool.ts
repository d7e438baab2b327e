import {
  applicableMethods,
  bestMethods,
  calibrate,
  calibrationUnits,
  hasSource,
  largestOnly,
  lawSettings,
  lawsOnly,
  type CalibrationResult,
} from './calibrate.js';
import type { Precomputed, Progress } from './driver.js';
import type { CalibrationSettings, SingleMethod } from './rules.js';
import { priorPairs, type Scenario } from '../distribution/scenario.js';
import { byLaw, type AnyScenario } from '../distribution/lawKind.js';
import type { PointSettings } from './points.js';
import { pairCouplings } from '../coupling/pairs.js';
import runTask, { type Task, type TaskResult, type WirePair } from './parallelWorker.js';
import { errorFromWire, toWire, type WireSettings } from './wire.js';

/** Where a pool's tasks run: worker threads (Node, `parallel.ts`) or Web Workers (the web app). */
export interface TaskRunner {
  /**
   * Runs `t` on worker `on` when given (where an earlier task left what this one needs), else on
   * the next idle worker; resolves with the result and the worker that ran it.
   */
  run(t: Task, on?: number): Promise<{ result: TaskResult; worker: number }>;
  close(): Promise<void>;
}

/** One worker as `taskQueue` drives it: the platform's worker behind two calls. */
export interface WorkerPort {
  post(message: { id: number; task: Task }): void;
  stop(): Promise<unknown>;
}

/** What a worker reports to its queue: a task's result, or that it failed and runs nothing more. */
export interface WorkerEvents {
  done(id: number, result: TaskResult): void;
  failed(message: string): void;
}

/** Runs `f` after the events already queued (worker results among them), not before. */
const soon: (f: () => void) => void =
  typeof setImmediate === 'function'
    ? (f) => void setImmediate(f)
    : (f) => {
        const c = new MessageChannel();
        c.port1.onmessage = () => {
          c.port1.close();
          f();
        };
        c.port2.postMessage(null);
      };

/** This thread as a worker: each task runs here, one at a time, between the thread's other events. */
function localWorker(on: WorkerEvents): WorkerPort {
  return { post: ({ id, task }) => soon(() => on.done(id, runTask(task))), stop: async () => {} };
}

/**
 * Work that repays starting helpers (ms of this thread's time): a cold worker costs time to start
 * and to compile the hot code again, and while two threads run, each runs slower; below about a
 * second of work, one thread finishes first (docs/benchmarks.md, "Measurements behind design choices").
 */
export const HELPERS_WORTH_MS = 1000;

export interface QueueOptions {
  /** Worker 0 is this thread (`localWorker`); the others start when worth it (`helpersWorthMs`). */
  here?: boolean;
  helpersWorthMs?: number;
}

/**
 * A task queue over `threads` workers made by `spawn`: each worker runs one task at a time, taking
 * the tasks pinned to it first, then the next shared one (tasks differ widely in cost, so no fixed
 * assignment). Pool libraries (Tinypool, Piscina) cannot pin a task to a worker; a chunk's re-check
 * must run where its conditions were built. A worker that fails fails every task in the queue.
 * With `here`, this thread is worker 0 and the other workers start only for work that repays their
 * start: a short job never waits for a cold worker.
 */
export function taskQueue(threads: number, spawn: (k: number, on: WorkerEvents) => WorkerPort, opts: QueueOptions = {}): TaskRunner {
  type Entry = { id: number; task: Task; resolve: (r: { result: TaskResult; worker: number }) => void };
  const shared: Entry[] = [];
  const pinned: Entry[][] = Array.from({ length: threads }, () => []);
  const running: (Entry | null)[] = Array.from({ length: threads }, () => null);
  const workers: (WorkerPort | null)[] = Array.from({ length: threads }, () => null);
  const worth = opts.here ? (opts.helpersWorthMs ?? HELPERS_WORTH_MS) : 0;
  let broken: string | null = null;
  let next = 0;
  // This thread's task times after its first (which pays its own compilation).
  let localStart = 0,
    localTotal = 0,
    localDone = 0;
  const failed = (message: string) => ({
    result: { ok: false, error: { name: 'Error', message: `calibration worker failed: ${message}` } } as const,
    worker: -1,
  });
  const failAll = (message: string) => {
    broken ??= message;
    const all = [...shared.splice(0), ...pinned.flatMap((q) => q.splice(0)), ...running.filter((e): e is Entry => e !== null)];
    running.fill(null);
    for (const e of all) e.resolve(failed(message));
  };
  const feed = (k: number) => {
    const w = workers[k];
    if (!w || running[k] || broken) return;
    const e = pinned[k].shift() ?? shared.shift();
    if (!e) return;
    running[k] = e;
    if (opts.here && k === 0) localStart = performance.now();
    w.post({ id: e.id, task: e.task });
  };
  const events = (k: number): WorkerEvents => ({
    done(id, result) {
      const e = running[k];
      if (!e || e.id !== id) return;
      running[k] = null;
      if (opts.here && k === 0) {
        const ms = performance.now() - localStart;
        if (localDone++ > 0) localTotal += ms;
      }
      e.resolve({ result, worker: k });
      grow();
      feed(k);
    },
    failed: failAll,
  });
  const start = (k: number) => {
    workers[k] = opts.here && k === 0 ? localWorker(events(0)) : spawn(k, events(k));
    feed(k);
  };
  // Helpers start once this thread's mean task time predicts enough work waiting (measured, not guessed).
  const grow = () => {
    if (workers.every((w) => w !== null) || shared.length === 0) return;
    if (worth > 0 && !(localDone >= 2 && (localTotal / (localDone - 1)) * shared.length > worth)) return;
    for (let k = 0; k < threads; k++) if (!workers[k]) start(k);
  };
  if (opts.here) start(0);
  if (worth === 0) for (let k = 0; k < threads; k++) if (!workers[k]) start(k);
  return {
    run: (task, on) =>
      new Promise((resolve) => {
        const e: Entry = { id: ++next, task, resolve };
        if (broken) return resolve(failed(broken));
        if (on !== undefined) {
          pinned[on].push(e);
          feed(on);
        } else {
          shared.push(e);
          const idle = running.findIndex((r, k) => r === null && workers[k] !== null);
          if (idle >= 0) feed(idle);
          grow();
        }
      }),
    close: async () => {
      await Promise.all(workers.map((w) => w?.stop()));
    },
  };
}

let pools = 0;

/** The single methods a calibration runs (`best`: every candidate it tries). */
const methodsOf = (scenario: AnyScenario, settings: CalibrationSettings): SingleMethod[] =>
  settings.method !== 'best'
    ? [settings.method]
    : byLaw(
        scenario,
        { finite: (s) => bestMethods(s, settings).methods, points: () => applicableMethods(settings), mixture: () => applicableMethods(settings) },
        'calibration',
      );

/** A calibration's (prior, pair) units, per method. */
const pairCount = (scenario: AnyScenario) => priorPairs(scenario as Scenario<unknown>).units.length;

/**
 * Threads to use by default on a machine with `cores` cores: one fewer, at least one (then no
 * pool). V8's concurrent compiler and GC keep a second core busy for a single-threaded calibration,
 * and two threads slow each other on a 2-vCPU machine: two one-thread processes at once take
 * 1.3–1.85× as long as one alone (docs/benchmarks.md). `heavy` work — seconds in each unit, such as
 * a vector query's transport solves — repays a helper's start and second compile, so it takes
 * every core (on 2 cores: 0.83× of one thread's time, docs/benchmarks.md).
 * @example defaultThreads(8) // 7
 * @example defaultThreads(2, 256, true) // 2
 */
export function defaultThreads(cores: number, cap = 256, heavy = false): number {
  return Math.max(1, Math.min(cap, Math.floor(cores) - (heavy ? 0 : 1)));
}

/**
 * A pool of workers for calibration, on any platform (the runner is the platform's). Independent
 * units — (prior, pair) for one method, or whole calibrations of a grid — run on the workers (this
 * thread among them, with the runners of `parallel.ts` and the page) with the same code
 * (`parallelWorker.ts`); maxima and results are assembled here, so every number is bit-for-bit
 * the one a single thread computes (tests check it).
 */
export class CalibrationPool {
  private started: TaskRunner | null = null;
  private jobs = 0;
  private readonly id = ++pools;

  /** `start` makes the runner at the first task (workers start only when there is work). */
  constructor(
    readonly threads: number,
    private readonly start: (threads: number) => TaskRunner,
  ) {}

  /** Whether work may go to workers (more than one thread). */
  private get pool(): boolean {
    return this.threads > 1;
  }

  private async run(t: Task, on?: number): Promise<{ result: TaskResult & { ok: true }; worker: number }> {
    this.started ??= this.start(this.threads);
    const { result, worker } = await this.started.run(t, on);
    if (!result.ok) throw errorFromWire(result.error);
    return { result, worker };
  }

  /**
   * One calibration, its (prior, pair) units spread over the workers in chunks, every method of
   * `best` at once: each chunk carries only its own pairs' conditionals; the worker that solved a
   * chunk keeps its conditions and re-checks them at each method's maximum (the driver's re-check,
   * `driver.ts`); the result is then assembled here from the workers' numbers.
   */
  async calibrate(scenario: AnyScenario, settings: PointSettings, onProgress?: Progress): Promise<CalibrationResult> {
    const wire = toWire(settings);
    // Finite laws on ℝ spread their units; other laws go whole to one worker (the same code: the same numbers).
    return byLaw(
      scenario,
      {
        finite: (s) => this.calibrateUnits(s, settings, onProgress),
        points: async (s) =>
          this.pool && wire && !hasSource(s)
            ? (await this.run({ kind: 'whole', scenario: s, settings: wire })).result.result!
            : calibrate(s, settings, { onProgress }),
        mixture: async (s) => calibrate(s, settings, { onProgress }),
      },
      'calibration',
    );
  }

  private async calibrateUnits(scenario: Scenario, settings: CalibrationSettings, onProgress?: Progress): Promise<CalibrationResult> {
    const wire = toWire(settings);
    if (!this.pool || !wire) return calibrate(scenario, settings, { onProgress });
    // A law source's own methods and the charge of its computed laws stay here; its laws' pairs go
    // to the workers (with W∞'s tie tolerance), calibrated at the budget the source leaves them.
    // Its laws are read only when a method needs them (a chain computes them on first use).
    if (hasSource(scenario)) {
      const st = lawSettings(scenario, settings);
      const laws = st ? await this.calibrateUnits(lawsOnly(scenario), st, onProgress) : null;
      return calibrate(scenario, settings, { onProgress, ...(laws ? { laws } : {}) });
    }
    const methods = methodsOf(scenario, settings);
    const count = pairCount(scenario);
    // Many pairs of one prior: the largest pair's search and one check of each other pair, here.
    if (count < 2 || largestOnly(scenario)) return calibrate(scenario, settings, { onProgress });
    // Settings and inputs are checked here, where an error keeps its class and field.
    for (const method of methods) calibrationUnits(scenario, { ...settings, method });
    const pairs: WirePair[] = pairCouplings(scenario).map((pc) => ({ prior: pc.prior, pair: [pc.pair[0], pc.pair[1]], p: pc.p, q: pc.q }));
    const job = `${this.id}:${++this.jobs}`;
    const size = Math.max(1, Math.ceil(count / (this.threads * 8)));
    const starts = Array.from({ length: Math.ceil(count / size) }, (_, c) => c * size);
    const total = count * methods.length;
    let done = 0;
    const ordered = scenario.ordered ?? false;
    const solved = await Promise.all(
      starts.map(async (start, c) => {
        const chunk = pairs.slice(start, start + size);
        const { result, worker } = await this.run({
          kind: 'solve',
          chunk: `${job}:${c}`,
          pairs: chunk,
          ordered,
          tieTolerance: scenario.tieTolerance ?? 0,
          settings: wire,
          methods,
        });
        done += chunk.length * methods.length;
        onProgress?.(done, total);
        return { solved: result.solved!, worker };
      }),
    );
    const scales = methods.map((_, m) => solved.reduce((a, c) => c.solved[m].reduce((b, u) => Math.max(b, u.scale), a), 0));
    const checks = await Promise.all(solved.map(({ worker }, c) => this.run({ kind: 'recheck', chunk: `${job}:${c}`, scales }, worker)));
    const precomputed: Partial<Record<SingleMethod, Precomputed>> = {};
    // A unit that rounds infeasible at the maximum (an ulp above its own scale): this thread solves
    // again, lifting the common scale by a few ulps until every unit holds (`solveUnits`).
    if (methods.some((_, m) => checks.some((c) => c.result.feasible![m].some((ok) => !ok)))) return calibrate(scenario, settings);
    methods.forEach((method, m) => {
      precomputed[method] = { units: solved.flatMap((c) => c.solved[m]), rechecked: true };
    });
    return calibrate(scenario, settings, { precomputed });
  }

  /**
   * Many calibrations, results in the order given, each settled on its own: a calibration that
   * fails gives its error in place, the others their results. Whole calibrations go to the
   * workers when there are plenty (at least four per thread, so the last ones even out), else each
   * calibration's units are spread over the workers at once (a few heavy calibrations keep every
   * worker busy). `onDone` counts the settled; `onUnits` reports a job's units (done, total) where
   * its units are spread or it runs on this thread. With `firstError`, jobs taken one after another
   * (a law source's, or without helpers) start no more after an error: each later one is given it.
   */
  async calibrateSettled(
    jobs: { scenario: AnyScenario; settings: PointSettings }[],
    onDone?: (done: number) => void,
    onUnits?: (job: number, done: number, total: number) => void,
    firstError = false,
  ): Promise<(CalibrationResult | Error)[]> {
    let settled = 0;
    const settle = async (run: () => Promise<CalibrationResult>): Promise<CalibrationResult | Error> => {
      let r: CalibrationResult | Error;
      try {
        r = await run();
      } catch (e) {
        r = e instanceof Error ? e : new Error(String(e));
      }
      onDone?.(++settled);
      return r;
    };
    const units = (k: number): Progress | undefined => onUnits && ((d, t) => onUnits(k, d, t));
    const wires = jobs.map((j) => toWire(j.settings));
    // A law source's calibrations go one by one, each spreading its laws' pairs where a method reads
    // them (counting its pairs up front would compute laws its methods may never read).
    if (!this.pool || wires.some((w) => w === null) || jobs.some((j) => hasSource(j.scenario as Scenario))) {
      const out: (CalibrationResult | Error)[] = [];
      for (const [k, j] of jobs.entries()) {
        const failed = firstError ? out.find((r) => r instanceof Error) : undefined;
        out.push(await settle(failed ? () => Promise.reject(failed) : () => this.calibrate(j.scenario, j.settings, units(k))));
      }
      return out;
    }
    const whole = jobs.length >= 4 * this.threads;
    return Promise.all(
      jobs.map((j, k) =>
        settle(async () =>
          // A calibration of one unit (one prior, one pair) has nothing to spread: it goes whole.
          !whole && pairCount(j.scenario) > 1
            ? this.calibrate(j.scenario, j.settings, units(k))
            : (await this.run({ kind: 'whole', scenario: j.scenario, settings: wires[k] as WireSettings })).result.result!,
        ),
      ),
    );
  }

  /** One task on the next idle worker (this thread too); its result, or its error rethrown here. */
  async runTask(t: Task): Promise<TaskResult & { ok: true }> {
    return (await this.run(t)).result;
  }

  async close(): Promise<void> {
    await this.started?.close();
  }
}
