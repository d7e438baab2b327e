import type { TaskRunner } from '../src/calibrate/pool.js';
import type { Task, TaskResult } from '../src/calibrate/parallelWorker.js';

/**
 * Web Workers for a `CalibrationPool` in the browser: `threads` nested workers, each taking the
 * next queued task when it finishes one (tasks differ widely in cost, so no fixed assignment).
 */
export function webRunner(threads: number): TaskRunner {
  const queue: { id: number; task: Task }[] = [];
  const waiting = new Map<number, (r: TaskResult) => void>();
  let next = 0;
  const idle: Worker[] = [];
  const feed = () => {
    while (idle.length && queue.length) idle.pop()!.postMessage(queue.shift()!);
  };
  const workers = Array.from({ length: threads }, () => {
    const w = new Worker(new URL('./calibrationWorker.ts', import.meta.url), { type: 'module' });
    w.onmessage = (e: MessageEvent<{ id: number; result: TaskResult }>) => {
      waiting.get(e.data.id)?.(e.data.result);
      waiting.delete(e.data.id);
      idle.push(w);
      feed();
    };
    w.onerror = (e) => {
      // A worker that cannot run (failed to load) fails every task waiting on the pool.
      for (const [, done] of waiting) done({ ok: false, error: { name: 'Error', message: `calibration worker failed: ${e.message}` } });
      waiting.clear();
    };
    idle.push(w);
    return w;
  });
  return {
    run: (task) =>
      new Promise<TaskResult>((resolve) => {
        const id = ++next;
        waiting.set(id, resolve);
        queue.push({ id, task });
        feed();
      }),
    close: async () => {
      for (const w of workers) w.terminate();
    },
  };
}
