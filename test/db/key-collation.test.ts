import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

it('compares text bytewise in every index an upload inserts into (migration byte-order-keys)', async () => {
  // Every text key of the indexes on findings and ingest_staging (an expression by its text), with
  // the collation it is compared under. An index on a column people read (a title, a path) would show up here with the database's
  // collation: decide then whether its order matters to them more than the upload's speed.
  const { rows } = await sql<{ index: string; column: string; collation: string }>`
    select index_class.relname as index,
      coalesce(attribute.attname, pg_get_indexdef(ix.indexrelid, index_key.position::integer, true)) as column,
      coll.collname as collation
    from pg_index as ix
    join pg_class as index_class on index_class.oid = ix.indexrelid
    cross join lateral unnest(ix.indkey::int2[], ix.indcollation::oid[])
      with ordinality as index_key(attnum, collation_oid, position)
    left join pg_attribute as attribute on attribute.attrelid = ix.indrelid and attribute.attnum = index_key.attnum
    join pg_collation as coll on coll.oid = index_key.collation_oid
    where ix.indrelid in ('findings'::regclass, 'ingest_staging'::regclass)`.execute(t.db);
  expect(rows.map((row) => row.column).sort()).toEqual(
    [
      "((upload_key || ' '::text) || fingerprint)",
      'dismissal_reason',
      'fingerprint',
      'fingerprint',
      'identity_base',
      'status',
      'status',
      'status',
      'upload_key',
      'upload_key',
    ].sort(),
  );
  for (const row of rows) expect(row, `${row.index} (${row.column})`).toMatchObject({ collation: 'C' });
});
