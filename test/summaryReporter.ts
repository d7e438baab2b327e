import type { Reporter, TestModule } from 'vitest/node';

/** Ends the run with the plain closing line `tests: N passed, N failed, N skipped` that CI reads. */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const n = { passed: 0, failed: 0, skipped: 0 };
    for (const m of testModules) {
      for (const t of m.children.allTests()) {
        const s = t.result().state;
        if (s === 'passed') n.passed++;
        else if (s === 'failed') n.failed++;
        else n.skipped++;
      }
      if (m.state() === 'failed' && [...m.children.allTests()].length === 0) n.failed++; // a file that failed to load
    }
    process.stdout.write(`\ntests: ${n.passed} passed, ${n.failed} failed, ${n.skipped} skipped\n`);
  }
}
