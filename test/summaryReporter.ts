import type { Reporter, TestModule } from 'vitest/node';

/** Ends the run with the plain closing line `tests: N passed, N failed, N skipped` that CI reads. */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown> = []): void {
    const n = { passed: 0, failed: 0, skipped: 0 };
    for (const m of testModules) {
      for (const t of m.children.allTests()) {
        const s = t.result().state;
        if (s === 'passed') n.passed++;
        else if (s === 'failed') n.failed++;
        else n.skipped++;
      }
      // A file that failed to load, or whose hooks failed while no test of it failed, is a failure.
      if (m.state() === 'failed' && ![...m.children.allTests()].some((t) => t.result().state === 'failed')) n.failed++;
    }
    n.failed += unhandledErrors.length; // errors outside any test (a failed global setup, a crashed worker)
    process.stdout.write(`\ntests: ${n.passed} passed, ${n.failed} failed, ${n.skipped} skipped\n`);
  }
}
