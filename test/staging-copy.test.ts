import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyField } from '../src/db/copy-text.ts';
import { STAGING_COLUMNS, stagingLine, type StagingRow } from '../src/ingest/normalize-row.ts';
import { createTestApp, type TestApp } from './support/test-app.ts';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

// Text as scanners write it and worse: the characters COPY treats specially (backslash, tab,
// newline, carriage return), array syntax (braces, quotes, commas), `\N` spelled out, and any
// other code point PostgreSQL text holds (NUL excluded: the ingest strips it before staging).
const hostileText = fc
  .array(
    fc.oneof(
      fc.constantFrom('\\', '\t', '\n', '\r', '"', ',', '{', '}', ' ', 'NULL', '\\N', '\\.', "'", 'é', '🔥'),
      fc.string({ unit: 'grapheme', maxLength: 6 }),
    ),
    { maxLength: 12 },
  )
  .map((parts) => parts.join('').replace(/\0/g, ''));
const nullableText = fc.option(hostileText, { nil: null });
const int32 = fc.integer({ min: -2_147_483_648, max: 2_147_483_647 });
const float = fc.double({ noNaN: true, noDefaultInfinity: true });

const stagingRow: fc.Arbitrary<StagingRow> = fc.record({
  upload_key: fc.constant('copy-roundtrip'),
  seq: fc.constant(0),
  fingerprint: hostileText,
  base: hostileText,
  twin_ordinal: fc.boolean(),
  maybe_repeat: fc.boolean(),
  category: hostileText,
  kind: fc.constantFrom('sast', 'sca', 'secret'),
  title: hostileText,
  severity: fc.constantFrom('critical', 'high', 'medium', 'low', 'info'),
  severity_rank: fc.integer({ min: 0, max: 4 }),
  severity_score: fc.option(float, { nil: null }),
  initial_status: fc.constantFrom('open', 'false_positive'),
  description: nullableText,
  remediation: nullableText,
  rule_id: nullableText,
  file_path: nullableText,
  line: fc.option(int32, { nil: null }),
  column: fc.option(int32, { nil: null }),
  end_line: fc.option(int32, { nil: null }),
  snippet: nullableText,
  package_name: nullableText,
  package_version: nullableText,
  fixed_version: nullableText,
  cve_ids: fc.array(hostileText, { maxLength: 4 }),
  cwe_ids: fc.array(int32, { maxLength: 4 }),
  cvss_score: fc.option(float, { nil: null }),
  cvss_vector: nullableText,
  references: fc.array(hostileText, { maxLength: 4 }),
  tool_name: hostileText,
  tool_version: nullableText,
  tool_fingerprint: nullableText,
  risk_severity: float,
  risk_exploitation: float,
});

describe('staging rows travel by COPY', () => {
  it('names every column of ingest_staging, so no staged value is left to a default', async () => {
    const columns = await sql<{ column_name: string }>`
      select column_name from information_schema.columns
      where table_name = 'ingest_staging' and table_schema = current_schema()`.execute(t.db);
    expect([...STAGING_COLUMNS].sort()).toEqual(columns.rows.map((row) => row.column_name).sort());
  });

  it('reads back every row exactly as written, whatever its text holds', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stagingRow, { minLength: 1, maxLength: 5 }), async (generated) => {
        const rows = generated.map((row, seq) => ({ ...row, seq }));
        await t.db.deleteFrom('ingest_staging').execute();
        const text = rows.map(stagingLine).join('');
        await t.database.copyFrom('ingest_staging', STAGING_COLUMNS, Buffer.from(text, 'utf8'));
        const stored = await t.db.selectFrom('ingest_staging').selectAll().orderBy('seq').execute();
        // -0 is stored as 0 by COPY's float parser; compare as the database sees numbers.
        const expected = rows.map((row) => JSON.parse(JSON.stringify(row)) as StagingRow);
        expect(stored.map((row) => JSON.parse(JSON.stringify(row)) as StagingRow)).toEqual(expected);
      }),
      { numRuns: 60 },
    );
    await t.db.deleteFrom('ingest_staging').execute();
  });

  it('refuses numbers COPY would read as NaN or Infinity', () => {
    expect(() => copyField(Number.NaN)).toThrow(RangeError);
    expect(() => copyField(Number.POSITIVE_INFINITY)).toThrow(RangeError);
    expect(copyField(-1.5e-7)).toBe('-1.5e-7');
  });
});
