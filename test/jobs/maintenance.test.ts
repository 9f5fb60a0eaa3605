import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runHourlyMaintenance } from '../../src/modules/maintenance/maintenance-hourly.ts';
import { stagingRow } from '../support/staging-row.ts';
import { makeApplication, makeUser } from '../support/factories.ts';
import { buildSarif, manyResults } from '../support/sarif-builder.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { upload } from '../support/upload.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const DAY = 86_400_000;
const daysAgo = (days: number) => new Date(Date.now() - days * DAY);
const quiet = { info: () => {}, warn: () => {}, error: () => {} };

describe('hourly maintenance', () => {
  it('drops dispatched events after a week and settled deliveries and policy runs after 30 days, never a pending delivery', async () => {
    const admin = await makeUser(t, { role: 'admin' });
    const app = await makeApplication(t, admin);
    const event = (processed: Date | null) =>
      t.db
        .insertInto('events')
        .values({ type: 'scan.completed', application_id: app.id, processed_at: processed })
        .returning('id')
        .executeTakeFirstOrThrow()
        .then((row) => row.id);
    const oldEvent = await event(daysAgo(8));
    const recentEvent = await event(daysAgo(6));
    const oldUndispatched = await event(null);
    await t.db
      .updateTable('events')
      .set({ created_at: daysAgo(20) } as never)
      .where('id', '=', oldUndispatched)
      .execute();

    const webhook = await t.db
      .insertInto('webhooks')
      .values({ application_id: app.id, url: 'https://hooks.example.test/m', events: ['*'], active: false })
      .returning('id')
      .executeTakeFirstOrThrow();
    const delivery = (status: 'pending' | 'delivered' | 'failed', created: Date) =>
      t.db
        .insertInto('webhook_deliveries')
        .values({
          webhook_id: webhook.id,
          message_id: randomUUID(),
          event: 'ping',
          body: '{}',
          status,
          created_at: created,
        })
        .returning('id')
        .executeTakeFirstOrThrow()
        .then((row) => row.id);
    const oldDelivered = await delivery('delivered', daysAgo(31));
    const oldFailed = await delivery('failed', daysAgo(31));
    const oldPending = await delivery('pending', daysAgo(31));
    const recentDelivered = await delivery('delivered', daysAgo(29));

    const policy = await t.db
      .insertInto('policies')
      .values({
        name: 'm',
        scope_type: 'application',
        application_id: app.id,
        event_types: ['finding.created'],
        conditions: '[]',
        actions: '[{"type":"webhook","target":null}]',
        enabled: false,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const run = (created: Date) =>
      t.db
        .insertInto('policy_runs')
        .values({
          policy_id: policy.id,
          event: 'finding.created',
          depth: 1,
          evaluated: 0,
          finding_ids: [],
          created_at: created,
        })
        .returning('id')
        .executeTakeFirstOrThrow()
        .then((row) => row.id);
    const oldRun = await run(daysAgo(31));
    const recentRun = await run(daysAgo(1));

    await runHourlyMaintenance({ ...t, log: quiet });

    const ids = async (table: 'events' | 'webhook_deliveries' | 'policy_runs') =>
      (await t.db.selectFrom(table).select('id').execute()).map((row) => row.id);
    const events = await ids('events');
    expect(events).toEqual(expect.arrayContaining([recentEvent, oldUndispatched]));
    expect(events).not.toContain(oldEvent);
    const deliveries = await ids('webhook_deliveries');
    expect(deliveries.sort()).toEqual([oldPending, recentDelivered].sort());
    expect(deliveries).not.toContain(oldDelivered);
    expect(deliveries).not.toContain(oldFailed);
    expect(await ids('policy_runs')).toEqual([recentRun]);
    expect(oldRun).not.toBe(recentRun);
  });
});

describe('after a big upload', () => {
  // Its own app, whose workers start when the test says: a worker polling right after the upload's
  // commit would otherwise truncate the staging table before the test could see it filled.
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({}, { deferWorkers: true });
  });
  afterAll(() => t.close());

  it('answers without vacuuming, then a background job vacuums what it churned (PGlite; PostgreSQL has autovacuum)', async () => {
    const admin = await makeUser(t, { role: 'admin' });
    const app = await makeApplication(t, admin);
    const lastVacuum = async () =>
      (
        await sql<{ last_vacuum: Date | null }>`
          select last_vacuum from pg_stat_user_tables where relname = 'findings' and schemaname = current_schema()`.execute(
          t.db,
        )
      ).rows[0]?.last_vacuum ?? null;
    const before = await lastVacuum();
    const response = await upload(
      t,
      '/api/ingest',
      { 'x-api-token': app.api_token },
      {
        file: Buffer.from(buildSarif({ tool: 'vacuum-probe', results: manyResults(10_000) })),
      },
    );
    expect(response.statusCode).toBe(201);
    expect(response.json().new_findings_count).toBe(10_000);
    const jobs = await sql<{ state: string }>`
      select state from ${sql.table(`${t.database.jobSchema}.job`)} where name = 'vacuum-after-ingest'`.execute(
      t.db,
    );
    if (t.database.kind !== 'pglite') {
      expect(jobs.rows).toEqual([]);
      return;
    }
    expect(jobs.rows.length).toBe(1);
    // The upload was the only one staging in the process: it left the staging table truncated
    // (stage.ts `discardUploadStaging`), its indexes as small as a new table's.
    const empty = await emptyStagingIndexPages(t);
    expect(await stagingIndexPages(t)).toEqual(empty);
    await t.jobs.startWorkers();
    await t.jobs.drained('vacuum-after-ingest');
    const after = await lastVacuum();
    expect(after).not.toBeNull();
    expect(after?.getTime() ?? 0).toBeGreaterThan(before?.getTime() ?? 0);
    // Analyzed on a sample of 9,000 rows, not 30,000 (pglite-maintenance.ts): 10k distinct lines
    // give a histogram of 31 bounds at target 30, 101 at the default; the default stays for the rest.
    const { rows } = await sql<{ bounds: number; target: string }>`
      select array_length(histogram_bounds, 1)::integer as bounds,
        current_setting('default_statistics_target') as target
      from pg_stats where schemaname = current_schema() and tablename = 'findings' and attname = 'line'`.execute(
      t.db,
    );
    expect(rows).toEqual([{ bounds: 31, target: '100' }]);
  }, 60_000);

  it('keeps the rows an upload has staged: the staging table is vacuumed then, not truncated (PGlite)', async () => {
    if (t.database.kind !== 'pglite') return;
    const row = stagingRow({
      upload_key: `${'0'.repeat(13)}-maintenance-${randomUUID()}`,
      seq: 0,
      severity: 'high',
      severity_rank: 4,
      tool_name: 'probe',
    });
    await t.db.insertInto('ingest_staging').values(row).execute();
    await t.database.maintain(['ingest_staging', 'findings']);
    const kept = await t.db
      .selectFrom('ingest_staging')
      .select('title')
      .where('upload_key', '=', row.upload_key)
      .execute();
    expect(kept).toEqual([{ title: 'staged' }]);
    await t.db.deleteFrom('ingest_staging').where('upload_key', '=', row.upload_key).execute();
  });
});

/** Pages of the staging table's indexes (default `ingest_staging`), and how many there are. */
async function stagingIndexPages(
  t: TestApp,
  table = 'ingest_staging',
): Promise<{ pages: number; indexes: number }> {
  const { rows } = await sql<{ pages: number; indexes: number }>`
    select (sum(pg_relation_size(indexrelid)) / current_setting('block_size')::integer)::integer as pages,
      count(*)::integer as indexes
    from pg_index where indrelid = ${table}::regclass`.execute(t.db);
  return rows[0] ?? { pages: 0, indexes: 0 };
}

/** What the staging table's indexes hold when empty: those of a new table shaped like it (a btree keeps its metapage, a hash index its metapage, bitmap and first buckets). */
async function emptyStagingIndexPages(t: TestApp): Promise<{ pages: number; indexes: number }> {
  await sql`create temp table empty_staging (like ingest_staging including indexes)`.execute(t.db);
  try {
    return await stagingIndexPages(t, 'empty_staging');
  } finally {
    await sql`drop table empty_staging`.execute(t.db);
  }
}
