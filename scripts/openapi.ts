// Writes the server's OpenAPI document (the one `/api/openapi.json` serves) to a file or stdout,
// from an app built over a throwaway in-memory database: `npm run openapi -- [FILE]`.
import { writeFileSync } from 'node:fs';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createAppContext } from '../src/context.ts';
import { migrateToLatest, openDatabase } from '../src/db/database.ts';

const silent = { info: () => {}, warn: () => {}, error: () => {} };
const database = await openDatabase({});
await migrateToLatest(database.db);
const config = loadConfig({ LOG_LEVEL: 'silent' });
const context = await createAppContext(config, database, 'openapi-document-only-key-0123456789ab', silent, {
  work: false,
});
const app = await buildApp(context, { logger: false });
await app.ready();
const document = `${JSON.stringify(app.swagger(), null, 2)}\n`;
await app.close();
await context.jobs.stop();
await database.close();
const target = process.argv[2];
if (target) writeFileSync(target, document);
else process.stdout.write(document);
