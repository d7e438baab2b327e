import { NumericalError } from '../errors.js';
import { bestMethods, calibrate, calibrationUnits, type CalibrationResult } from './calibrate.js';
import type { Precomputed, Progress } from './driver.js';
import type { CalibrationSettings, SingleMethod } from './rules.js';
import { pairsOf, type Scenario } from './scenario.js';
import type { Task, TaskResult } from './parallelWorker.js';
import { errorFromWire, toWire, type WireSettings } from './wire.js';

/** Where a pool's tasks run: worker threads (Node, `parallel.ts`) or Web Workers (the web app). */
export interface TaskRunner {
  run(t: Task): Promise<TaskResult>;
  close(): Promise<void>;
}

let pools = 0;

/**
 * Worker threads to use by default on a machine with `cores` cores: one fewer, at least one (then
 * no pool). A single-threaded calibration already keeps a second core busy with V8's concurrent
 * compiler and GC (the Figure 1 grid: 2.1 s of wall time, 2.8 s of CPU), and each worker compiles
 * the same code again: on a 2-vCPU machine a pool of two was 1.3–1.46× slower than one thread on
 * every case measured (README, Benchmarks).
 * @example defaultThreads(2) // 1
 */
export function defaultThreads(cores: number, cap = 256): number {
  return Math.max(1, Math.min(cap, Math.floor(cores) - 1));
}

/**
 * A pool of workers for calibration, on any platform (the runner is the platform's). Independent
 * units — (prior, pair) for one method, or whole calibrations of a grid — run on the workers with
 * the same code as this thread (`parallelWorker.ts`); this thread only takes maxima and assembles
 * results, so every number is bit-for-bit the one a single thread computes (tests check it).
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

  private async run(t: Task): Promise<TaskResult & { ok: true }> {
    this.started ??= this.start(this.threads);
    const r = await this.started.run(t);
    if (!r.ok) throw errorFromWire(r.error);
    return r;
  }

  /**
   * One calibration, its units spread over the workers: phase 1 solves every unit, phase 2
   * re-checks every unit at its method's maximum; the result is then assembled in this thread.
   */
  async calibrate(scenario: Scenario, settings: CalibrationSettings, onProgress?: Progress): Promise<CalibrationResult> {
    const wire = toWire(settings);
    const methods: SingleMethod[] = settings.method === 'best' ? bestMethods(scenario, settings).methods : [settings.method];
    const count = scenario.priors.length * pairsOf(scenario).length;
    if (!this.pool || !wire || count < 2) return calibrate(scenario, settings, { onProgress });
    // Settings and inputs are checked here, where an error keeps its class and field.
    for (const method of methods) calibrationUnits(scenario, { ...settings, method });
    const key = `${this.id}:${++this.jobs}`;
    const chunk = Math.max(1, Math.ceil(count / (this.threads * 4)));
    const chunks: number[][] = [];
    for (let i = 0; i < count; i += chunk) chunks.push(Array.from({ length: Math.min(chunk, count - i) }, (_, k) => i + k));
    const total = count * methods.length;
    let done = 0;
    const solved = await Promise.all(
      methods.map(async (method) => {
        const parts = await Promise.all(
          chunks.map(async (indices) => {
            const r = await this.run({ kind: 'solve', key, scenario, settings: wire, method, indices });
            done += indices.length;
            onProgress?.(done, total);
            return r.units!;
          }),
        );
        return { method, units: parts.flat() };
      }),
    );
    const precomputed: Partial<Record<SingleMethod, Precomputed>> = {};
    await Promise.all(
      solved.map(async ({ method, units }) => {
        const scale = units.reduce((m, u) => Math.max(m, u.scale), 0);
        if (scale > 0) {
          const checks = await Promise.all(chunks.map((indices) => this.run({ kind: 'recheck', key, scenario, settings: wire, method, indices, scale })));
          const failed = checks.flatMap((c) => c.feasible!).findIndex((ok) => !ok);
          if (failed >= 0) throw new NumericalError(`re-check failed for unit ${failed} of ${method} at scale ${scale}`);
        }
        precomputed[method] = { units, rechecked: true };
      }),
    );
    return calibrate(scenario, settings, { precomputed });
  }

  /**
   * Many calibrations: whole calibrations on the workers when there are at least as many as
   * threads, else each one's units spread over the workers. Results in the order given.
   */
  async calibrateAll(jobs: { scenario: Scenario; settings: CalibrationSettings }[], onProgress?: Progress): Promise<CalibrationResult[]> {
    const wires = jobs.map((j) => toWire(j.settings));
    if (!this.pool || jobs.length < this.threads || wires.some((w) => w === null)) {
      const out: CalibrationResult[] = [];
      for (const [k, j] of jobs.entries())
        out.push(await this.calibrate(j.scenario, j.settings, onProgress && ((d, t) => onProgress(k * t + d, jobs.length * t))));
      return out;
    }
    let done = 0;
    return Promise.all(
      jobs.map(async (j, k) => {
        const r = await this.run({ kind: 'whole', scenario: j.scenario, settings: wires[k] as WireSettings });
        onProgress?.(++done, jobs.length);
        return r.result!;
      }),
    );
  }

  /**
   * Whole calibrations, each on a worker (in this thread with one thread), each settled on its
   * own: a calibration that fails gives its error in place, the others their results.
   */
  async calibrateSettled(jobs: { scenario: Scenario; settings: CalibrationSettings }[]): Promise<(CalibrationResult | Error)[]> {
    return Promise.all(
      jobs.map(async (j) => {
        const wire = toWire(j.settings);
        try {
          if (!this.pool || !wire) return calibrate(j.scenario, j.settings);
          return (await this.run({ kind: 'whole', scenario: j.scenario, settings: wire })).result!;
        } catch (e) {
          return e instanceof Error ? e : new Error(String(e));
        }
      }),
    );
  }

  async close(): Promise<void> {
    await this.started?.close();
  }
}
