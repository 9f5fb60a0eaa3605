import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeApplication, makeFinding, makeUser } from '../support/factories.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

async function snapshot(source: 'epss' | 'kev', day: string): Promise<number> {
  const row = await t.db
    .insertInto('enrichment_snapshots')
    .values({
      source,
      format: source === 'epss' ? 'epss_csv' : 'kev_json',
      version: `release-test-${day}`,
      data_date: day,
      origin: 'upload',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

describe('findings naming an enrichment snapshot (migration 2026-11-29T1100)', () => {
  it('are released when the snapshot is deleted, as the foreign keys did, without a row trigger per inserted finding', async () => {
    const admin = await makeUser(t, { role: 'admin' });
    const application = await makeApplication(t, admin);
    const epss = await snapshot('epss', '2020-01-01');
    const kev = await snapshot('kev', '2020-01-02');
    const both = await makeFinding(t, application.id, {
      epss: 0.5,
      epss_snapshot_id: epss,
      kev_snapshot_id: kev,
    });
    const other = await makeFinding(t, application.id, { epss_snapshot_id: null, kev_snapshot_id: kev });
    // EPSS and its snapshot are in `finding_epss` since migration 2026-11-29T1600.
    const read = async (id: number) =>
      t.db
        .selectFrom('findings')
        .leftJoin('finding_epss', 'finding_epss.finding_id', 'findings.id')
        .select(['finding_epss.snapshot_id as epss_snapshot_id', 'findings.kev_snapshot_id'])
        .where('findings.id', '=', id)
        .executeTakeFirstOrThrow();

    await t.db.deleteFrom('enrichment_snapshots').where('id', '=', epss).execute();
    expect(await read(both.id)).toEqual({ epss_snapshot_id: null, kev_snapshot_id: kev });
    expect(await read(other.id)).toEqual({ epss_snapshot_id: null, kev_snapshot_id: kev });

    await t.db.deleteFrom('enrichment_snapshots').where('id', '=', kev).execute();
    expect(await read(both.id)).toEqual({ epss_snapshot_id: null, kev_snapshot_id: null });
    expect(await read(other.id)).toEqual({ epss_snapshot_id: null, kev_snapshot_id: null });

    // No foreign key on findings names the snapshots: each would be a trigger per inserted finding.
    const { rows } = await sql<{ conname: string }>`select conname from pg_constraint
      where conrelid = 'findings'::regclass and confrelid = 'enrichment_snapshots'::regclass`.execute(t.db);
    expect(rows).toEqual([]);
  });

  it('EPSS is kept off the finding row: a narrow table holds only findings with one, ordered per application (migration 2026-11-29T1600)', async () => {
    const { rows } = await sql<{ definition: string }>`select pg_get_indexdef(indexrelid) as definition
      from pg_index where indexrelid = 'finding_epss_order'::regclass`.execute(t.db);
    expect(rows[0]?.definition).toMatch(/\(application_id, epss, finding_id\)/);
    const columns = await sql<{ column_name: string }>`select column_name from information_schema.columns
      where table_name = 'findings' and column_name in ('epss', 'epss_percentile', 'epss_snapshot_id')`.execute(
      t.db,
    );
    expect(columns.rows).toEqual([]);
    // A deleted finding takes its EPSS row with it (a statement trigger, not a foreign key).
    const admin = await makeUser(t, { role: 'admin' });
    const application = await makeApplication(t, admin);
    const finding = await makeFinding(t, application.id, { epss: 0.3, epss_percentile: 0.9 });
    const count = async () =>
      Number(
        (
          await t.db
            .selectFrom('finding_epss')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('finding_id', '=', finding.id)
            .executeTakeFirstOrThrow()
        ).n,
      );
    expect(await count()).toBe(1);
    await t.db.deleteFrom('findings').where('id', '=', finding.id).execute();
    expect(await count()).toBe(0);
  });
});
