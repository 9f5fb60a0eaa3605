import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect, type LogEvent } from 'kysely';
import pg from 'pg';
import { loadConfig } from '../src/config.ts';
import type { DB } from '../src/db/schema.ts';
import { PGliteDialect, SessionLock } from '../src/db/pglite-dialect.ts';
import type { CopyType, CopyValue } from '../src/db/copy-binary.ts';
import { copyChunks, copyFromStdin } from './copy.ts';
import type { Engine } from './targets.ts';

/** A statement as Kysely compiled it (what the server sends to the database), and when it ran. */
export interface CapturedQuery {
  sql: string;
  parameters: readonly unknown[];
  /** performance.now() at start and end: tells which statements the code sent concurrently. */
  startedAt: number;
  endedAt: number;
}

/**
 * Direct access to a bench database from the bench process: raw SQL, COPY, and a Kysely instance
 * whose compiled statements can be captured (to replay the exact SQL a route runs).
 */
export interface SqlExecutor {
  engine: Engine;
  query<R = Record<string, unknown>>(text: string, parameters?: readonly unknown[]): Promise<R[]>;
  /** Parameter-less, possibly multi-statement SQL. */
  exec(text: string): Promise<void>;
  /** Binary COPY FROM STDIN (PostgreSQL) or from a blob (PGlite) into `table`; `types` per column. */
  copy(
    table: string,
    columns: readonly string[],
    types: readonly CopyType[],
    rows: readonly (readonly CopyValue[])[],
  ): Promise<void>;
  /** A Kysely over this database that reports every compiled statement to `onQuery`. */
  kysely(onQuery: (query: CapturedQuery) => void): Kysely<DB>;
  close(): Promise<void>;
}

const quoteIdent = (name: string): string => `"${name.replaceAll('"', '""')}"`;
const copySql = (table: string, columns: readonly string[], source: string) =>
  `copy ${quoteIdent(table)} (${columns.map(quoteIdent).join(', ')}) from ${source} with (format binary)`;

function logger(onQuery: (query: CapturedQuery) => void) {
  return (event: LogEvent) => {
    if (event.level !== 'query') return;
    const endedAt = performance.now();
    onQuery({
      sql: event.query.sql,
      parameters: event.query.parameters,
      startedAt: endedAt - event.queryDurationMillis,
      endedAt,
    });
  };
}

export function postgresExecutor(url: string, poolSize = 10): SqlExecutor {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  return {
    engine: 'postgres',
    query: async <R>(text: string, parameters: readonly unknown[] = []) =>
      (await pool.query(text, [...parameters])).rows as R[],
    exec: async (text) => {
      await pool.query(text);
    },
    copy: async (table, columns, types, rows) => {
      const client = await pool.connect();
      try {
        await copyFromStdin(client, copySql(table, columns, 'stdin'), types, rows);
      } finally {
        client.release();
      }
    },
    // Not destroyed on its own: destroying would end the shared pool, which close() does.
    kysely: (onQuery) => new Kysely<DB>({ dialect: new PostgresDialect({ pool }), log: logger(onQuery) }),
    close: () => pool.end(),
  };
}

/**
 * The `shared_buffers` the server under test gives its PGlite: its own config, read from the
 * environment the bench passes on to it. PGlite's default is four times as large (128MB against
 * 32MB): a limit measured with it was the same SQL on a database with a larger cache.
 */
export function serverSharedBuffers(env: NodeJS.ProcessEnv = process.env): string {
  const setting = env.PGLITE_SHARED_BUFFERS;
  return loadConfig(setting === undefined ? {} : { PGLITE_SHARED_BUFFERS: setting }).pgliteSharedBuffers;
}

/**
 * PGlite opened in this process on a server's data dir, configured as the server configures it.
 * PGlite is one session and one process per data dir: only open it while no server runs on that dir.
 */
export async function pgliteExecutor(pgDataDir: string | undefined): Promise<SqlExecutor> {
  const instance = await PGlite.create({
    postgresqlconf: [`shared_buffers = ${serverSharedBuffers()}`],
    ...(pgDataDir ? { dataDir: pgDataDir } : {}),
  });
  const lock = new SessionLock();
  return {
    engine: 'pglite',
    query: async <R>(text: string, parameters: readonly unknown[] = []) =>
      lock.run(async () => (await instance.query<R>(text, [...parameters])).rows),
    exec: async (text) => {
      await lock.run(() => instance.exec(text));
    },
    copy: async (table, columns, types, rows) => {
      const blob = new Blob([...copyChunks(types, rows)]);
      await lock.run(() => instance.query(copySql(table, columns, `'/dev/blob'`), [], { blob }));
    },
    kysely: (onQuery) => new Kysely<DB>({ dialect: new PGliteDialect(instance, lock), log: logger(onQuery) }),
    close: () => lock.run(() => instance.close()),
  };
}

/** Runs `work` against a Kysely bound to `executor` and returns the statements it sent, in order. */
export async function captureQueries(
  executor: SqlExecutor,
  work: (db: Kysely<DB>) => Promise<unknown>,
): Promise<CapturedQuery[]> {
  const captured: CapturedQuery[] = [];
  await work(executor.kysely((query) => captured.push(query)));
  return captured;
}
