import Tinypool from 'tinypool';
import { CalibrationPool, type TaskRunner } from './pool.js';
import type { Task, TaskResult } from './parallelWorker.js';

export { CalibrationPool } from './pool.js';

/** Node worker threads (Tinypool) running `parallelWorker.ts`. */
export function threadRunner(threads: number): TaskRunner {
  const pool = new Tinypool({
    filename: new URL('./parallelWorker.js', import.meta.url).href,
    minThreads: threads,
    maxThreads: threads,
    isolateWorkers: false,
    // The workers run the compiled modules: no loader of the parent (tsx in the bench) is needed,
    // and one would slow every worker.
    execArgv: [],
  });
  return { run: (t: Task) => pool.run(t) as Promise<TaskResult>, close: () => pool.destroy() };
}

/** Runs `f` with a pool of `threads` worker threads, closing it afterwards (also on an error). */
export async function withPool<T>(threads: number, f: (pool: CalibrationPool) => Promise<T>): Promise<T> {
  const pool = new CalibrationPool(threads, threadRunner);
  try {
    return await f(pool);
  } finally {
    await pool.close();
  }
}
