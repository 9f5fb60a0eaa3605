import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CopyBinaryWriter } from '../../src/db/copy-binary.ts';
import { ASSET_WEIGHT, severityPart, SLA_DAYS } from '../../src/domain/findings/risk.ts';
import { SEVERITIES } from '../../src/domain/findings/severity.ts';
import {
  FINDING_COPY_COLUMNS,
  findingValues,
  findingWriter,
  type DirectFindings,
} from '../../src/ingest/finding-copy-rows.ts';
import { insertStaged } from '../../src/ingest/merge/insert.ts';
import { type MergeTarget } from '../../src/ingest/merge/target.ts';
import {
  scoreOrNull,
  STAGING_COLUMNS,
  stagingValues,
  stagingWriter,
  type StagingRow,
} from '../../src/ingest/normalize-row.ts';
import { findParser } from '../../src/ingest/parse/parsers/index.ts';
import { stageRows } from '../../src/ingest/stage.ts';
import { inputFromText } from '../support/corpus-manifest.ts';
import { makeApplication, makeUser, type TestUser } from '../support/factories.ts';
import { emptyMergeTarget } from '../support/merge-target.ts';
import { buildSarif, type SarifResultSpec } from '../support/sarif-builder.ts';
import { stagingRow } from '../support/staging-row.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { upload } from '../support/upload.ts';

/**
 * A version's first upload copies the rows certainly first of their fingerprint straight into
 * `findings` (finding-copy-rows.ts), computing in JavaScript what the insert from staging computes
 * in SQL (merge.ts `insertStaged`): risk score, due date, the first CWE. Whatever a row holds, both
 * ways must store the same finding.
 */

let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await makeUser(t, { role: 'admin' });
});
afterAll(() => t.close());

/** Text as reports carry it: any characters but NUL (cap-fields.ts removes it before staging). */
const text = fc.string({ unit: 'grapheme', maxLength: 40 }).map((value) => value.replaceAll('\u0000', ''));
const nullableText = fc.option(text, { nil: null });
// Any double a report may give, the subnormal ones included; severityPart clamps it to 0–10.
const score = fc.option(fc.double({ noNaN: true, noDefaultInfinity: true }), { nil: null });
const int4 = fc.option(fc.integer({ min: -2_147_483_648, max: 2_147_483_647 }), { nil: null });

const stagedRows = fc.array(
  fc
    .record({
      severity: fc.constantFrom(...SEVERITIES),
      severity_score: score,
      cvss_score: score,
      // The exploitation parts exploitationPart gives.
      risk_exploitation: fc.constantFrom(0.1, 0.2, 0.3, 0.6, 0.8, 1),
      category: text,
      kind: fc.constantFrom('sast', 'sca', 'secret', 'iac', 'dast'),
      title: text.filter((value) => value.length > 0),
      initial_status: fc.constantFrom('open', 'false_positive'),
      description: nullableText,
      snippet: nullableText,
      file_path: nullableText,
      line: int4,
      column: int4,
      end_line: int4,
      cve_ids: fc.array(text, { maxLength: 3 }),
      cwe_ids: fc.array(fc.integer({ min: 0, max: 2_147_483_647 }), { maxLength: 3 }),
      references: fc.array(text, { maxLength: 3 }),
      tool_name: text.filter((value) => value.length > 0),
      tool_version: nullableText,
    })
    .map((row) => {
      // Scores and S as the staging row gets them (normalize-row.ts).
      const cvssScore = scoreOrNull(row.cvss_score);
      const severityScore = scoreOrNull(row.severity_score);
      const riskSeverity = severityPart(row.severity, cvssScore, severityScore);
      return { ...row, cvss_score: cvssScore, severity_score: severityScore, risk_severity: riskSeverity };
    }),
  { minLength: 1, maxLength: 12 },
);

const digest = (value: string) => createHash('sha256').update(value).digest('hex');

/** Columns that name where a finding is (ids) or when it was written: compared apart. */
const PLACED = [
  'id',
  'application_id',
  'version_id',
  'first_scan_id',
  'last_scan_id',
  'due_date',
  'first_seen_at',
  'last_seen_at',
  'created_at',
  'updated_at',
];

/**
 * The version's findings by fingerprint, each without its placing columns but with its due date
 * as seconds after its first sighting, and whether its four timestamps agree.
 */
async function findingsOf(versionId: number): Promise<Map<string, Record<string, unknown>>> {
  const { rows } = await sql<Record<string, unknown>>`
    select f.*, extract(epoch from f.due_date - f.first_seen_at)::float8 as due_after_seconds,
      (f.first_seen_at = f.last_seen_at and f.first_seen_at = f.created_at
        and f.first_seen_at = f.updated_at) as one_moment
    from findings f where f.version_id = ${versionId}`.execute(t.db);
  return new Map(
    rows.map((row) => [
      String(row.fingerprint),
      Object.fromEntries(Object.entries(row).filter(([column]) => !PLACED.includes(column))),
    ]),
  );
}

function encoded(writer: CopyBinaryWriter, rows: readonly unknown[][]): Buffer {
  for (const values of rows) writer.row(values as Parameters<CopyBinaryWriter['row']>[0]);
  return Buffer.from(writer.take());
}

describe("a first upload's findings copied straight into findings", () => {
  it('are the findings the insert from staging makes of the same rows', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        stagedRows,
        fc.constantFrom(...Object.values(ASSET_WEIGHT)),
        async (fields, weight) => {
          run++;
          const uploadKey = `direct-test-${run}`;
          const copied = { ...(await emptyMergeTarget(t, admin, uploadKey)), assetWeight: weight };
          const inserted: MergeTarget = {
            ...(await emptyMergeTarget(t, admin, uploadKey)),
            assetWeight: weight,
            staging: 'ingest_staging',
          };
          const rows: StagingRow[] = fields.map((field, seq) =>
            stagingRow({
              ...field,
              upload_key: uploadKey,
              seq,
              fingerprint: digest(`${run}:${seq}`),
              base: digest(`${run}:${seq}`),
              maybe_repeat: false,
            }),
          );
          const nowMicros = Date.now() * 1000 + 123;
          const direct: DirectFindings = { ...copied, nowMicros };
          const findingRows = rows.map((row) => findingValues(row, direct));
          await t.database.copyFrom('findings', FINDING_COPY_COLUMNS, encoded(findingWriter(), findingRows));
          await t.database.copyFrom(
            'ingest_staging',
            STAGING_COLUMNS,
            encoded(stagingWriter(), rows.map(stagingValues)),
          );
          const source = sql`(select * from ingest_staging where upload_key = ${uploadKey})`;
          const count = await t.db
            .transaction()
            .execute((trx) => insertStaged(trx, inserted, source, 'none'));
          await sql`delete from ingest_staging where upload_key = ${uploadKey}`.execute(t.db);
          expect(count).toBe(rows.length);

          const byCopy = await findingsOf(copied.versionId);
          const byInsert = await findingsOf(inserted.versionId);
          expect(byCopy).toEqual(byInsert);
          for (const row of rows) {
            const finding = byCopy.get(row.fingerprint);
            expect(finding?.due_after_seconds).toBe(SLA_DAYS[row.severity] * 86_400);
            expect(finding?.one_moment).toBe(true);
          }
          // The copied findings carry the moment they were given, to the microsecond.
          const stamped = await sql<{ micros: string }>`
          select distinct (extract(epoch from first_seen_at) * 1000000)::bigint::text as micros
          from findings where version_id = ${copied.versionId}`.execute(t.db);
          expect(stamped.rows).toEqual([{ micros: String(nowMicros) }]);
        },
      ),
      { numRuns: 30 },
    );
  }, 120_000);
});

describe('a score too small for SQL arithmetic', () => {
  // 5e-324 is a double (a subnormal) that PostgreSQL stores but cannot multiply: 0.6 × it underflows
  // (22003), and the insert that computes the risk score failed the whole upload.
  it('is stored as 0, on a first upload and a later one alike', async () => {
    const sarif = (scores: number[]) =>
      JSON.stringify({
        version: '2.1.0',
        runs: [
          {
            tool: { driver: { name: 'tiny', rules: [] } },
            results: scores.map((score, index) => ({
              ruleId: `tiny-${index}`,
              message: { text: 'tiny score' },
              properties: { 'security-severity': score },
              locations: [{ physicalLocation: { artifactLocation: { uri: `src/${index}.c` } } }],
            })),
          },
        ],
      });
    const app = await makeApplication(t, admin);
    const headers = { 'x-api-token': app.api_token };
    const first = await upload(t, '/api/ingest', headers, { file: sarif([5e-324, 1e-310]) });
    expect(first.statusCode, first.body).toBe(201);
    const later = await upload(t, '/api/ingest', headers, { file: sarif([5e-324, 1e-310, 4e-320]) });
    expect(later.statusCode, later.body).toBe(201);
    const findings = await t.db
      .selectFrom('findings')
      .select(['severity_score', 'risk_severity', 'risk_score'])
      .where('application_id', '=', app.id)
      .execute();
    expect(findings).toHaveLength(3);
    for (const finding of findings) expect(finding).toMatchObject({ severity_score: 0, risk_severity: 0 });
  });
});

describe('staging a first upload (stageRows with `direct`)', () => {
  it('copies each row certainly first of its identity as a finding, and stages every repeat', async () => {
    const results: SarifResultSpec[] = Array.from({ length: 3000 }, (_, index) => ({
      ruleId: `rule-${index % 7}`,
      path: `src/file-${index % 40}.ts`,
      line: 10 + index,
      snippet: `call_${index}()`,
    }));
    // Every tenth result repeats the identity of the one nine before it, on another line.
    for (let index = 9; index < results.length; index += 10) {
      results[index] = { ...results[index - 9]!, line: 20_000 + index };
    }
    const twin = (line: number): SarifResultSpec => ({
      ruleId: 'twin',
      path: 'src/t.ts',
      line,
      snippet: 'eval(x)',
    });
    results.push(twin(5), twin(50), twin(500));
    const uploadKey = 'direct-routing';
    const target = await emptyMergeTarget(t, admin, uploadKey);
    const direct: DirectFindings = { ...target, nowMicros: Date.now() * 1000 };
    let chunks = 0;
    const staged = await stageRows(
      findParser('sarif')!,
      inputFromText(buildSarif({ results })),
      uploadKey,
      { category: null, root: null },
      async (chunk) => {
        chunks++;
        if (chunk.findings.length > 0)
          await t.database.copyFrom('findings', FINDING_COPY_COLUMNS, chunk.findings);
        if (chunk.staging.length > 0)
          await t.database.copyFrom('ingest_staging', STAGING_COLUMNS, chunk.staging);
      },
      direct,
    );
    const stagedRows = await t.db
      .selectFrom('ingest_staging')
      .select(['seq', 'base', 'twin_ordinal', 'maybe_repeat'])
      .where('upload_key', '=', uploadKey)
      .orderBy('seq')
      .execute();
    await sql`delete from ingest_staging where upload_key = ${uploadKey}`.execute(t.db);
    const copied = await t.db
      .selectFrom('findings')
      .select('identity_base')
      .where('version_id', '=', target.versionId)
      .execute();

    expect(chunks).toBeGreaterThan(1);
    expect(staged.findingsCount).toBe(results.length);
    expect(staged.directRows).toBe(copied.length);
    expect(copied.length + stagedRows.length).toBe(results.length);
    // Staged: the 300 repeats, the two later twins, and the filter's false alarms (a few at most).
    expect(stagedRows.every((row) => row.maybe_repeat)).toBe(true);
    expect(stagedRows.length).toBeGreaterThanOrEqual(302);
    expect(stagedRows.length).toBeLessThan(302 + 30);
    // Copied: one finding per identity base, the twins' first among them.
    const copiedBases = new Set(copied.map((row) => row.identity_base));
    expect(copiedBases.size).toBe(copied.length);
    const twinBase = stagedRows.find((row) => row.seq === results.length - 1)?.base;
    expect(twinBase !== undefined && copiedBases.has(twinBase)).toBe(true);
    expect(stagedRows.filter((row) => copiedBases.has(row.base)).length).toBeGreaterThanOrEqual(302);
  });
});

describe('an upload through the API', () => {
  /** The tables the server COPYs into while `work` runs, with the bytes each took. */
  async function copiesDuring(work: () => Promise<void>): Promise<Map<string, number>> {
    const copies = new Map<string, number>();
    const record = (table: string, rows: Buffer) => copies.set(table, (copies.get(table) ?? 0) + rows.length);
    const database = t.database;
    const { copyFrom, copyTransaction } = database;
    database.copyFrom = async (table, columns, rows) => {
      record(table, rows);
      return copyFrom(table, columns, rows);
    };
    if (copyTransaction) {
      database.copyTransaction = (run) =>
        copyTransaction((trx, copy) =>
          run(trx, async (table, columns, rows) => {
            record(table, rows);
            return copy(table, columns, rows);
          }),
        );
    }
    try {
      await work();
    } finally {
      database.copyFrom = copyFrom;
      if (copyTransaction) database.copyTransaction = copyTransaction;
    }
    return copies;
  }

  // What the README promises: a version's first upload copies its certain firsts into `findings`
  // and stages only the rest; a later upload stages every row and merges.
  it("copies a first upload's findings straight into findings, and stages a later upload's rows", async () => {
    const results: SarifResultSpec[] = Array.from({ length: 2000 }, (_, index) => ({
      ruleId: `rule-${index % 5}`,
      path: `src/file-${index % 30}.ts`,
      line: 10 + index,
      snippet: `call_${index}()`,
    }));
    const report = buildSarif({ results });
    const app = await makeApplication(t, admin);
    const headers = { 'x-api-token': app.api_token };
    const first = await copiesDuring(async () => {
      const response = await upload(t, '/api/ingest', headers, { file: report });
      expect(response.json()).toMatchObject({ new_findings_count: results.length });
    });
    const staged = (copies: Map<string, number>) =>
      (copies.get('ingest_staging') ?? 0) + (copies.get('upload_rows') ?? 0);
    expect(first.get('findings') ?? 0).toBeGreaterThan(0);
    // Staged: the filter's false alarms at most, a few rows of 2,000.
    expect(staged(first)).toBeLessThan((first.get('findings') ?? 0) / 20);

    const again = await copiesDuring(async () => {
      const response = await upload(t, '/api/ingest', headers, { file: report });
      expect(response.json()).toMatchObject({ new_findings_count: 0 });
    });
    expect(again.has('findings')).toBe(false);
    expect(staged(again)).toBeGreaterThan(0);
  });
});
