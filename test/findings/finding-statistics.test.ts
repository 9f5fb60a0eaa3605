import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DISPLAY_ONLY_COLUMNS as ZEROED_THEN } from '../../src/db/migrations/2026-11-26T0100-findings-display-statistics.ts';
import { STATISTICS_RESTORED } from '../../src/db/migrations/2026-11-29T0100-enrichment.ts';
import { makeApplication, makeUser } from '../support/factories.ts';
import { buildSarif, manyResults } from '../support/sarif-builder.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { upload } from '../support/upload.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

/**
 * Columns that queries filter, join, group or sort on outside any index: the list's search
 * (findings.repository.ts), policy conditions (domain/policies/conditions.ts), scopes and sightings.
 * Their statistics must stay.
 */
/** The columns without statistics now: those zeroed, less those a later migration gave back. */
const DISPLAY_ONLY_COLUMNS = ZEROED_THEN.filter(
  (column) => !(STATISTICS_RESTORED as readonly string[]).includes(column),
);

const FILTERED_WITHOUT_INDEX = [
  'title',
  'file_path',
  'rule_id',
  'tool_name',
  'category',
  'cwe_id',
  'cwe_ids',
  'scanner_type_id',
  'present',
  'last_scan_id',
  'risk_age',
];

const zeroed = async (): Promise<string[]> =>
  (
    await sql<{ attname: string }>`
      select attname from pg_attribute
      where attrelid = 'findings'::regclass and attnum > 0 and not attisdropped and attstattarget = 0
      order by attname`.execute(t.db)
  ).rows.map((row) => row.attname);

describe('statistics of findings', () => {
  it('ANALYZE skips the display-only columns and still describes the ones queries filter on', async () => {
    const admin = await makeUser(t, { role: 'admin' });
    const app = await makeApplication(t, admin);
    const file = Buffer.from(buildSarif({ tool: 'stats-probe', results: manyResults(200) }));
    expect((await upload(t, '/api/ingest', { 'x-api-token': app.api_token }, { file })).statusCode).toBe(201);
    await sql`analyze findings`.execute(t.db);
    const described = (
      await sql<{ attname: string }>`
        select attname from pg_stats where tablename = 'findings' and schemaname = current_schema()`.execute(
        t.db,
      )
    ).rows.map((row) => row.attname);
    expect(described).toEqual(expect.arrayContaining(['status', 'application_id', 'title', 'fingerprint']));
    for (const column of DISPLAY_ONLY_COLUMNS) expect(described).not.toContain(column);
    expect(await zeroed()).toEqual([...DISPLAY_ONLY_COLUMNS].sort());
  });

  it('no column an index of findings covers, or a query filters on, has lost its statistics', async () => {
    const indexed = (
      await sql<{ attname: string }>`
        select distinct a.attname from pg_index i
        join pg_attribute a on a.attrelid = i.indrelid
        where i.indrelid = 'findings'::regclass
          and (a.attnum = any(i.indkey) or pg_get_expr(i.indpred, i.indrelid) ~ ('\\m' || a.attname || '\\M'))`.execute(
        t.db,
      )
    ).rows.map((row) => row.attname);
    expect(indexed).toEqual(expect.arrayContaining(['status', 'risk_score', 'due_date', 'assignee_id']));
    const lost = await zeroed();
    for (const column of [...indexed, ...FILTERED_WITHOUT_INDEX]) expect(lost).not.toContain(column);
  });
});
