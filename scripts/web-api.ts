// Regenerates web/src/api/schema.d.ts (the web UI's typed API) from the server's OpenAPI document,
// built over a throwaway in-memory database: `npm run web:api`.
import { writeFileSync } from 'node:fs';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createAppContext } from '../src/context.ts';
import { migrateToLatest, openDatabase } from '../src/db/database.ts';
import { WEB_API_TYPES, webApiTypes } from './web-api-types.ts';

const silent = { info: () => {}, warn: () => {}, error: () => {} };
const database = await openDatabase({});
await migrateToLatest(database.db);
const config = loadConfig({ LOG_LEVEL: 'silent' });
const context = await createAppContext(config, database, 'openapi-document-only-key-0123456789ab', silent, {
  work: false,
});
const app = await buildApp(context, { logger: false });
await app.ready();
const types = await webApiTypes(app.swagger());
await app.close();
await context.jobs.stop();
await database.close();
writeFileSync(WEB_API_TYPES, types);
console.log(`wrote ${WEB_API_TYPES.pathname}`);
