import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeApplication, makeUser } from '../support/factories.ts';
import { buildSarif, type SarifResultSpec } from '../support/sarif-builder.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { upload } from '../support/upload.ts';

/**
 * The merge looks staged rows up by fingerprint (twin groups, findings an upload no longer reports,
 * matched rows) through `ingest_staging_row_key_idx`, one hash of upload key and fingerprint. With
 * statistics from an earlier upload, which say a new upload key has no rows, a lookup that could
 * also use the (upload_key, seq) index risks being planned through it, once per probe: every probe
 * would then read the whole upload.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const RESULTS = 3000;

/** `count` results; every tenth one has a twin (same rule, file and code) 40 lines below. */
function report(count: number, lineOffset: number, from = 0): string {
  const results: SarifResultSpec[] = [];
  for (let index = from; index < from + count; index++) {
    const result = {
      ruleId: `rule-${index % 5}`,
      path: `src/module-${index % 7}/file-${Math.floor(index / 10)}.ts`,
      line: 10 + (index % 10) + lineOffset,
      snippet: `dangerous(call_${index})`,
    };
    results.push(result);
    if (index % 10 === 0) results.push({ ...result, line: result.line + 40 });
  }
  return buildSarif({ results });
}

/** Index entries read so far through each index of ingest_staging (PGlite: its one session's counts). */
async function stagingIndexReads(): Promise<Record<string, number>> {
  await sql`select pg_stat_force_next_flush()`.execute(t.db);
  await sql`select 1`.execute(t.db); // the flush happens at the end of a transaction
  const { rows } = await sql<{ index: string; read: number }>`
    select indexrelname as index, idx_tup_read::integer as read from pg_stat_user_indexes
    where relname = 'ingest_staging' and schemaname = current_schema()`.execute(t.db);
  return Object.fromEntries(rows.map((row) => [row.index, row.read]));
}

it('finds staged rows by their key, not by reading the upload once per probe, on stale statistics', async () => {
  const owner = await makeUser(t, { role: 'admin' });
  const app = await makeApplication(t, owner);
  const send = (file: string) =>
    upload(t, '/api/ingest', { 'x-api-token': app.api_token }, { file, fields: { version: 'v1' } });
  const before = await stagingIndexReads();
  expect((await send(report(RESULTS, 0))).statusCode).toBe(201);

  // Then statistics that know one other upload key, all of the table's rows: a new key has none.
  await sql`insert into ingest_staging (upload_key, fingerprint, category, kind, title, severity, severity_rank,
      initial_status, cve_ids, cwe_ids, "references", tool_name, risk_severity, risk_exploitation, seq)
    select '0000000000000-stale', md5(i::text), 'sast', 'code', 't', 'high', 3, 'open', '{}', '{}', '{}',
      'TestScanner', 1, 1, i
    from generate_series(1, ${RESULTS}) as i`.execute(t.db);
  await sql`analyze ingest_staging`.execute(t.db);
  await sql`analyze findings`.execute(t.db);
  await sql`delete from ingest_staging`.execute(t.db);

  // A tenth gone, the rest moved by 3 lines (matched and changed, twins among them), a tenth new.
  const second = await send(report(RESULTS, 3, RESULTS / 10));
  expect(second.statusCode).toBe(201);
  const counts = second.json<{ new_findings_count: number; fixed_findings_count: number }>();
  expect(counts.fixed_findings_count).toBeGreaterThan(0);
  expect(counts.new_findings_count).toBeGreaterThan(0);

  if (t.database.kind !== 'pglite') return; // PostgreSQL's other connections report their counts late
  const after = await stagingIndexReads();
  const read = (index: string) => (after[index] ?? 0) - (before[index] ?? 0);
  const staged = 2 * RESULTS * 1.1; // both uploads' rows
  // Probing through (upload_key, seq), the twin lookups of the first upload alone read a million
  // entries (hash of the fingerprint alone, `upload_key = …` beside it); reading each upload's rows
  // a few times in order (ranges, deletes, the twins' update) reads a few multiples of its rows.
  expect(read('ingest_staging_seq_idx')).toBeLessThan(staged * 20);
  expect(read('ingest_staging_row_key_idx')).toBeGreaterThan(0);
});
