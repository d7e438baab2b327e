// A calibration worker nested in the app's worker: runs one pool task (`calibrate/parallelWorker.ts`,
// the code the CLI's worker threads run), so the page's numbers equal a single thread's.
import run, { type Task } from '../src/calibrate/parallelWorker.js';

self.onmessage = (e: MessageEvent<{ id: number; task: Task }>) => {
  (self as unknown as Worker).postMessage({ id: e.data.id, result: run(e.data.task) });
};
