import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { sql, type Transaction } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DB, IngestStagingTable } from '../../src/db/schema.ts';
import { insertNewFindings, insertStaged } from '../../src/ingest/merge/insert.ts';
import { stagedRanges, type MergeTarget } from '../../src/ingest/merge/target.ts';
import type { StagingRow } from '../../src/ingest/normalize-row.ts';
import { insertFirstUploadBatch } from '../../src/ingest/first-upload.ts';
import {
  INSERT_BATCH_ROWS,
  OWN_STAGING_MIN_BYTES,
} from '../../src/ingest/landing/postgres-one-transaction.ts';
import { defaultVersionId, makeApplication, makeUser, type TestUser } from '../support/factories.ts';
import { emptyMergeTarget } from '../support/merge-target.ts';
import { stagingRow } from '../support/staging-row.ts';
import { buildSarif, type SarifResultSpec } from '../support/sarif-builder.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { upload } from '../support/upload.ts';

/**
 * A version's first upload inserts its findings batch by batch while the file is parsed
 * (first-upload.ts: in one transaction on PostgreSQL, in short ones on PGlite); any later upload
 * stages first and merges after. Both must give the same findings: one per identity, twins told
 * apart by line, the first report of a repeated identity kept.
 */

let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await makeUser(t, { role: 'admin' });
});
afterAll(() => t.close());

/** More than two batches, with repeats that cross batches and repeats inside one. */
function reportCrossingBatches(dropLast = 0): string {
  return buildSarif({ results: resultsCrossingBatches(dropLast) });
}

function resultsCrossingBatches(dropLast = 0): SarifResultSpec[] {
  const size = 2 * INSERT_BATCH_ROWS + 500;
  const results: SarifResultSpec[] = Array.from({ length: size }, (_, index) => ({
    ruleId: `rule-${index % 4}`,
    path: `src/file-${index % 300}.ts`,
    line: 10 + index,
    snippet: `call_${index}()`,
  }));
  // Twins (one rule, file and snippet on several lines): reported early, again in the next batch
  // and in the last, out of line order; and a pair inside one batch.
  const twin = (line: number): SarifResultSpec => ({
    ruleId: 'twin',
    path: 'src/t.ts',
    line,
    snippet: 'eval(x)',
  });
  results[3] = twin(900);
  results[INSERT_BATCH_ROWS + 7] = twin(40);
  results[2 * INSERT_BATCH_ROWS + 11] = twin(500);
  results[20] = { ...twin(70), path: 'src/u.ts' };
  results[21] = { ...twin(60), path: 'src/u.ts' };
  return results.slice(0, size - dropLast);
}

/**
 * The application's findings as comparable text: what they say and how they are scored, with the
 * due date as seconds after the first sighting (the first upload copies most of them straight into
 * `findings`, computing in JavaScript what the insert computes in SQL).
 */
const findingsOf = async (applicationId: number) =>
  (
    await t.db
      .selectFrom('findings')
      .select([
        'fingerprint',
        'identity_base',
        'line',
        'title',
        'severity',
        'file_path',
        'status',
        'present',
        'snippet',
        'rule_id',
        'kind',
        'category',
        'cwe_id',
        'tool_name',
        'risk_score',
        'risk_severity',
        'risk_asset',
        sql<number>`extract(epoch from due_date - first_seen_at)::float8`.as('due_after_seconds'),
      ])
      .where('application_id', '=', applicationId)
      .execute()
  )
    .map((row) => JSON.stringify(row))
    .sort();

describe("a version's first upload", () => {
  it('gives the findings an upload into a version with findings gives, and the same report again changes nothing', async () => {
    const report = reportCrossingBatches();
    const fresh = await makeApplication(t, admin);
    const first = await upload(t, '/api/ingest', { 'x-api-token': fresh.api_token }, { file: report });
    expect(first.statusCode, first.body).toBe(201);

    // The other application's version holds a finding of another scanner first: its upload of the
    // same report is merged the usual way, and closes nothing of the other scanner.
    const merged = await makeApplication(t, admin);
    const headers = { 'x-api-token': merged.api_token };
    const gitleaks = JSON.stringify([
      {
        Description: 'AWS',
        StartLine: 1,
        EndLine: 1,
        File: 'k.tf',
        RuleID: 'aws',
        Secret: 'AKIAIOSFODNN7EXAMPLE',
      },
    ]);
    expect(
      (await upload(t, '/api/ingest', headers, { file: gitleaks, fileName: 'gitleaks.json' })).statusCode,
    ).toBe(201);
    const usual = await upload(t, '/api/ingest', headers, { file: report });
    expect(usual.statusCode, usual.body).toBe(201);

    const size = 2 * INSERT_BATCH_ROWS + 500;
    // Twins are findings of their own: every result is one.
    expect(first.json()).toMatchObject({ findings_count: size, new_findings_count: size });
    expect(usual.json()).toMatchObject({ findings_count: size, new_findings_count: size });
    const secret = (await findingsOf(merged.id)).filter((row) => row.includes('"k.tf"'));
    expect(secret).toHaveLength(1);
    expect(await findingsOf(fresh.id)).toEqual(
      (await findingsOf(merged.id)).filter((row) => !secret.includes(row)),
    );
    const twins = (await findingsOf(fresh.id)).filter((row) => row.includes('"src/t.ts"'));
    expect(twins.map((row) => (JSON.parse(row) as { line: number }).line).sort()).toEqual([40, 500, 900]);

    const again = await upload(t, '/api/ingest', { 'x-api-token': fresh.api_token }, { file: report });
    expect(again.json()).toMatchObject({
      new_findings_count: 0,
      existing_findings_count: size,
      fixed_findings_count: 0,
    });
    // A large upload finds what it no longer reports in its one hash join (merge.ts compareLargeUpload).
    const fewer = await upload(
      t,
      '/api/ingest',
      { 'x-api-token': fresh.api_token },
      { file: reportCrossingBatches(3) },
    );
    expect(fewer.json()).toMatchObject({
      new_findings_count: 0,
      existing_findings_count: size - 3,
      fixed_findings_count: 3,
    });
  }, 60_000);

  it('keeps the first report of a secret reported again in a later batch, as one finding', async () => {
    const leak = (index: number, secret: string, line: number) => ({
      Description: 'Generic API key',
      StartLine: line,
      EndLine: line,
      File: `conf/app-${index % 50}.env`,
      RuleID: 'generic-api-key',
      Secret: secret,
      Match: secret,
    });
    const size = INSERT_BATCH_ROWS + 100;
    const leaks = Array.from({ length: size }, (_, index) =>
      leak(index, `key-${index}-9f8e7d6c5b4a`, index + 1),
    );
    leaks[INSERT_BATCH_ROWS + 50] = leak(3, 'key-3-9f8e7d6c5b4a', 77);
    const report = JSON.stringify(leaks);
    const app = await makeApplication(t, admin);
    const headers = { 'x-api-token': app.api_token };
    const first = await upload(t, '/api/ingest', headers, { file: report, fileName: 'gitleaks.json' });
    expect(first.json()).toMatchObject({ new_findings_count: size - 1 });
    const lines = (
      await t.db
        .selectFrom('findings')
        .select('line')
        .where('application_id', '=', app.id)
        .where('file_path', '=', 'conf/app-3.env')
        .execute()
    ).map((row) => row.line);
    // The first report (line 4) stands for both; the later one (line 77) is not a finding.
    expect(lines).toContain(4);
    expect(lines).not.toContain(77);
    const again = await upload(t, '/api/ingest', headers, { file: report, fileName: 'gitleaks.json' });
    expect(again.json()).toMatchObject({ new_findings_count: 0, existing_findings_count: size - 1 });
  }, 60_000);
});

const stagedRows = async () =>
  Number(
    (
      await t.db
        .selectFrom('ingest_staging')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

/**
 * Uploads `file` the usual way (staged in the shared table, then merged): on PostgreSQL by holding
 * the version's merge lock elsewhere until the upload has staged rows, which sends it that way.
 */
async function uploadStagedFirst(app: { id: number; api_token: string }, file: string) {
  const headers = { 'x-api-token': app.api_token };
  if (t.database.pool === undefined) return upload(t, '/api/ingest', headers, { file });
  const versionId = await defaultVersionId(t, app.id);
  const holder = await t.database.pool.connect();
  try {
    await holder.query('select pg_advisory_lock($1, $2)', [0x5ca4, versionId]);
    const uploading = upload(t, '/api/ingest', headers, { file });
    try {
      await expect.poll(stagedRows, { timeout: 20_000 }).toBeGreaterThan(0);
    } finally {
      await holder.query('select pg_advisory_unlock($1, $2)', [0x5ca4, versionId]);
    }
    return await uploading;
  } finally {
    holder.release();
  }
}

describe('a later large upload into a version', () => {
  // On PostgreSQL one of OWN_STAGING_MIN_BYTES or more is staged in its merge transaction's own
  // table and merged from there; it must give what the usual merge (shared staging table) gives.
  it('merged from its own staging gives the findings and counts the usual merge gives', async () => {
    const base = resultsCrossingBatches();
    const moved = base.map((result, index) => {
      // Lines shift, snippets change (new identities, the old ones fixed), a severity changes,
      // the twins move, and the last results are no longer reported.
      if (index % 5 === 0) return { ...result, line: result.line + 2 };
      if (index % 97 === 1) return { ...result, snippet: `changed_${index}()` };
      if (index === 8) return { ...result, level: 'error' as const };
      return result;
    });
    moved[3] = { ...moved[3]!, line: 905 };
    moved[21] = { ...moved[21]!, line: 65 };
    const reports = [
      buildSarif({ results: base }),
      buildSarif({ results: moved.slice(0, -4) }),
      buildSarif({ results: base }),
    ];
    expect(Buffer.byteLength(reports[1]!)).toBeGreaterThanOrEqual(OWN_STAGING_MIN_BYTES);

    const own = await makeApplication(t, admin);
    const usual = await makeApplication(t, admin);
    const counts = (body: string) => {
      const scan = JSON.parse(body) as Record<string, unknown>;
      return [scan.new_findings_count, scan.existing_findings_count, scan.fixed_findings_count];
    };
    for (const [index, report] of reports.entries()) {
      const byOwn = await upload(t, '/api/ingest', { 'x-api-token': own.api_token }, { file: report });
      const byUsual =
        index === 0
          ? await upload(t, '/api/ingest', { 'x-api-token': usual.api_token }, { file: report })
          : await uploadStagedFirst(usual, report);
      expect(byOwn.statusCode, byOwn.body).toBe(201);
      expect(byUsual.statusCode, byUsual.body).toBe(201);
      expect(counts(byOwn.body), `upload ${index}`).toEqual(counts(byUsual.body));
      expect(await findingsOf(own.id), `upload ${index}`).toEqual(await findingsOf(usual.id));
    }
    // The second upload fixed the changed and the dropped; the third reopened them all.
    const statuses = await t.db
      .selectFrom('findings')
      .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
      .where('application_id', '=', own.id)
      .groupBy('status')
      .execute();
    expect(statuses.map((row) => [row.status, Number(row.n)]).sort()).toEqual(
      [
        ['fixed', moved.filter((result) => result.snippet?.startsWith('changed_')).length],
        ['open', base.length],
      ].sort(),
    );
    expect(await stagedRows()).toBe(0);
  }, 120_000);
});

describe.runIf(Boolean(process.env.TEST_DATABASE_URL))(
  'while another upload holds the version (PostgreSQL)',
  () => {
    // A first upload holds the version's lock through its parse. Another upload into the same
    // version must not wait for it with a connection held: it stages at once (its rows committed
    // chunk by chunk) and waits for the lock only to merge.

    it.each([
      ['the version', (applicationId: number, versionId: number) => [0x5ca4, versionId] as const],
      [
        'the name of a version being created',
        (applicationId: number) => [0x5ca5, `${applicationId}:2.0`] as const,
      ],
    ])(
      '%s locked: stages at once, merges once the lock is free',
      async (_, lockOf) => {
        const app = await makeApplication(t, admin);
        const versionId = await defaultVersionId(t, app.id);
        const [space, key] = lockOf(app.id, versionId);
        const holder = await t.database.pool!.connect();
        try {
          await holder.query(
            typeof key === 'number'
              ? 'select pg_advisory_lock($1, $2)'
              : 'select pg_advisory_lock($1, hashtext($2))',
            [space, key],
          );
          const fields: Record<string, string> = typeof key === 'number' ? {} : { version: '2.0' };
          const file = reportCrossingBatches();
          const uploading = upload(t, '/api/ingest', { 'x-api-token': app.api_token }, { file, fields });
          await expect.poll(stagedRows, { timeout: 20_000 }).toBeGreaterThan(0);
          await holder.query(
            typeof key === 'number'
              ? 'select pg_advisory_unlock($1, $2)'
              : 'select pg_advisory_unlock($1, hashtext($2))',
            [space, key],
          );
          const response = await uploading;
          expect(response.statusCode, response.body).toBe(201);
          expect(response.json()).toMatchObject({ new_findings_count: 2 * INSERT_BATCH_ROWS + 500 });
        } finally {
          holder.release();
        }
      },
      60_000,
    );
  },
);

describe("a first upload's batch insert (insertFirstUploadBatch)", () => {
  const fingerprint = (n: number) => createHash('sha256').update(`fingerprint ${n}`).digest('hex');
  const row = (seq: number, n: number, maybeRepeat: boolean): StagingRow =>
    stagingRow({
      upload_key: 'batch-test',
      seq,
      fingerprint: fingerprint(n),
      base: fingerprint(n),
      maybe_repeat: maybeRepeat,
      title: `finding ${n}`,
      rule_id: `rule-${n}`,
      file_path: 'src/a.ts',
      line: seq + 1,
    });

  // A staging filter flags every repeat (no false negatives) and, now and then, a first row too.
  const report = fc
    .record({
      identities: fc.array(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 30 }),
      falseAlarms: fc.array(fc.boolean(), { minLength: 30, maxLength: 30 }),
      cuts: fc.uniqueArray(fc.integer({ min: 1, max: 29 }), { maxLength: 3 }),
    })
    .map(({ identities, falseAlarms, cuts }) => {
      const seen = new Set<number>();
      const rows = identities.map((n, seq) => {
        const repeat = seen.has(n);
        seen.add(n);
        return row(seq, n, repeat || (falseAlarms[seq] ?? false));
      });
      const bounds = [...cuts.filter((cut) => cut < rows.length), rows.length].sort((a, b) => a - b);
      return { rows, bounds };
    });

  /**
   * Stages `rows` in `upload_rows`, lets `insert` insert their findings into `target`'s empty
   * version, and checks that it inserted the first row in report order of each fingerprint, once;
   * then rolls everything back.
   */
  async function expectFirstRowsInserted(
    target: MergeTarget,
    rows: StagingRow[],
    insert: (trx: Transaction<DB>) => Promise<number>,
  ): Promise<void> {
    const expected = new Map<string, number | null>();
    for (const staged of rows)
      if (!expected.has(staged.fingerprint)) expected.set(staged.fingerprint, staged.line);
    const rollback = new Error('rolled back');
    await expect(
      t.db.transaction().execute(async (trx) => {
        await sql`create temp table upload_rows (like ingest_staging) on commit drop`.execute(trx);
        await trx
          .withTables<{ upload_rows: IngestStagingTable }>()
          .insertInto('upload_rows')
          .values(rows)
          .execute();
        const inserted = await insert(trx);
        const findings = await trx
          .selectFrom('findings')
          .select(['fingerprint', 'line'])
          .where('version_id', '=', target.versionId)
          .execute();
        expect(inserted).toBe(expected.size);
        expect(new Map(findings.map((finding) => [finding.fingerprint, finding.line]))).toEqual(expected);
        throw rollback;
      }),
    ).rejects.toBe(rollback);
  }

  // As a first upload runs it: the rows not flagged are copied into `findings` as their chunk is
  // written (the copy is the insert's equal: first-upload-direct.test.ts), the flagged ones staged,
  // and each batch runs once its chunks are in.
  it('inserts the first row in report order of each fingerprint, once, however the batches fall', async () => {
    const target = await emptyMergeTarget(t, admin, 'batch-test');
    await fc.assert(
      fc.asyncProperty(report, ({ rows, bounds }) =>
        expectFirstRowsInserted(target, rows, async (trx) => {
          let inserted = 0;
          let from = 0;
          for (const to of bounds) {
            const copied = sql`(select * from upload_rows where not maybe_repeat and seq >= ${from} and seq < ${to})`;
            inserted += await insertStaged(trx, target, copied, 'none');
            await sql`delete from upload_rows where not maybe_repeat and seq >= ${from} and seq < ${to}`.execute(
              trx,
            );
            inserted += await insertFirstUploadBatch(trx, target, from, to);
            from = to;
          }
          return inserted;
        }),
      ),
      { numRuns: 40 },
    );
  }, 60_000);

  // Every other merge reads the staged rows one per fingerprint the same way (merge.ts `staged`):
  // the rows known to be first as they are, one of the others only where no first row has theirs.
  it('the merge takes the same row of each fingerprint, whole or in ranges', async () => {
    const target = await emptyMergeTarget(t, admin, 'batch-test');
    await fc.assert(
      fc.asyncProperty(report, fc.integer({ min: 1, max: 12 }), ({ rows }, rowsPerRange) =>
        expectFirstRowsInserted(target, rows, async (trx) => {
          if (rowsPerRange > 10) return insertNewFindings(trx, target);
          let inserted = 0;
          for (const range of stagedRanges(rows.length, rowsPerRange)) {
            inserted += await insertNewFindings(trx, target, range);
          }
          return inserted;
        }),
      ),
      { numRuns: 40 },
    );
  }, 60_000);
});
