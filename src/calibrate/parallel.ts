import { Worker } from 'node:worker_threads';
import { InputError } from '../errors.js';
import { CalibrationPool, HELPERS_WORTH_MS, taskQueue, type TaskRunner } from './pool.js';
import type { Task, TaskResult } from './parallelWorker.js';

export { CalibrationPool } from './pool.js';

/**
 * When worker threads start: `PUFFERFISH_HELPERS_WORTH_MS` (ms of this thread's work waiting; 0 =
 * at once), else `HELPERS_WORTH_MS`.
 */
function helpersWorthMs(env: Record<string, string | undefined> = process.env): number {
  const text = env.PUFFERFISH_HELPERS_WORTH_MS;
  if (text === undefined || text === '') return HELPERS_WORTH_MS;
  const ms = Number(text);
  if (!/^\s*[0-9.e+]+\s*$/i.test(text) || !(ms >= 0) || !Number.isFinite(ms))
    throw new InputError(`must be a number of milliseconds, 0 or more, got '${text}'`, 'PUFFERFISH_HELPERS_WORTH_MS');
  return ms;
}

/** This thread and Node worker threads, each running `threadWorker.ts` (the compiled modules), started when worth it. */
function threadRunner(threads: number, worth = helpersWorthMs()): TaskRunner {
  return taskQueue(
    threads,
    (_, on) => {
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
    },
    { here: true, helpersWorthMs: worth },
  );
}

/**
 * Runs `f` with a pool of `threads` worker threads, closing it afterwards (also on an error).
 * `worth`: when helpers start (ms of this thread's work waiting; 0 = at once, for work known heavy).
 */
export async function withPool<T>(threads: number, f: (pool: CalibrationPool) => Promise<T>, worth?: number): Promise<T> {
  const pool = new CalibrationPool(threads, (n) => threadRunner(n, worth ?? helpersWorthMs()));
  try {
    return await f(pool);
  } finally {
    await pool.close();
  }
}
