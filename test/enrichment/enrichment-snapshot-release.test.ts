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
    const both = await makeFinding(t, application.id, { epss_snapshot_id: epss, kev_snapshot_id: kev });
    const other = await makeFinding(t, application.id, { epss_snapshot_id: null, kev_snapshot_id: kev });
    const read = async (id: number) =>
      t.db
        .selectFrom('findings')
        .select(['epss_snapshot_id', 'kev_snapshot_id'])
        .where('id', '=', id)
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

  it('the EPSS index holds only findings with an EPSS', async () => {
    const { rows } = await sql<{ definition: string }>`select pg_get_indexdef(indexrelid) as definition
      from pg_index where indexrelid = 'findings_epss'::regclass`.execute(t.db);
    expect(rows[0]?.definition).toMatch(/WHERE \(epss IS NOT NULL\)/);
  });
});
