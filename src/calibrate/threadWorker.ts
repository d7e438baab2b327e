// A Node worker thread of `calibrate/parallel.ts`: runs each task it is sent with the pool's worker code.
import { parentPort } from 'node:worker_threads';
import run, { type Task } from './parallelWorker.js';

parentPort?.on('message', (m: { id: number; task: Task }) => parentPort?.postMessage({ id: m.id, result: run(m.task) }));
