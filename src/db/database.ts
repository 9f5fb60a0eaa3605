import { PGlite, types as pgliteTypes } from '@electric-sql/pglite';
import {
  Kysely,
  Migrator,
  PostgresDialect,
  sql,
  type PostgresPool,
  type PostgresPoolClient,
  type Transaction,
} from 'kysely';
import pg from 'pg';
import { from as copyFromStdin } from 'pg-copy-streams';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { COPY_BINARY_HEADER, COPY_BINARY_TRAILER } from './copy-binary.ts';
import { ownArrayBuffer } from '../lib/bytes.ts';
import { timestamptzParser } from '../lib/timestamps.ts';
import { pgliteChangeNotices, postgresChangeNotices, type ChangeNotices } from './change-notices.ts';
import { migrations } from './migrations/index.ts';
import { asBackgroundWork, PGliteDialect, SessionLock } from './pglite-dialect.ts';
import { withSearchPathIntrospector } from './search-path-introspector.ts';
import { maintainPglite, type MaintainedTable } from './pglite-maintenance.ts';
import type { DB } from './schema.ts';

export type DatabaseKind = 'pglite' | 'postgres';

export interface Database {
  db: Kysely<DB>;
  kind: DatabaseKind;
  /** Schema of the job tables (pg-boss): `pgboss`, or beside a test's own schema. */
  jobSchema: string;
  /** The PGlite instance and its session lock, for other users of the same session (jobs). */
  pglite?: { instance: PGlite; lock: SessionLock };
  /** The PostgreSQL pool (for its statistics); absent on PGlite. */
  pool?: pg.Pool;
  /**
   * PGlite has no autovacuum: VACUUM ANALYZE `tables`, or every table (pglite-maintenance.ts). A
   * no-op on PostgreSQL.
   */
  maintain(tables?: readonly MaintainedTable[]): Promise<void>;
  /**
   * Appends `rows` (binary COPY rows, without header or trailer: copy-binary.ts) to `table` with
   * COPY, outside any transaction: PostgreSQL reads them FROM STDIN, PGlite from a blob. COPY parses
   * rows in the server with no per-row statement or JSON expansion, the cheapest way in for bulk rows
   * on both engines.
   */
  copyFrom(table: CopyTable, columns: readonly string[], rows: Buffer): Promise<void>;
  /**
   * PostgreSQL: runs `work` in a transaction on one connection, whose `copy` appends COPY rows in
   * that same transaction (seen by it alone until it commits, gone if it rolls back). Absent on
   * PGlite, whose one session is every transaction's.
   */
  copyTransaction?: <T>(work: (trx: Transaction<DB>, copy: CopyInto) => Promise<T>) => Promise<T>;
  /**
   * Notices from any process that API keys or users changed (what the API key cache drops on), jobs
   * were sent (what wakes the workers) or events committed (what wakes the outbox watch).
   */
  changeNotices: ChangeNotices;
  close(): Promise<void>;
}

/**
 * Tables filled by COPY (their names are spliced into the statement, so they are a closed set):
 * `upload_rows` is a transaction's own staging table (landing/postgres-one-transaction.ts); `findings` takes a
 * version's first upload's certain firsts (first-upload.ts).
 */
export type CopyTable = 'ingest_staging' | 'upload_rows' | 'findings';

/** Appends binary COPY rows (copy-binary.ts, without header or trailer) to a table. */
export type CopyInto = (table: CopyTable, columns: readonly string[], rows: Buffer) => Promise<void>;

const copyStatement = (table: CopyTable, columns: readonly string[], source: string): string =>
  `copy ${table} (${columns.map((column) => `"${column.replace(/"/g, '""')}"`).join(', ')}) from ${source} with (format binary)`;

/** The whole COPY data of `rows`: its header, the rows, its trailer. */
const copyData = (rows: Buffer): Buffer[] => [COPY_BINARY_HEADER, rows, COPY_BINARY_TRAILER];

export interface DatabaseOptions {
  /** `postgres://…` to use a PostgreSQL server; otherwise PGlite. */
  url?: string | undefined;
  /** PGlite data directory; `undefined` keeps the database in memory. */
  dataDir?: string | undefined;
  /** PostgreSQL schema to work in (tests give each run its own). */
  schema?: string | undefined;
  /** A PGlite data dir dump to start from (tests use a migrated template). */
  loadDataDir?: Blob | undefined;
  /** PGlite's `shared_buffers` (`64MB`); PGlite's own default when absent. */
  sharedBuffers?: string | undefined;
}

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

const copyOn =
  (client: pg.PoolClient): CopyInto =>
  async (table, columns, rows) => {
    await pipeline(
      Readable.from(copyData(rows)),
      client.query(copyFromStdin(copyStatement(table, columns, 'stdin'))),
    );
  };

/** A pool of one connection, which stays checked out: Kysely's release and end leave it be. */
const oneClientPool = (client: pg.PoolClient): PostgresPool => ({
  connect: async () => ({
    query: client.query.bind(client) as PostgresPoolClient['query'],
    release: () => undefined,
  }),
  end: async () => undefined,
});

const INT8_OID = 20;
const TIMESTAMPTZ_OID = 1184;
const pgTimestamptz = timestamptzParser(pg.types.getTypeParser(TIMESTAMPTZ_OID, 'text'));

async function postgresDatabase(url: string, schema: string | undefined): Promise<Database> {
  const connection: pg.ClientConfig = {
    connectionString: url,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  };
  const pool = new pg.Pool({
    ...connection,
    max: 10,
    // Counts and bigint ids fit in a double; one number type in both engines keeps code dialect-free.
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID
          ? (value: string) => Number(value)
          : oid === TIMESTAMPTZ_OID && format !== 'binary'
            ? pgTimestamptz
            : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  // JIT off for scanhub's sessions: its statements are interactive (≤ 150 ms) or batched jobs, and at
  // 10M findings the planner's estimates pass jit_above_cost for statements that read a few hundred
  // rows — the dashboard spent 265 of its 280 ms compiling (docs/scaling.md, "JIT"). Set per
  // connection (not the `options` startup parameter, which PgBouncer refuses); the query is queued
  // before any other on the new connection.
  pool.on('connect', (client) => {
    client.query('set jit = off').catch(() => undefined);
  });
  const db = new Kysely<DB>({ dialect: withSearchPathIntrospector(new PostgresDialect({ pool })) });
  const changeNotices = await postgresChangeNotices(pool, connection, schema);
  return {
    db,
    kind: 'postgres',
    jobSchema: schema ? `${schema}_jobs` : 'pgboss',
    pool,
    maintain: async () => {},
    copyFrom: async (table, columns, rows) => {
      const client = await pool.connect();
      try {
        await copyOn(client)(table, columns, rows);
      } catch (error) {
        // A connection whose COPY broke off mid-stream is not reused.
        client.release(asError(error));
        throw error;
      }
      client.release();
    },
    copyTransaction: async (work) => {
      const client = await pool.connect();
      try {
        // A Kysely over this one connection: its transaction and the COPY share the session.
        const session = new Kysely<DB>({ dialect: new PostgresDialect({ pool: oneClientPool(client) }) });
        const result = await session.transaction().execute((trx) => work(trx, copyOn(client)));
        client.release();
        return result;
      } catch (error) {
        // Whatever failed (a COPY broken off, a statement, the rollback), the connection goes.
        client.release(asError(error));
        throw error;
      }
    },
    changeNotices,
    close: async () => {
      await changeNotices.close();
      await db.destroy();
    },
  };
}

/**
 * The bytes as PGlite's `/dev/blob` reads them: PGlite only asks a blob for its `arrayBuffer()`
 * (and drops it after the statement). A real Blob copies the rows once on creation and again into
 * that ArrayBuffer; on a 100k upload those 200 MB of short-lived copies outlived their statements
 * until a full collection and left the process ~100 MB larger. Chunks from the staging worker own
 * their ArrayBuffer and go as they are; the server thread's are views of a buffer it reuses
 * (stage.ts `copySink`), copied once here, since PGlite reads the whole ArrayBuffer.
 */
function blobOver(rows: Buffer): Blob {
  const bytes = ownArrayBuffer(rows);
  return { arrayBuffer: async () => bytes, size: bytes.byteLength } as unknown as Blob;
}

/**
 * Bytes of PGlite's WebAssembly memory: the whole embedded database (shared buffers, sorts, hashes,
 * caches), which grows to its peak and never shrinks. PGlite keeps its Emscripten module in a
 * protected field and offers no public size, hence the cast.
 */
export function pgliteMemoryBytes(instance: PGlite): number {
  const module = (instance as unknown as { mod?: { HEAPU8?: Uint8Array } }).mod;
  return module?.HEAPU8?.byteLength ?? 0;
}

const pgliteTimestamptz = timestamptzParser(
  (text: string) => pgliteTypes.parsers[TIMESTAMPTZ_OID]?.(text, TIMESTAMPTZ_OID) as unknown,
);

async function pgliteDatabase(options: DatabaseOptions): Promise<Database> {
  const instance = await PGlite.create({
    parsers: { [TIMESTAMPTZ_OID]: pgliteTimestamptz },
    ...(options.sharedBuffers ? { postgresqlconf: [`shared_buffers = ${options.sharedBuffers}`] } : {}),
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
  });
  const lock = new SessionLock();
  const db = new Kysely<DB>({ dialect: withSearchPathIntrospector(new PGliteDialect(instance, lock)) });
  // Nothing else uses the session yet: LISTEN needs no turn of the lock.
  const changeNotices = await pgliteChangeNotices(instance);
  return {
    db,
    kind: 'pglite',
    jobSchema: 'pgboss',
    pglite: { instance, lock },
    maintain: (tables) => maintainPglite(db, tables),
    copyFrom: async (table, columns, rows) => {
      const blob = blobOver(Buffer.concat(copyData(rows)));
      await lock.run(() => instance.query(copyStatement(table, columns, `'/dev/blob'`), [], { blob }));
    },
    changeNotices,
    close: async () => {
      await db.destroy();
      // Behind whatever background work already waits for the session (pg-boss completing a job
      // as it stops): as a request, the close went first, and those statements then failed on a
      // closed database where pg-boss does not catch them.
      await asBackgroundWork(() =>
        lock.run(async () => {
          await changeNotices.close();
          await instance.close();
        }),
      );
    },
  };
}

/** Opens the database named by the options (nothing is migrated yet). */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.url) return postgresDatabase(options.url, options.schema);
  return pgliteDatabase(options);
}

/**
 * Whether the database has applied exactly the migrations this build knows. One indexed read, where
 * Kysely's Migrator first introspects every table and column of the database to find its own two
 * tables (~0.3–0.5 s on PGlite at each start, for nothing when no migration is pending).
 */
async function upToDate(db: Kysely<DB>, schema: string | undefined): Promise<boolean> {
  let appliedNames: string[];
  try {
    const table = sql.table(schema ? `${schema}.kysely_migration` : 'kysely_migration');
    const applied = await sql<{ name: string }>`select name from ${table}`.execute(db);
    appliedNames = applied.rows.map((row) => row.name);
  } catch {
    return false; // no migration table yet: a new database, which the Migrator sets up
  }
  const known = Object.keys(migrations);
  // Anything else (pending, or applied but unknown to this build) goes through the Migrator, which
  // applies the first and refuses the second, as before.
  return appliedNames.length === known.length && known.every((name) => appliedNames.includes(name));
}

/** Applies every pending migration; throws with the failing migration's name. */
export async function migrateToLatest(db: Kysely<DB>, schema?: string): Promise<string[]> {
  if (await upToDate(db, schema)) return [];
  // Kysely finds its bookkeeping tables by schema name, not search_path: name the schema when not public.
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((result) => result.status === 'Error');
  if (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new Error(`Migration ${failed?.migrationName ?? ''} failed: ${detail}`);
  }
  return (results ?? [])
    .filter((result) => result.status === 'Success')
    .map((result) => result.migrationName);
}

/** Migrations this build knows that the database has not applied (readiness: a server must not serve an old schema). */
export async function pendingMigrations(db: Kysely<DB>): Promise<string[]> {
  const applied = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
  const done = new Set(applied.rows.map((row) => row.name));
  return Object.keys(migrations).filter((name) => !done.has(name));
}
