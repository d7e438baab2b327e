import { describe, expect, it } from 'vitest';
import { InputError } from '../errors.js';
import { fromCounts } from '../distribution/discrete.js';
import { builtinScenario } from '../scenarios/builtin.js';
import { calibrate, heavyCalibration } from './calibrate.js';
import runTask, { type Task } from './parallelWorker.js';
import { CalibrationPool, defaultThreads, taskQueue, type WorkerEvents } from './pool.js';
import type { Scenario } from '../distribution/scenario.js';
import { markovScenario } from '../markov/source.js';
import { validateSpec } from '../markov/chain.js';

/** `threads` workers on the pool's queue that run the workers' code here, a tick later; counts tasks and where they ran. */
function localRunner(threads: number) {
  const seen = { started: 0, tasks: [] as { kind: Task['kind']; worker: number }[] };
  const start = () => {
    seen.started++;
    return taskQueue(threads, (k, on: WorkerEvents) => ({
      post: ({ id, task }) => {
        seen.tasks.push({ kind: task.kind, worker: k });
        setTimeout(() => on.done(id, runTask(structuredClone(task))), 0);
      },
      stop: async () => {},
    }));
  };
  return { seen, start };
}

describe('CalibrationPool', () => {
  const heart = builtinScenario('heart');
  const jobs = [1.5, 2, 4].flatMap((alpha) =>
    [0.5, 1].map((epsilon) => ({ scenario: heart, settings: { mechanism: 'laplace' as const, method: 'coupled' as const, alpha, epsilon } })),
  );
  const alone = jobs.map((j) => calibrate(j.scenario, j.settings));

  it('whole calibrations on the workers give the numbers of one thread; settled ones keep their errors in place', async () => {
    const { seen, start } = localRunner(2);
    const pool = new CalibrationPool(2, start);
    expect(await pool.calibrateSettled(jobs)).toEqual(alone);
    expect(seen.started).toBe(1);
    expect(seen.tasks).toHaveLength(jobs.length);
    expect(new Set(seen.tasks.map((t) => t.worker))).toEqual(new Set([0, 1]));
    const settled = await pool.calibrateSettled([...jobs.slice(0, 2), { scenario: heart, settings: { ...jobs[0].settings, alpha: -1 } }]);
    expect(settled.slice(0, 2)).toEqual(alone.slice(0, 2));
    expect(settled[2]).toBeInstanceOf(InputError); // kept its class through the worker
    expect((settled[2] as Error).message).toMatch(/alpha/);
  });

  // Three priors over five secrets (30 units), secrets listed in a different order in one prior.
  const law = (k: number) => fromCounts([0, 1, 2, 3, 5], [1 + k, 2 + ((3 * k) % 5), 1 + ((k * k) % 4), 2, 1 + (k % 3)]);
  const secrets = ['a', 'b', 'c', 'd', 'e'];
  const many: Scenario = {
    name: 'many',
    priors: [0, 1, 2].map((r) => ({
      name: `prior ${r}`,
      conditionals: Object.fromEntries((r === 1 ? [...secrets].reverse() : secrets).map((s, i) => [s, law(4 * r + (r === 1 ? 4 - i : i))])),
    })),
  };

  it('units spread over the workers in chunks, every method of best at once, re-checked where solved: the numbers of one thread', async () => {
    for (const settings of [
      { mechanism: 'laplace' as const, method: 'best' as const, alpha: 3, epsilon: 0.5 },
      { mechanism: 'laplace' as const, method: 'coupled' as const, alpha: 2, epsilon: 1, releases: 3 },
      { mechanism: 'gaussian' as const, method: 'exact' as const, alpha: 2, epsilon: 1, contamination: { lambda: 0.01, domain: [0, 5] as [number, number] } },
      { mechanism: 'exponential' as const, method: 'theorem' as const, alpha: 4, epsilon: 1 },
    ]) {
      const { seen, start } = localRunner(3);
      const pool = new CalibrationPool(3, start);
      const progress: number[] = [];
      const r = await pool.calibrate(many, settings, (done) => progress.push(done));
      expect(r).toEqual(calibrate(many, settings));
      const solves = seen.tasks.filter((t) => t.kind === 'solve');
      const rechecks = seen.tasks.filter((t) => t.kind === 'recheck');
      expect(solves.length).toBe(15); // 30 units in chunks of ⌈30 / (3·8)⌉ = 2
      // Each chunk is re-checked on the worker that solved it, in the order solved per worker.
      for (const k of [0, 1, 2]) expect(rechecks.filter((t) => t.worker === k).length).toBe(solves.filter((t) => t.worker === k).length);
      expect(progress.at(-1)).toBe(30 * (r.candidates?.length ?? 1));
    }
  });

  it('a few calibrations of many units each are spread together (units of both in the queue at once), one-unit ones go whole', async () => {
    const { seen, start } = localRunner(2);
    const pool = new CalibrationPool(2, start);
    const jobs = [2, 6].map((alpha) => ({ scenario: many, settings: { mechanism: 'laplace' as const, method: 'coupled' as const, alpha, epsilon: 1 } }));
    const units: [number, number, number][] = [];
    const settled: number[] = [];
    const all = [...jobs, { scenario: heart, settings: jobs[0].settings }];
    const out = await pool.calibrateSettled(
      all,
      (d) => settled.push(d),
      (k, d, t) => units.push([k, d, t]),
    );
    expect(out).toEqual(all.map((j) => calibrate(j.scenario, j.settings)));
    expect(seen.tasks.filter((t) => t.kind === 'solve')).toHaveLength(2 * 15); // 30 units in chunks of ⌈30 / (2·8)⌉ = 2
    expect(seen.tasks.filter((t) => t.kind === 'whole')).toHaveLength(1);
    expect(settled).toEqual([1, 2, 3]);
    // Each spread job's units rise to its 30; the whole one reports none.
    for (const k of [0, 1]) {
      const mine = units.filter((u) => u[0] === k).map((u) => u[1]);
      expect(mine.at(-1)).toBe(30);
      expect(mine.every((d, i) => i === 0 || d >= mine[i - 1])).toBe(true);
    }
    expect(units.some((u) => u[0] === 2)).toBe(false);
  });

  it('a setting error is raised before any worker starts, naming its field', async () => {
    const { seen, start } = localRunner(2);
    const pool = new CalibrationPool(2, start);
    await expect(pool.calibrate(many, { mechanism: 'gaussian', method: 'exact', alpha: Infinity, epsilon: 1 })).rejects.toThrow(InputError);
    expect(seen.started).toBe(0);
  });
});

describe('taskQueue', () => {
  const heartTask: Task = { kind: 'whole', scenario: builtinScenario('heart'), settings: { mechanism: 'laplace', method: 'theorem', alpha: 2, epsilon: 1 } };
  /** A queue with this thread as worker 0 and fake helpers that answer at once; which helpers started, and who ran what. */
  function hereQueue(helpersWorthMs: number) {
    const spawned: number[] = [];
    const q = taskQueue(
      3,
      (k, on) => {
        spawned.push(k);
        return { post: ({ id, task }) => setTimeout(() => on.done(id, runTask(task)), 0), stop: async () => {} };
      },
      { here: true, helpersWorthMs },
    );
    return { q, spawned };
  }

  it('with this thread as worker 0, starts no helper for work that would not repay it, and all of them once it would', async () => {
    const never = hereQueue(1e9);
    const ran = await Promise.all(Array.from({ length: 6 }, () => never.q.run(heartTask)));
    expect(ran.map((r) => r.worker)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(ran.every((r) => r.result.ok)).toBe(true);
    expect(never.spawned).toEqual([]);
    // Any measured work repays them here: they start after this thread's second task (its first pays its compilation).
    const soon = hereQueue(1e-9);
    const all = await Promise.all(Array.from({ length: 12 }, () => soon.q.run(heartTask)));
    expect(soon.spawned).toEqual([1, 2]);
    expect(all.slice(0, 2).map((r) => r.worker)).toEqual([0, 0]);
    expect(new Set(all.map((r) => r.worker))).toEqual(new Set([0, 1, 2]));
    const atOnce = hereQueue(0);
    expect(atOnce.spawned).toEqual([1, 2]);
  });

  it('runs a pinned task on its worker, others on whichever is idle; a failed worker fails every waiting task and later ones', async () => {
    const events: WorkerEvents[] = [];
    const posted: { worker: number; id: number }[] = [];
    const q = taskQueue(2, (k, on) => {
      events[k] = on;
      return { post: ({ id }) => posted.push({ worker: k, id }), stop: async () => {} };
    });
    const task: Task = { kind: 'recheck', chunk: 'x', scales: [] };
    const a = q.run(task);
    const b = q.run(task, 0); // worker 0 is busy with a: b waits for it, though worker 1 is idle
    const c = q.run(task);
    expect(posted).toEqual([
      { worker: 0, id: 1 },
      { worker: 1, id: 3 },
    ]);
    events[0].done(1, { ok: true });
    expect((await a).worker).toBe(0);
    expect(posted.at(-1)).toEqual({ worker: 0, id: 2 });
    events[0].done(2, { ok: true, feasible: [[true]] });
    expect(await b).toEqual({ result: { ok: true, feasible: [[true]] }, worker: 0 });
    const d = q.run(task, 1); // behind c on worker 1
    events[1].failed('out of memory');
    for (const r of [await c, await d, await q.run(task)])
      expect(r.result).toEqual({ ok: false, error: { name: 'Error', message: 'calibration worker failed: out of memory' } });
  });
});

describe('defaultThreads', () => {
  it('leaves one core to the compiler and GC of V8, never below one thread, within the cap', () => {
    expect([1, 2, 3, 8, 64].map((c) => defaultThreads(c))).toEqual([1, 1, 2, 7, 63]);
    expect(defaultThreads(64, 8)).toBe(8);
    expect(defaultThreads(0)).toBe(1);
  });
  it('gives heavy work every core, within the cap', () => {
    expect([1, 2, 8].map((c) => defaultThreads(c, 256, true))).toEqual([1, 2, 8]);
    expect(defaultThreads(64, 8, true)).toBe(8);
    expect(defaultThreads(0, 256, true)).toBe(1);
  });
});

describe('heavyCalibration', () => {
  const chain = (length: number) =>
    markovScenario(
      validateSpec({
        states: ['0', '1', '2'],
        chains: [
          {
            name: 'c',
            transition: [
              [0.8, 0.1, 0.1],
              [0.2, 0.7, 0.1],
              [0.1, 0.2, 0.7],
            ],
            initial: 'stationary',
          },
        ],
        length,
        query: { count: '1' },
      }),
      'c',
    ).scenario;
  const exact = { mechanism: 'laplace', method: 'exact', alpha: 2, epsilon: 1 } as const;

  it('is exact accounting over 2·10⁵ atoms or more in all the units, unless only the largest pair is searched', () => {
    // Two laws of 10⁵ atoms: one pair, 2·10⁵ atoms.
    const values = Array.from({ length: 100_000 }, (_, i) => i);
    const wide: Scenario = {
      name: 'wide',
      priors: [
        {
          name: 'p',
          conditionals: {
            a: fromCounts(
              values,
              values.map(() => 1),
            ),
            b: fromCounts(
              values,
              values.map((_, i) => 1 + (i % 3)),
            ),
          },
        },
      ],
    };
    expect(heavyCalibration(wide, exact)).toBe(true);
    expect(heavyCalibration(wide, { ...exact, method: 'best' })).toBe(true);
    // 3 pairs a day, each two laws of length + 1 atoms: 3·100·202 = 60 600 and 3·200·402 = 241 200;
    // but 600 pairs of one prior are searched for the largest only, on one thread.
    expect(heavyCalibration(chain(100), exact)).toBe(false);
    expect(heavyCalibration(chain(200), exact)).toBe(false);
    expect(heavyCalibration(builtinScenario('adult'), exact)).toBe(false);
  });

  it('is never a method that reads no exact divergence, and never computes a chain law for one', () => {
    expect(heavyCalibration(chain(200), { ...exact, method: 'theorem' })).toBe(false);
    // Laws too many for the table: the chain's own methods run without them, and nothing here asks.
    const long = chain(100_000);
    expect(heavyCalibration(long, { ...exact, method: 'mqm-exact' as string as typeof exact.method })).toBe(false);
    expect(heavyCalibration(long, exact)).toBe(false);
    // Settings the calibration refuses are not heavy (the calibration says why).
    expect(heavyCalibration(builtinScenario('heart'), { ...exact, epsilon: -1 })).toBe(false);
  });
});
