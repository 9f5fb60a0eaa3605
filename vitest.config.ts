import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    // Vitest's default, one fork fewer than the cores, is one fork on the 2-core machines we and CI
    // run on: the files ran one after another, though most of their time waits on child processes,
    // timers and the database. Two forks, measured on a slow day of the same machine: PGlite 1,006 s
    // → 500–617 s, every test passing twice. The PostgreSQL suite keeps one fork: its files share one
    // server, and with two forks one run failed creating a test file's schema ("schema … does not
    // exist" in test/job-queues.test.ts), which is not understood yet.
    maxWorkers: process.env.TEST_DATABASE_URL ? 1 : Math.max(2, availableParallelism() - 1),
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
