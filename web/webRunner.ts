import { taskQueue, type TaskRunner } from '../src/calibrate/pool.js';
import type { TaskResult } from '../src/calibrate/parallelWorker.js';

/**
 * Web Workers for a `CalibrationPool` in the browser: this worker and nested ones on the pool's task
 * queue, started when `helpersWorthMs` of work waits (default `HELPERS_WORTH_MS`; 0 = at once).
 */
export function webRunner(threads: number, helpersWorthMs?: number): TaskRunner {
  return taskQueue(
    threads,
    (_, on) => {
      const w = new Worker(new URL('./calibrationWorker.ts', import.meta.url), { type: 'module' });
      w.onmessage = (e: MessageEvent<{ id: number; result: TaskResult }>) => on.done(e.data.id, e.data.result);
      // A worker that cannot run (failed to load) fails every task waiting on the pool.
      w.onerror = (e) => on.failed(e.message);
      return { post: (m) => w.postMessage(m), stop: async () => w.terminate() };
    },
    { here: true, helpersWorthMs },
  );
}
