import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { buildApp } from '../../src/app.ts';
import type { App, AppContext } from '../../src/app-context.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { migrateToLatest, openDatabase, type Database } from '../../src/db/database.ts';
import { PARSERS } from '../../src/ingest/parsers/index.ts';
import { SecretBox } from '../../src/lib/secrets.ts';
import { syncScannerTypes } from '../../src/modules/scanner-types/scanner-types.service.ts';

export interface TestApp extends AppContext {
  app: App;
  close(): Promise<void>;
}

/**
 * A fresh database for one test file: PGlite in memory by default; with TEST_DATABASE_URL a
 * PostgreSQL schema of its own, dropped at close.
 */
async function openTestDatabase(): Promise<{ database: Database; drop: () => Promise<void> }> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) {
    const template = readFileSync(inject('pgliteTemplate'));
    const database = await openDatabase({ loadDataDir: new Blob([template]) });
    await migrateToLatest(database.db);
    return { database, drop: async () => {} };
  }
  const schema = `scanhub_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const database = await openDatabase({ url, schema });
  await migrateToLatest(database.db);
  return {
    database,
    drop: async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`drop schema ${schema} cascade`);
      await client.end();
    },
  };
}

export async function createTestApp(overrides: Partial<Config> = {}): Promise<TestApp> {
  const { database, drop } = await openTestDatabase();
  await syncScannerTypes(database.db, PARSERS);
  const base = loadConfig({
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '100000',
    LOGIN_RATE_LIMIT_PER_MINUTE: '1000',
  });
  const config: Config = { ...base, dataDir: '/nonexistent-test-data-dir', ...overrides };
  const secretKey = 'test-secret-key-test-secret-key-0123456789';
  const context: AppContext = {
    config,
    database,
    db: database.db,
    secretKey,
    secrets: new SecretBox(secretKey),
  };
  const app = await buildApp(context, { logger: false });
  await app.ready();
  return {
    ...context,
    app,
    close: async () => {
      await app.close();
      await database.close();
      await drop();
    },
  };
}
