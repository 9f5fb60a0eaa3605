import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupAll } from '../../bench/cleanup.ts';
import { sarifFile } from '../../bench/generate-sarif.ts';
import { uploadMultipart } from '../../bench/http.ts';
import {
  ADMIN,
  createApplication,
  createGroup,
  signIn,
  startServer,
  type BenchApplication,
  type BenchServer,
} from '../../bench/server.ts';
import { createTarget, type BenchTarget } from '../../bench/targets.ts';
import { openDatabase } from '../../src/db/database.ts';
import { DEFAULT_VERSION_NAME } from '../../src/modules/versions/versions.repository.ts';

/**
 * kill -9 of the real server (a child process) in the middle of a 100k-result ingest, then a
 * restart: nothing of the interrupted upload may survive — no spool file, no staging row, no scan;
 * what an earlier upload wrote stays.
 * PGlite by default; with TEST_DATABASE_URL the bench's own scratch PostgreSQL database.
 */
const engine = process.env.TEST_DATABASE_URL ? 'postgres' : 'pglite';

afterAll(() => cleanupAll());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function spoolFiles(dataDir: string): { path: string; size: number }[] {
  try {
    return readdirSync(join(dataDir, 'uploads'), { recursive: true })
      .map((name) => join(dataDir, 'uploads', String(name)))
      .filter((path) => statSync(path).isFile())
      .map((path) => ({ path, size: statSync(path).size }));
  } catch {
    return [];
  }
}

/** Runs one query with the server stopped (PGlite allows one process) or beside it (PostgreSQL). */
async function queryRows<Row>(target: BenchTarget, query: string): Promise<Row[]> {
  if (target.databaseUrl) {
    const client = new pg.Client({ connectionString: target.databaseUrl });
    await client.connect();
    try {
      return (await client.query(query)).rows;
    } finally {
      await client.end();
    }
  }
  const database = await openDatabase({ dataDir: join(target.dataDir, 'pg') });
  try {
    return (await database.pglite!.instance.query<Row>(query)).rows;
  } finally {
    await database.close();
  }
}

async function countRows(target: BenchTarget): Promise<{ staging: number; scans: number; findings: number }> {
  const [counts] = await queryRows<{ staging: number; scans: number; findings: number }>(
    target,
    `select (select count(*) from ingest_staging)::int as staging,
      (select count(*) from scans)::int as scans, (select count(*) from findings)::int as findings`,
  );
  return counts!;
}

const versionNames = async (target: BenchTarget): Promise<string[]> =>
  (await queryRows<{ name: string }>(target, 'select name from application_versions order by name')).map(
    (row) => row.name,
  );

/**
 * Sends `sarif` with `fields`, waits until the whole file is spooled and the parse has had 3 s to
 * stage (and, into a new version on PGlite, insert) some batches, then kills the server with -9.
 */
async function killMidUpload(
  server: BenchServer,
  target: BenchTarget,
  application: BenchApplication,
  fields: Record<string, string>,
  sarif: string,
): Promise<void> {
  const sarifSize = statSync(sarif).size;
  const interrupted = uploadMultipart(
    `${server.url}/api/ingest`,
    { 'x-api-token': application.token },
    fields,
    sarif,
  ).catch((error: unknown) => error);
  const deadline = Date.now() + 120_000;
  while (!spoolFiles(target.dataDir).some((file) => file.size >= sarifSize)) {
    if (Date.now() > deadline) throw new Error('the upload never finished spooling');
    await sleep(100);
  }
  await sleep(3_000);
  process.kill(server.pid, 'SIGKILL');
  expect(await interrupted).toBeInstanceOf(Error); // the connection died with the server
  await server.stop();
}

/** Starts the server again and waits until its start has removed the leftovers. */
async function restarted(target: BenchTarget): Promise<BenchServer> {
  const server = await startServer(target, { logLevel: 'warn' });
  // Leftovers are removed in the start's last steps, after the server listens: ready says done.
  await expect.poll(async () => (await fetch(`${server.url}/readyz`)).status, { timeout: 30_000 }).toBe(200);
  return server;
}

/** Takes the version's merge lock (src/ingest/merge/upload-scan.ts MERGE_LOCK_SPACE) on a connection of its own. */
async function holdMergeLock(databaseUrl: string, application: BenchApplication): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query('select pg_advisory_lock($1, $2)', [0x5ca4, application.defaultVersionId]);
  return client;
}

describe(`crash during ingestion (${engine})`, () => {
  it('kill -9 mid-ingest, restart: no orphan spool files, no staging rows, no half scan', async () => {
    const sarif = await sarifFile({ count: 100_000 });
    const target = await createTarget(engine, 'crash');
    let server: BenchServer = await startServer(target, { logLevel: 'warn' });
    const api = await signIn(server.url, ADMIN.email, ADMIN.password);
    const application = await createApplication(api, await createGroup(api, 'crash'), 'crash-app');
    // The version has findings before the big upload. On PostgreSQL a large upload stages inside
    // its merge transaction (upload-in-transaction.ts), and a crash leaves nothing to clean up; with
    // the version's merge lock held elsewhere it stages in the shared table (committed chunk by
    // chunk) and waits to merge, the path whose leftovers the restart must remove.
    const earlier = await uploadMultipart(
      `${server.url}/api/ingest`,
      { 'x-api-token': application.token },
      {},
      await sarifFile({ count: 20, seed: 7 }),
    );
    expect(earlier.status).toBe(201);
    const kept = {
      scans: 1,
      findings: (JSON.parse(earlier.text) as { new_findings_count: number }).new_findings_count,
    };

    const lockHolder = target.databaseUrl ? await holdMergeLock(target.databaseUrl, application) : undefined;
    await killMidUpload(server, target, application, {}, sarif);
    await lockHolder?.end();

    // The crash left something behind, or this test would prove nothing.
    expect(spoolFiles(target.dataDir)).not.toEqual([]);
    const left = await countRows(target);
    // PGlite's own crash recovery empties the unlogged staging table; a PostgreSQL server outlives
    // the killed process, and the staged rows with it.
    if (target.databaseUrl) expect(left.staging).toBeGreaterThan(0);
    // PGlite's merge opens the scan in a short transaction of its own (chunked-merge.ts): killed in
    // the merge, its `processing` scan is left for the restart to remove. PostgreSQL's is one
    // transaction, so nothing of it is there.
    if (target.databaseUrl) expect(left.scans).toBe(kept.scans);
    else expect([kept.scans, kept.scans + 1]).toContain(left.scans);

    server = await restarted(target);
    if (!target.databaseUrl) await server.stop();
    expect(spoolFiles(target.dataDir)).toEqual([]);
    expect(await countRows(target)).toEqual({ staging: 0, ...kept });
    await server.stop();
    await target.dispose();
  }, 600_000);

  it('kill -9 mid-way through the first upload into a new version, restart: the version is gone too', async () => {
    const target = await createTarget(engine, 'crash-version');
    const server = await startServer(target, { logLevel: 'warn' });
    const api = await signIn(server.url, ADMIN.email, ADMIN.password);
    const application = await createApplication(api, await createGroup(api, 'crash'), 'crash-version');
    await killMidUpload(
      server,
      target,
      application,
      { version: 'never-finished' },
      await sarifFile({ count: 100_000 }),
    );

    // PGlite opens the scan, creating the version, in a transaction of its own and inserts findings
    // while it parses (chunked-first-upload.ts): the crash leaves them, for the restart to remove.
    // PostgreSQL's upload is one transaction: nothing of it is there.
    const left = await versionNames(target);
    if (target.databaseUrl) expect(left).toEqual([DEFAULT_VERSION_NAME]);
    else expect(left).toEqual([DEFAULT_VERSION_NAME, 'never-finished']);

    const again = await restarted(target);
    await again.stop();
    expect(await versionNames(target)).toEqual([DEFAULT_VERSION_NAME]);
    expect(await countRows(target)).toEqual({ staging: 0, scans: 0, findings: 0 });
    await target.dispose();
  }, 600_000);
});
