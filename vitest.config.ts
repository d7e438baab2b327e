import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import RecordedTimings from './test/sequencer.js';
import SummaryReporter from './test/summaryReporter.js';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    // Two files at a time even on two cores: about half the suite waits on child processes
    // (CLI runs, the browser, PostgreSQL), so a second worker fills that time (326 s → 239 s here).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // A worker keeps its imported modules from one file to the next instead of loading the
    // sources again for each of the ~60 files; no test patches a module or the environment
    // without restoring it.
    isolate: false,
    reporters: ['default', new SummaryReporter()],
    sequence: { sequencer: RecordedTimings },
    globalSetup: ['test/globalSetup.ts'],
  },
});
