/**
 * Test files that replace a module of the app with `vi.mock`. Vitest applies such a mock to the
 * module graph of the file that declares it, and the other files of a fork share one module graph
 * (vitest.config.ts), so these run with modules of their own. test/db/test-isolation.test.ts fails when
 * a file mocks a module without being listed here.
 */
export const MOCKING_FILES = [
  'test/ingest/async-upload-cleanup.test.ts',
  'test/ingest/ingest-worker.test.ts',
];
