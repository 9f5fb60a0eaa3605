import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { MOCKING_FILES } from './test/support/mocking-files.ts';

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/file-hygiene.ts'],
    pool: 'forks',
    // Vitest's default, one fork fewer than the cores, is one fork on the 2-core machines we and CI
    // run on: the files ran one after another, though most of their time waits on child processes,
    // timers and the database. Two forks, measured on a slow day of the same machine: PGlite 1,006 s
    // → 500–617 s, PostgreSQL 768 s → 454 s. (PostgreSQL with two forks once failed a file's
    // migration with "schema … does not exist": Kysely's introspection looked up schemas that another
    // file was dropping; the Migrator now reads the search path's schemas only, search-path-introspector.ts.)
    // Three forks on two cores changed nothing (345 s against 313–350 s): the suite is CPU-bound.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // expect.poll's default of 1 s is shorter than a debounced search's round trip under the full
    // suite's load on 2 cores: CI's PostgreSQL pass once read the unfiltered 50 rows at the deadline
    // (ui.e2e.test.ts, "filters findings"). A poll that can never pass still fails, only later.
    expect: { poll: { timeout: 10_000 } },
    reporters: ['default'],
    projects: [
      {
        // A fork imports the app's modules once for all the files it runs, instead of once per file
        // (Vitest's default isolation): on PGlite 313–350 s → 228–231 s, "import" 101 s → 13 s of the
        // forks' time. Every file builds its own app, database and servers from those modules; state
        // that outlives a file (spies, fake timers) is checked after each file (file-hygiene.ts).
        extends: true,
        test: {
          name: 'shared-modules',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: MOCKING_FILES,
          isolate: false,
        },
      },
      { extends: true, test: { name: 'module-mocks', include: MOCKING_FILES, isolate: true } },
    ],
  },
});
