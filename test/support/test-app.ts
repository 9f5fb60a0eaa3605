import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import diagnostics from 'node:diagnostics_channel';
import type { FastifyInstance, RouteOptions } from 'fastify';
import pg from 'pg';
import { inject } from 'vitest';
import { buildApp } from '../../src/app.ts';
import type { App, AppContext } from '../../src/app-context.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { createAppContext } from '../../src/context.ts';
import { migrateToLatest, openDatabase, type Database } from '../../src/db/database.ts';
import { PARSERS } from '../../src/ingest/parse/parsers/index.ts';
import { stopStagingThread } from '../../src/ingest/stage-in-worker.ts';
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
  await migrateToLatest(database.db, schema);
  return {
    database,
    drop: async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`drop schema ${schema} cascade`);
      await client.query(`drop schema if exists ${schema}_jobs cascade`);
      await client.end();
    },
  };
}

export interface TestAppOptions {
  /**
   * Called for every route the app registers, plugins' included: the hook is attached through
   * Fastify's `fastify.initialization` diagnostics channel, before anything is registered.
   */
  onRoute?: (route: RouteOptions) => void;
  /** Turns the server's logger on (at the config's `logLevel`) and writes its lines here. */
  logStream?: { write(line: string): void };
  /**
   * Job workers wait for `jobs.startWorkers()`: a test can look at what a request queued before
   * any worker could take it.
   */
  deferWorkers?: boolean;
  /**
   * Cron schedules send their jobs: off unless asked for. A test must not depend on the hour it
   * runs at: a tracker reconciliation at a ten-minute mark added a GET to the exact requests a
   * test expected, and the hourly maintenance (vacuum) or the daily re-score (risk by age) would
   * change what others measure. Tests run those jobs themselves.
   */
  clock?: boolean;
}

/** Builds the app; with `onRoute`, hooks the instance the moment Fastify creates it. */
async function buildObservedApp(context: AppContext, options: TestAppOptions): Promise<App> {
  const { onRoute, logStream } = options;
  const logging = logStream ? { logStream } : { logger: false };
  if (!onRoute) return buildApp(context, logging);
  const channel = diagnostics.channel('fastify.initialization');
  const attach = (message: unknown): void => {
    channel.unsubscribe(attach); // only the first instance created: ours
    (message as { fastify: FastifyInstance }).fastify.addHook('onRoute', onRoute);
  };
  channel.subscribe(attach);
  try {
    return await buildApp(context, logging);
  } finally {
    channel.unsubscribe(attach);
  }
}

const silentLog = { info: () => {}, warn: () => {}, error: () => {} };

export async function createTestApp(
  overrides: Partial<Config> = {},
  options: TestAppOptions = {},
): Promise<TestApp> {
  const { database, drop } = await openTestDatabase();
  await syncScannerTypes(database.db, PARSERS);
  const base = loadConfig({
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '100000',
    LOGIN_RATE_LIMIT_PER_MINUTE: '1000',
    LOGIN_ADDRESS_LIMIT_PER_MINUTE: '100000',
    LOGIN_ACCOUNT_LIMIT_PER_HOUR: '100000',
  });
  const dataDir = mkdtempSync(join(tmpdir(), 'scanhub-test-'));
  const config: Config = { ...base, dataDir, ...overrides };
  const secretKey = 'test-secret-key-test-secret-key-0123456789';
  // The production wiring with test config: job workers run in this process, as in the server.
  const context: AppContext = await createAppContext(config, database, secretKey, silentLog, {
    work: true,
    deferWorkers: options.deferWorkers ?? false,
    clock: options.clock ?? false,
  });
  if (options.deferWorkers) context.startup.complete = true; // the server's start is done; only the workers wait
  const app = await buildObservedApp(context, options);
  await app.ready();
  return {
    ...context,
    app,
    close: async () => {
      await app.close();
      await context.jobs.stop();
      await stopStagingThread();
      await database.close();
      await drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Makes `t`'s app listen on a free loopback port (for child processes: the CLI) and returns its URL. */
export async function listenOnLoopback(t: TestApp): Promise<string> {
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const address = t.app.server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
}
