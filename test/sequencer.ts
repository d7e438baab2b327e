import { readFileSync, statSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Seconds per test file from a full run on the 2-core development machine (order only; refresh from a JSON report now and then). */
const TIMINGS: Record<string, number> = JSON.parse(readFileSync(new URL('./timings.json', import.meta.url), 'utf8'));

/**
 * Vitest's order (longest first, by the last run's timings), except on a run with none (a fresh
 * clone, CI): then the recorded timings of `timings.json`, files not listed there by size. The two
 * workers then finish together instead of one starting the minute-long browser suite last.
 */
export default class RecordedTimings extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const key = (f: TestSpecification) => relative(this.ctx.config.root, f.moduleId);
    if (files.some((f) => this.ctx.cache.getFileTestResults(`${f.project.name}:${key(f)}`))) return super.sort(files);
    const weight = (f: TestSpecification) => TIMINGS[key(f)] ?? statSync(f.moduleId).size / 1e4;
    return [...files].sort((a, b) => weight(b) - weight(a));
  }
}
