import { defineConfig } from 'vitest/config';
import SummaryReporter from './test/summaryReporter.js';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    reporters: ['default', new SummaryReporter()],
    globalSetup: ['test/globalSetup.ts'],
  },
});
