import type { PGlite } from '@electric-sql/pglite';
import { writeFileSync, rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { migrateToLatest, openDatabase } from '../../src/db/database.ts';

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
  const dir = mkdtempSync(join(tmpdir(), 'scanhub-template-'));
  const file = join(dir, 'template.tar');
  if (!process.env.TEST_DATABASE_URL) {
    const database = await openDatabase({});
    await migrateToLatest(database.db);
    const instance = database.pglite?.instance as PGlite;
    const dump = await instance.dumpDataDir('none');
    writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
    await database.close();
  }
  project.provide('pgliteTemplate', file);
  return () => rmSync(dir, { recursive: true, force: true });
}
