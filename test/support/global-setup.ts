import type { PGlite } from '@electric-sql/pglite';
import { existsSync, writeFileSync, rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { loadConfig } from '../../src/config.ts';
import { migrateToLatest, openDatabase } from '../../src/db/database.ts';
import { createAppContext } from '../../src/context.ts';
import { corpusPath } from './parse-corpus.ts';
import { ensureTestDatabase } from './test-database.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Path of a migrated PGlite data dir dump; each test file starts its own database from it. */
    pgliteTemplate: string;
  }
}

/**
 * Migrates one PGlite database and dumps it, so each test file loads a ready schema instead of
 * creating a cluster and migrating it again (seconds per file).
 */
export default async function setup(project: TestProject): Promise<() => void> {
  // Without it dozens of tests fail one by one with ENOENT; say once what is missing.
  const manifest = corpusPath('MANIFEST.tsv');
  if (!existsSync(manifest)) {
    throw new Error(
      `The scanner corpus is read in place from ${dirname(manifest)} (shared/corpus beside the checkout), ` +
        'and it is not there: run the tests from a checkout that has shared/ next to it.',
    );
  }
  const dir = mkdtempSync(join(tmpdir(), 'scanhub-template-'));
  const file = join(dir, 'template.tar');
  const url = process.env.TEST_DATABASE_URL;
  if (url) {
    await ensureTestDatabase(url);
  } else {
    const database = await openDatabase({});
    await migrateToLatest(database.db);
    // The job tables and queues too, so a test file's first job does not create them.
    const secretKey = 'template-secret-key-template-secret-key';
    const silent = { info: () => {}, warn: () => {}, error: () => {} };
    const context = await createAppContext(loadConfig({}), database, secretKey, silent, { work: false });
    await context.jobs.stop();
    const instance = database.pglite?.instance as PGlite;
    const dump = await instance.dumpDataDir('none');
    writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
    await database.close();
  }
  project.provide('pgliteTemplate', file);
  return () => rmSync(dir, { recursive: true, force: true });
}
