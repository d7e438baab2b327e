import { Worker } from 'node:worker_threads';
import { CalibrationPool, taskQueue, type TaskRunner } from './pool.js';
import type { Task, TaskResult } from './parallelWorker.js';

export { CalibrationPool } from './pool.js';

/** Node worker threads, each running `threadWorker.ts` (the compiled modules). */
export function threadRunner(threads: number): TaskRunner {
  return taskQueue(threads, (_, on) => {
    let stopping = false;
    // No loader of the parent (tsx in the bench) is needed, and one would slow every worker.
    const w = new Worker(new URL('./threadWorker.js', import.meta.url), { execArgv: [] });
    w.on('message', (m: { id: number; result: TaskResult }) => on.done(m.id, m.result));
    w.on('error', (e) => on.failed(e.message));
    w.on('exit', (code) => {
      if (!stopping) on.failed(`exited with code ${code}`);
    });
    return {
      post: (m: { id: number; task: Task }) => w.postMessage(m),
      stop: () => {
        stopping = true;
        return w.terminate();
      },
    };
  });
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
