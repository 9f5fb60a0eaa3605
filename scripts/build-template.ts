// Builds the PGlite data-dir template a first start copies (see src/db/pglite-template.ts): a cluster
// on disk with every migration, the scanner types and the job tables, cleanly shut down, in dist/.
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.ts';
import { createAppContext } from '../src/context.ts';
import { migrateToLatest, openDatabase } from '../src/db/database.ts';
import { TEMPLATE_DIR, writeTemplateManifest } from '../src/db/pglite-template.ts';
import { PARSERS } from '../src/ingest/parse/parsers/index.ts';
import { syncScannerTypes } from '../src/modules/scanner-types/scanner-types.service.ts';

const started = performance.now();
mkdirSync(dirname(TEMPLATE_DIR), { recursive: true });
// Built beside and renamed into place: a build that fails midway leaves the previous template whole.
const building = `${TEMPLATE_DIR}.building`;
rmSync(building, { recursive: true, force: true });
const database = await openDatabase({ dataDir: building });
const applied = await migrateToLatest(database.db);
await syncScannerTypes(database.db, PARSERS);
const silent = { info: () => {}, warn: () => {}, error: () => {} };
const context = await createAppContext(
  loadConfig({ LOG_LEVEL: 'silent' }),
  database,
  'template-build-key-0123456789abcdef',
  silent,
  {
    work: false,
  },
);
await context.jobs.stop();
// A first start copies every file of the template, and creating a file costs ~0.5 ms here (ext4 in a
// VM): template0 and template1 are ~600 of its ~1,240 files. scanhub only ever opens `postgres` and
// never runs CREATE DATABASE (the one thing that reads a template database), so they go.
for (const name of ['template0', 'template1']) {
  await sql`alter database ${sql.id(name)} is_template false`.execute(database.db);
  await sql`drop database ${sql.id(name)}`.execute(database.db);
}
await database.close();
rmSync(TEMPLATE_DIR, { recursive: true, force: true });
renameSync(building, TEMPLATE_DIR);
writeTemplateManifest(TEMPLATE_DIR, applied);
// The archive earlier builds made (loaded with loadDataDir) is no longer read.
rmSync(`${dirname(TEMPLATE_DIR)}/pglite-template.tgz`, { force: true });
rmSync(`${dirname(TEMPLATE_DIR)}/pglite-template.tgz.json`, { force: true });
console.log(
  `PGlite template with ${applied.length} migrations: ${TEMPLATE_DIR} (${Math.round(performance.now() - started)} ms)`,
);
