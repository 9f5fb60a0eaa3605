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
    // → 500–617 s, PostgreSQL 768 s → 454 s. (PostgreSQL with two forks once failed a file's
    // migration with "schema … does not exist": Kysely's introspection looked up schemas that another
    // file was dropping; the Migrator now reads the search path's schemas only, search-path-introspector.ts.)
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
