import { describe, expect, it } from 'vitest';
import { InputError } from '../errors.js';
import { builtinScenario } from '../scenarios/builtin.js';
import { calibrate } from './calibrate.js';
import runTask, { type Task } from './parallelWorker.js';
import { CalibrationPool, defaultThreads, type TaskRunner } from './pool.js';

/** A runner that counts its tasks and runs them with the workers' code, here. */
function countingRunner() {
  const seen = { started: 0, tasks: 0 };
  const start = (): TaskRunner => {
    seen.started++;
    return {
      run: async (t: Task) => {
        seen.tasks++;
        return runTask(structuredClone(t));
      },
      close: async () => {},
    };
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
    const { seen, start } = countingRunner();
    const pool = new CalibrationPool(2, start);
    expect(await pool.calibrateAll(jobs)).toEqual(alone);
    expect(seen.started).toBe(1);
    expect(seen.tasks).toBe(jobs.length);
    const settled = await pool.calibrateSettled([...jobs.slice(0, 2), { scenario: heart, settings: { ...jobs[0].settings, alpha: -1 } }]);
    expect(settled.slice(0, 2)).toEqual(alone.slice(0, 2));
    expect(settled[2]).toBeInstanceOf(InputError); // kept its class through the worker
    expect((settled[2] as Error).message).toMatch(/alpha/);
  });
});

describe('defaultThreads', () => {
  it('leaves one core to the main thread and V8, never below one thread, within the cap', () => {
    expect([1, 2, 3, 8, 64].map((c) => defaultThreads(c))).toEqual([1, 1, 2, 7, 63]);
    expect(defaultThreads(64, 8)).toBe(8);
    expect(defaultThreads(0)).toBe(1);
  });
});
