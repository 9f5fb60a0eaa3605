import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { onCleanup } from './cleanup.ts';

export type Engine = 'postgres' | 'pglite';

export const ENGINES: readonly Engine[] = ['postgres', 'pglite'];

/** Where one scanhub server keeps its data: a PostgreSQL database of its own, or a PGlite data dir. */
export interface BenchTarget {
  engine: Engine;
  /** DATA_DIR of the server (PGlite database in `<dataDir>/pg`, upload spool, secret key). */
  dataDir: string;
  /** PostgreSQL only: the bench database, created for this target and dropped afterwards. */
  databaseUrl: string | undefined;
  dispose(): Promise<void>;
}

export const DEFAULT_BENCH_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

/** The server to create bench databases on (its own database is only used to create and drop). */
export function adminDatabaseUrl(): string {
  return process.env['BENCH_DATABASE_URL'] || DEFAULT_BENCH_DATABASE_URL;
}

/** A database URL fit to print: any password replaced. */
export function redactUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return '(invalid URL)';
  }
}

let databaseCounter = 0;
let runDir: string | undefined;

/** One temp dir per bench run holding every target's data dir; removed at the end. */
async function benchRunDir(): Promise<string> {
  if (runDir) return runDir;
  const dir = await mkdtemp(join(tmpdir(), `scanhub-bench-${process.pid}-`));
  runDir = dir;
  onCleanup(`remove ${dir}`, () => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A fresh directory under the run's temp dir. */
export async function freshDir(label: string): Promise<string> {
  return mkdtemp(join(await benchRunDir(), `${label}-`));
}

async function withAdminClient<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminDatabaseUrl() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Bench databases are always named scanhub_bench_<pid>_<n>: never `test`, never someone else's. */
function benchDatabaseName(): string {
  databaseCounter++;
  return `scanhub_bench_${process.pid}_${databaseCounter}`;
}

async function dropDatabase(name: string): Promise<void> {
  if (!/^scanhub_bench_\d+_\d+$/.test(name)) throw new Error(`refusing to drop ${name}`);
  await withAdminClient((client) => client.query(`drop database if exists ${name} with (force)`));
}

async function postgresTarget(label: string): Promise<BenchTarget> {
  const name = benchDatabaseName();
  await withAdminClient((client) => client.query(`create database ${name}`));
  const url = new URL(adminDatabaseUrl());
  url.pathname = `/${name}`;
  const dataDir = await freshDir(label);
  const drop = onCleanup(`drop database ${name}`, () => dropDatabase(name));
  return {
    engine: 'postgres',
    dataDir,
    databaseUrl: url.toString(),
    dispose: async () => {
      await drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A PGlite data dir, copied from `template` when given (a data dir a server already initialised and
 * migrated: creating a cluster costs seconds and ≈ 800 MB of RSS, which is not what is measured).
 */
async function pgliteTarget(label: string, template: string | undefined): Promise<BenchTarget> {
  const dataDir = await freshDir(label);
  if (template) {
    await cp(template, dataDir, { recursive: true });
  }
  return {
    engine: 'pglite',
    dataDir,
    databaseUrl: undefined,
    dispose: () => rm(dataDir, { recursive: true, force: true }),
  };
}

/** The kept seeded database of `findings` findings: `--keep-seed` reuses it across runs. */
export function keptSeedDatabaseName(findings: number): string {
  return `scanhub_bench_seed_${findings}`;
}

/**
 * A PostgreSQL database that outlives the run (`--keep-seed`): created when missing, never dropped
 * by the bench (drop it with `drop database scanhub_bench_seed_<N>`). Its data dir is fresh each
 * run; the servers' secret key is the bench's fixed one, so what one run sealed the next can read.
 */
export async function keptPostgresTarget(
  name: string,
  label: string,
): Promise<{ target: BenchTarget; created: boolean }> {
  if (!/^scanhub_bench_seed_(metrics_)?\d+$/.test(name)) throw new Error(`refusing to keep ${name}`);
  const created = await withAdminClient(async (client) => {
    const found = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount) return false;
    await client.query(`create database ${name}`);
    return true;
  });
  const url = new URL(adminDatabaseUrl());
  url.pathname = `/${name}`;
  const dataDir = await freshDir(label);
  return {
    created,
    target: {
      engine: 'postgres',
      dataDir,
      databaseUrl: url.toString(),
      dispose: () => rm(dataDir, { recursive: true, force: true }),
    },
  };
}

export async function createTarget(
  engine: Engine,
  label: string,
  pgliteTemplate?: string,
): Promise<BenchTarget> {
  return engine === 'postgres' ? postgresTarget(label) : pgliteTarget(label, pgliteTemplate);
}

/** Fails early, with the URL, when the PostgreSQL server cannot be reached. */
export async function checkPostgres(): Promise<string | null> {
  try {
    await withAdminClient((client) => client.query('select 1'));
    return null;
  } catch (error) {
    return `${redactUrl(adminDatabaseUrl())}: ${error instanceof Error ? error.message : String(error)}`;
  }
}
