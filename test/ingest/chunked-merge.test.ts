import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discardOrphans } from '../../src/ingest/orphans.ts';
import { MERGE_CHUNK_ROWS } from '../../src/ingest/landing/pglite-chunked-merge.ts';
import { DEFAULT_VERSION_NAME } from '../../src/modules/versions/versions.repository.ts';
import { makeApplication, makeUser, type TestUser } from '../support/factories.ts';
import { buildSarif, manyResults } from '../support/sarif-builder.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { upload } from '../support/upload.ts';

/**
 * PGlite merges a large upload in short transactions (pipeline.ts `mergeInChunks`) so requests get
 * the one session in between; its new findings must stay out of sight, and out of every total,
 * until the scan completes, and vanish if it fails. PostgreSQL merges in one transaction: the same
 * outcomes hold there.
 */
let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await makeUser(t, { role: 'admin' });
});
afterAll(() => t.close());

const RESULTS = MERGE_CHUNK_ROWS * 3 + 500;

/** Findings of an application by count(*), and as the counts ledger sums them. */
async function counted(applicationId: number): Promise<{ rows: number; ledger: number }> {
  const { rows } = await sql<{ rows: number; ledger: number }>`select
    (select count(*) from findings where application_id = ${applicationId})::integer as rows,
    (select coalesce(sum(findings), 0) from finding_counts where application_id = ${applicationId})::integer
      as ledger`.execute(t.db);
  return rows[0]!;
}

interface Observation {
  scanStatus: string | undefined;
  total: number;
  page: number;
  dashboardTotal: number;
  dashboardNew: number;
  /** Open ones past their due date: the ledger's open count minus the open ones not yet due. */
  overdue: number;
  /** New in version `next` against the default one (GET …/versions/compare). */
  comparedNew: number;
  /** Status of GET /api/findings/{id} for a finding already in the table, if there was one. */
  detailStatus: number | undefined;
}

/** What a user sees of the application, while the upload may still be merging. */
async function observe(applicationId: number): Promise<Observation> {
  const headers = admin.headers;
  const scanStatus = async () =>
    scanList((await t.app.inject({ url: `/api/scans?application_id=${applicationId}`, headers })).json())[0]
      ?.status;
  // Read before and after the rest: an upload that completes in between (its last transaction may
  // take the session between two requests on a loaded machine) makes an observation of neither state.
  const statusBefore = await scanStatus();
  const list = await t.app.inject({ url: `/api/findings?application_id=${applicationId}`, headers });
  const dashboard = await t.app.inject({
    url: `/api/dashboard/stats?application_id=${applicationId}`,
    headers,
  });
  const stored = await t.db
    .selectFrom('findings')
    .select('id')
    .where('application_id', '=', applicationId)
    .limit(1)
    .executeTakeFirst();
  const detail = stored ? await t.app.inject({ url: `/api/findings/${stored.id}`, headers }) : undefined;
  const compared = await t.app.inject({
    url: `/api/applications/${applicationId}/versions/compare?from=${DEFAULT_VERSION_NAME}&to=next`,
    headers,
  });
  const stats = dashboard.json();
  const statusAfter = await scanStatus();
  return {
    scanStatus: statusBefore === statusAfter ? statusAfter : `${statusBefore} → ${statusAfter}`,
    total: list.json().pagination.total,
    page: list.json().findings.length,
    dashboardTotal: stats.totals.findings,
    dashboardNew: stats.new_last_30_days,
    overdue: stats.overdue,
    comparedNew: compared.json().summary.new,
    detailStatus: detail?.statusCode,
  };
}

const scanList = (body: unknown): { status: string }[] =>
  Array.isArray(body) ? body : (body as { items: { status: string }[] }).items;

/** Logs how many findings each delete statement removes, until `stop`. */
async function logDeletesOfFindings(): Promise<{
  logged(): Promise<{ deleted: number }[]>;
  stop(): Promise<void>;
}> {
  await sql`create table deleted_per_statement (deleted integer not null)`.execute(t.db);
  await sql`create function log_deleted() returns trigger language plpgsql as $$
    begin
      insert into deleted_per_statement select count(*) from old_rows;
      return null;
    end $$`.execute(t.db);
  await sql`create trigger log_deleted after delete on findings referencing old table as old_rows
    for each statement execute function log_deleted()`.execute(t.db);
  return {
    logged: async () =>
      (await sql<{ deleted: number }>`select deleted from deleted_per_statement`.execute(t.db)).rows,
    stop: async () => {
      await sql`drop trigger log_deleted on findings`.execute(t.db);
      await sql`drop function log_deleted()`.execute(t.db);
      await sql`drop table deleted_per_statement`.execute(t.db);
    },
  };
}

describe('an upload merged in chunks', () => {
  it('shows none of its findings, in no list, total or detail, until its scan completes', async () => {
    const app = await makeApplication(t, admin);
    const file = buildSarif({ results: manyResults(RESULTS) });
    const created = await t.app.inject({
      method: 'POST',
      url: `/api/applications/${app.id}/versions`,
      headers: admin.headers,
      payload: { name: 'next' },
    });
    expect(created.statusCode).toBe(201);
    let done = false;
    const fields = { version: 'next' };
    const uploaded = upload(t, '/api/ingest', { 'x-api-token': app.api_token }, { file, fields }).finally(
      () => {
        done = true;
      },
    );
    const seen: Observation[] = [];
    while (!done) {
      seen.push(await observe(app.id));
      // Requests arrive over time, as on a socket: in-process PGlite answers as microtasks, so a
      // loop without a pause would never let the upload's turn (a timer) come.
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect((await uploaded).statusCode).toBe(201);

    const midway = seen.filter((o) => o.scanStatus === 'processing');
    if (t.database.kind === 'pglite') {
      // Requests got the session while the merge ran, findings were already in the table, and no
      // request saw any of them.
      expect(midway.length).toBeGreaterThan(0);
      expect(midway.some((o) => o.detailStatus !== undefined)).toBe(true);
    }
    for (const observation of midway) {
      expect(observation).toMatchObject({
        total: 0,
        page: 0,
        dashboardTotal: 0,
        dashboardNew: 0,
        overdue: 0,
        comparedNew: 0,
      });
      expect([undefined, 404]).toContain(observation.detailStatus);
    }
    const after = await observe(app.id);
    expect(after).toMatchObject({
      scanStatus: 'completed',
      total: RESULTS,
      dashboardTotal: RESULTS,
      dashboardNew: RESULTS,
      overdue: 0,
      comparedNew: RESULTS,
    });
    expect(after.detailStatus).toBe(200);
    expect(await counted(app.id)).toEqual({ rows: RESULTS, ledger: RESULTS });
  });

  it('leaves nothing when a chunk fails: no finding, no scan, no count, no staging row', async () => {
    const app = await makeApplication(t, admin);
    // A database fault in the middle of the merge: one finding's insert raises.
    await sql`create function explode_on_insert() returns trigger language plpgsql as $$
      begin
        if exists (select 1 from new_rows where snippet = 'dangerous(call_2345)') then
          raise exception 'disk on fire';
        end if;
        return null;
      end $$`.execute(t.db);
    await sql`create trigger explode after insert on findings referencing new table as new_rows
      for each statement execute function explode_on_insert()`.execute(t.db);
    // How many findings each delete statement removes: the clean-up must not hold the one session
    // for one long delete either.
    const deletes = await logDeletesOfFindings();
    try {
      const file = buildSarif({ results: manyResults(RESULTS) });
      const response = await upload(t, '/api/ingest', { 'x-api-token': app.api_token }, { file });
      expect(response.statusCode).toBe(500);
      const rows = await deletes.logged();
      const deleted = rows.map((row) => row.deleted);
      if (t.database.kind === 'pglite') {
        // The ranges before the failing one went in, more than one range's worth; none came out at once.
        expect(deleted.reduce((sum, count) => sum + count, 0)).toBeGreaterThan(MERGE_CHUNK_ROWS);
        expect(Math.max(...deleted)).toBeLessThanOrEqual(MERGE_CHUNK_ROWS);
      } else {
        // PostgreSQL's one transaction rolled back: nothing was there to delete.
        expect(deleted).toEqual([]);
      }
    } finally {
      await sql`drop trigger explode on findings`.execute(t.db);
      await sql`drop function explode_on_insert()`.execute(t.db);
      await deletes.stop();
    }
    expect(await counted(app.id)).toEqual({ rows: 0, ledger: 0 });
    expect(
      await t.db.selectFrom('scans').select('id').where('application_id', '=', app.id).execute(),
    ).toEqual([]);
    expect(await t.db.selectFrom('ingest_staging').select('upload_key').execute()).toEqual([]);
    expect(await t.db.selectFrom('finding_counts_unpublished').select('scan_id').execute()).toEqual([]);

    // Nothing stays hidden either: the next upload shows all of its findings.
    const retry = await upload(
      t,
      '/api/ingest',
      { 'x-api-token': app.api_token },
      { file: buildSarif({ results: manyResults(10) }) },
    );
    expect(retry.statusCode).toBe(201);
    const list = await t.app.inject({
      url: `/api/findings?application_id=${app.id}`,
      headers: admin.headers,
    });
    expect(list.json().pagination.total).toBe(10);
  });

  it('leaves nothing of a report broken after findings went in, not even the version it created', async () => {
    const app = await makeApplication(t, admin);
    // Whole as JSON (the parser's first pass reads every run), broken in its last result.
    const log = JSON.parse(buildSarif({ results: manyResults(RESULTS) })) as {
      runs: { results: unknown[] }[];
    };
    log.runs[0]!.results.push(42);
    const broken = JSON.stringify(log);
    const deletes = await logDeletesOfFindings();
    try {
      const response = await upload(
        t,
        '/api/ingest',
        { 'x-api-token': app.api_token },
        { file: broken, fields: { version: 'broken-build' } },
      );
      expect(response.statusCode).toBe(400);
      expect(response.json().code ?? response.json().type).toMatch(/malformed_file/);
      const rows = await deletes.logged();
      const deleted = rows.reduce((sum, row) => sum + row.deleted, 0);
      // PGlite inserted batches while the file was parsed, and took them out again; PostgreSQL's
      // one transaction rolled them back.
      if (t.database.kind === 'pglite') expect(deleted).toBeGreaterThan(MERGE_CHUNK_ROWS);
      else expect(deleted).toBe(0);
    } finally {
      await deletes.stop();
    }
    expect(await counted(app.id)).toEqual({ rows: 0, ledger: 0 });
    expect(
      await t.db.selectFrom('scans').select('id').where('application_id', '=', app.id).execute(),
    ).toEqual([]);
    const versions = await t.db
      .selectFrom('application_versions')
      .select('name')
      .where('application_id', '=', app.id)
      .execute();
    expect(versions.map((version) => version.name)).toEqual([DEFAULT_VERSION_NAME]);
    expect(await t.db.selectFrom('ingest_staging').select('upload_key').execute()).toEqual([]);
    expect(await t.db.selectFrom('finding_counts_unpublished').select('scan_id').execute()).toEqual([]);
  });

  it('a crash mid-merge leaves findings of a scan that never completed: uncounted, and deleted at the next start', async () => {
    const app = await makeApplication(t, admin);
    const file = buildSarif({ results: manyResults(50) });
    expect((await upload(t, '/api/ingest', { 'x-api-token': app.api_token }, { file })).statusCode).toBe(201);
    const version = await t.db
      .selectFrom('findings')
      .select('version_id')
      .where('application_id', '=', app.id)
      .executeTakeFirstOrThrow();
    // What a killed chunked merge leaves: a sync upload's scan still processing, with findings.
    const interrupted = await t.db
      .insertInto('scans')
      .values({
        application_id: app.id,
        version_id: version.version_id,
        scanner_type: 'sarif',
        file_sha256: 'f'.repeat(64),
        file_size: 1,
        uploaded_via: 'api_key',
        status: 'processing',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const moved = await t.db
      .updateTable('findings')
      .set({ first_scan_id: interrupted.id })
      .where('application_id', '=', app.id)
      .where('line', '<', 30)
      .executeTakeFirst();
    const hidden = Number(moved.numUpdatedRows);
    expect(hidden).toBeGreaterThan(0);
    // The ledger stops counting findings of a scan that has not completed.
    expect(await counted(app.id)).toEqual({ rows: 50, ledger: 50 - hidden });

    const removed = await discardOrphans(t.db, t.config.dataDir, {
      isLive: async () => true,
      close: async () => {},
    });
    expect(removed).toMatchObject({ unpublishedFindings: hidden, unfinishedScans: 1 });
    expect(await counted(app.id)).toEqual({ rows: 50 - hidden, ledger: 50 - hidden });
    expect(await t.db.selectFrom('finding_counts_unpublished').select('scan_id').execute()).toEqual([]);
    expect(
      await t.db.selectFrom('scans').select('id').where('id', '=', interrupted.id).executeTakeFirst(),
    ).toBeUndefined();
  });

  it('a crash in an upload that created its version: the next start deletes that version, and no other', async () => {
    const app = await makeApplication(t, admin);
    const file = buildSarif({ results: manyResults(3) });
    const into = { 'x-api-token': app.api_token };
    expect((await upload(t, '/api/ingest', into, { file, fields: { version: 'reused' } })).statusCode).toBe(
      201,
    );
    const versionIds = async () =>
      Object.fromEntries(
        (
          await t.db
            .selectFrom('application_versions')
            .select(['name', 'id'])
            .where('application_id', '=', app.id)
            .execute()
        ).map((version) => [version.name, version.id]),
      );
    const made = await t.db
      .insertInto('application_versions')
      .values([
        { application_id: app.id, name: 'crashed' },
        { application_id: app.id, name: 'by-hand' },
      ])
      .returning(['id', 'name'])
      .execute();
    const id = Object.fromEntries(made.map((version) => [version.name, version.id]));
    const reusedId = (await versionIds()).reused!;
    // What killed uploads leave (PGlite opens the scan, and creates the version, in a transaction of
    // their own): processing scans, each saying whether its upload created its version.
    const interrupted = (versionId: number, createdVersion: boolean) => ({
      application_id: app.id,
      version_id: versionId,
      created_version: createdVersion,
      scanner_type: 'sarif',
      file_sha256: 'e'.repeat(64),
      file_size: 1,
      uploaded_via: 'api_key' as const,
      status: 'processing' as const,
    });
    await t.db
      .insertInto('scans')
      .values([
        interrupted(id.crashed!, true),
        // Created by hand, then uploaded into: not the upload's to delete.
        interrupted(id['by-hand']!, false),
        // Created by the interrupted upload, but another upload has completed in it since.
        interrupted(reusedId, true),
      ])
      .execute();

    const removed = await discardOrphans(t.db, t.config.dataDir, {
      isLive: async () => true,
      close: async () => {},
    });
    expect(removed).toMatchObject({ unfinishedScans: 3, createdVersions: 1 });
    expect(Object.keys(await versionIds()).sort()).toEqual(
      ['by-hand', DEFAULT_VERSION_NAME, 'reused'].sort(),
    );
    expect(await counted(app.id)).toEqual({ rows: 3, ledger: 3 });
  });

  it('at a start with every scan completed, counts still set apart for a scan that is gone are removed', async () => {
    const app = await makeApplication(t, admin);
    const file = buildSarif({ results: manyResults(5) });
    expect((await upload(t, '/api/ingest', { 'x-api-token': app.api_token }, { file })).statusCode).toBe(201);
    const everyScanCompleted = await t.db
      .selectFrom('scans')
      .select('id')
      .where('status', '<>', 'completed')
      .execute();
    expect(everyScanCompleted).toEqual([]);
    const noOne = { isLive: async () => true, close: async () => {} };
    // Nothing unfinished: nothing is removed.
    expect(await discardOrphans(t.db, t.config.dataDir, noOne)).toMatchObject({
      unpublishedFindings: 0,
      unfinishedScans: 0,
    });
    expect(await counted(app.id)).toEqual({ rows: 5, ledger: 5 });
    // A row left in the unpublished counts by a scan deleted since (no foreign key holds it there).
    const { version_id } = await t.db
      .selectFrom('findings')
      .select('version_id')
      .where('application_id', '=', app.id)
      .executeTakeFirstOrThrow();
    await t.db
      .insertInto('finding_counts_unpublished')
      .values({
        scan_id: 2_000_000_000,
        application_id: app.id,
        version_id,
        severity: 'high',
        status: 'open',
        findings: 3,
        risk: 300,
        fixed_timed: 0,
        fix_seconds: '0',
      })
      .execute();
    await discardOrphans(t.db, t.config.dataDir, noOne);
    expect(await t.db.selectFrom('finding_counts_unpublished').select('scan_id').execute()).toEqual([]);
    expect(await counted(app.id)).toEqual({ rows: 5, ledger: 5 });
  });
});
