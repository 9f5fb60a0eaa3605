// Builds the PGlite data-dir template a first start loads (see src/db/pglite-template.ts): an
// in-memory cluster with every migration, the scanner types and the job tables, dumped to dist/.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { loadConfig } from '../src/config.ts';
import { createAppContext } from '../src/context.ts';
import { migrateToLatest, openDatabase } from '../src/db/database.ts';
import { TEMPLATE_FILE, writeTemplate } from '../src/db/pglite-template.ts';
import { PARSERS } from '../src/ingest/parsers/index.ts';
import { syncScannerTypes } from '../src/modules/scanner-types/scanner-types.service.ts';

const started = performance.now();
const database = await openDatabase({});
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
mkdirSync(dirname(TEMPLATE_FILE), { recursive: true });
await writeTemplate(database.pglite?.instance as PGlite, applied);
await database.close();
console.log(
  `PGlite template with ${applied.length} migrations: ${TEMPLATE_FILE} (${Math.round(performance.now() - started)} ms)`,
);
