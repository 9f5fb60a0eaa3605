import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CopyBinaryWriter } from '../../src/db/copy-binary.ts';
import {
  STAGING_COLUMNS,
  STAGING_COPY_TYPES,
  stagingValues,
  stagingWriter,
  type StagingRow,
} from '../../src/ingest/normalize-row.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

// Text as scanners write it and worse: the characters COPY's text format treats specially
// (backslash, tab, newline, carriage return), array syntax (braces, quotes, commas), `\N` spelled
// out, and any other code point PostgreSQL text holds (NUL excluded: the ingest strips it before
// staging). Binary COPY has no escapes, which is what this shows.
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
  concern: fc.constantFrom('security' as const, 'quality' as const),
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
  report_epss: fc.option(float, { nil: null }),
  report_epss_percentile: fc.option(float, { nil: null }),
  risk_severity: float,
  risk_exploitation: float,
});

describe('staging rows travel by COPY', () => {
  it('names every column of ingest_staging with its type, so no staged value is left to a default', async () => {
    const columns = await sql<{ column_name: string; udt_name: string }>`
      select column_name, udt_name from information_schema.columns
      where table_name = 'ingest_staging' and table_schema = current_schema()`.execute(t.db);
    // Binary COPY reads each field as its column's type: `text[]` is `_text` to the catalog.
    const declared = Object.entries(STAGING_COPY_TYPES).map(([column, type]) => [
      column,
      type.endsWith('[]') ? `_${type.slice(0, -2)}` : type,
    ]);
    expect(declared.sort()).toEqual(columns.rows.map((row) => [row.column_name, row.udt_name]).sort());
    expect([...STAGING_COLUMNS]).toEqual(Object.keys(STAGING_COPY_TYPES));
  });

  it('reads back every row exactly as written, whatever its text holds', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stagingRow, { minLength: 1, maxLength: 5 }), async (generated) => {
        const rows = generated.map((row, seq) => ({ ...row, seq }));
        await t.db.deleteFrom('ingest_staging').execute();
        const writer = stagingWriter();
        for (const row of rows) writer.row(stagingValues(row));
        await t.database.copyFrom('ingest_staging', STAGING_COLUMNS, writer.take());
        const stored = await t.db.selectFrom('ingest_staging').selectAll().orderBy('seq').execute();
        // Compared as JSON: -0 and 0 are one number to the merge.
        const expected = rows.map((row) => JSON.parse(JSON.stringify(row)) as StagingRow);
        expect(stored.map((row) => JSON.parse(JSON.stringify(row)) as StagingRow)).toEqual(expected);
      }),
      { numRuns: 60 },
    );
    await t.db.deleteFrom('ingest_staging').execute();
  });

  it('refuses numbers no column wants, and leaves no half-written row', () => {
    const writer = new CopyBinaryWriter(['text', 'float8', 'int4', 'int2']);
    writer.row(['kept', 1.5, 7, 3]);
    const before = writer.length;
    for (const values of [
      ['x', Number.NaN, 1, 1],
      ['x', Number.POSITIVE_INFINITY, 1, 1],
      ['x', 1, 1.5, 1],
      ['x', 1, 2 ** 31, 1],
      ['x', 1, 1, 40_000],
      ['x', 1, 1],
    ]) {
      expect(() => writer.row(values)).toThrow(RangeError);
      expect(writer.length).toBe(before);
    }
  });

  it('writes rows the same into a buffer of one byte as into a roomy one: each row makes all the room it needs', () => {
    // Rows are written without a check per field, into room made once for the row's largest
    // encoding; from a 1-byte buffer, the first row grows it to exactly that estimate, so an
    // estimate short of the bytes written would cut or corrupt the row here. Rows of any types, in
    // any order: a row of one type alone leaves no other field's spare room to hide a short estimate.
    const text = fc.oneof(
      hostileText,
      fc.string({ unit: 'binary', maxLength: 80 }).map((value) => value.replace(/\0/g, '')),
    );
    const field = fc.oneof(
      fc.tuple(fc.constant('text' as const), fc.option(text, { nil: null })),
      fc.tuple(
        fc.constant('int2' as const),
        fc.option(fc.integer({ min: -32_768, max: 32_767 }), { nil: null }),
      ),
      fc.tuple(fc.constant('int4' as const), fc.option(int32, { nil: null })),
      fc.tuple(fc.constant('float8' as const), fc.option(float, { nil: null })),
      fc.tuple(fc.constant('bool' as const), fc.option(fc.boolean(), { nil: null })),
      fc.tuple(
        fc.constant('timestamptz' as const),
        fc.option(fc.bigInt({ min: 0n, max: 10n ** 16n }), { nil: null }),
      ),
      fc.tuple(fc.constant('text[]' as const), fc.array(text, { maxLength: 5 })),
      fc.tuple(fc.constant('int4[]' as const), fc.array(int32, { maxLength: 5 })),
    );
    fc.assert(
      fc.property(
        fc.array(field, { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 1, max: 4 }),
        (fields, count) => {
          const types = fields.map(([type]) => type);
          const row = fields.map(([, value]) => value);
          const tight = new CopyBinaryWriter(types, 1);
          const roomy = new CopyBinaryWriter(types, 1 << 20);
          for (let written = 0; written < count; written++) {
            tight.row(row);
            roomy.row(row);
          }
          expect(tight.take().equals(roomy.take())).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('writes timestamps as microseconds since 2000 and grows past its first buffer', () => {
    const writer = new CopyBinaryWriter(['timestamptz', 'text'], 16);
    const long = 'é'.repeat(10_000);
    writer.row([new Date('2000-01-01T00:00:01.250Z'), long]);
    const rows = writer.take();
    // Field count, then the timestamp's length and value, then the text's length and bytes.
    expect(rows.readInt16BE(0)).toBe(2);
    expect(rows.readInt32BE(2)).toBe(8);
    expect(rows.readBigInt64BE(6)).toBe(1_250_000n);
    expect(rows.readInt32BE(14)).toBe(Buffer.byteLength(long));
    expect(rows.subarray(18).toString('utf8')).toBe(long);
  });
});
