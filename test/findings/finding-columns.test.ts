import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import type { FindingsTable } from '../../src/db/schema.ts';
import {
  EXPORTED_FINDING_COLUMNS,
  FINDING_COLUMNS,
  PARSED_FIELD_CAPS,
  PRESENTED_FINDING_FIELDS,
  type FindingColumnName,
} from '../../src/domain/findings/columns.ts';
import { capFindingFields } from '../../src/ingest/cap-fields.ts';
import { emptyFinding, type NormalizedFinding } from '../../src/ingest/parse/parsers/types.ts';
import { csvHeader } from '../../src/modules/findings/findings-csv.presenter.ts';
import { FindingSchema } from '../../src/modules/findings/findings.schema.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

/**
 * The API's finding fields composed from several columns or from other tables, not one column each
 * (the SLA state is read from the due date, status and fixed date at a clock: domain/findings/sla.ts).
 */
const COMPOSED_FIELDS = [
  // EPSS: read from `finding_epss` (migration 2026-11-29T1600), not a column of `findings`.
  'epss',
  'epss_percentile',
  'kev',
  'enrichment',
  'scan_id',
  'scanner_type',
  'location',
  'risk',
  'assignee',
  'sla_days_remaining',
  'sla_breached',
];

describe('the finding column registry (domain/findings/columns.ts)', () => {
  it('names every column of findings with its type, as the database has them', async () => {
    const columns = await sql<{ column_name: string; udt_name: string }>`
      select column_name, udt_name from information_schema.columns
      where table_name = 'findings' and table_schema = current_schema()`.execute(t.db);
    // `text[]` is `_text` to the catalog.
    const declared = Object.entries(FINDING_COLUMNS).map(([column, { type }]) => [
      column,
      type.endsWith('[]') ? `_${type.slice(0, -2)}` : type,
    ]);
    expect(declared.sort()).toEqual(columns.rows.map((row) => [row.column_name, row.udt_name]).sort());
  });

  it('names the columns of the Kysely table type, no more, no less', () => {
    expectTypeOf<FindingColumnName>().toEqualTypeOf<keyof FindingsTable>();
  });

  it('presents each presented column in the API schema, which has no other field than composed ones', () => {
    const schemaFields = Object.keys(FindingSchema.properties);
    expect(schemaFields).toEqual(expect.arrayContaining([...PRESENTED_FINDING_FIELDS]));
    expect(schemaFields.filter((field) => !PRESENTED_FINDING_FIELDS.includes(field)).sort()).toEqual(
      [...COMPOSED_FIELDS].sort(),
    );
  });

  it('gives the CSV export its columns, in order, among the cells of other tables', () => {
    const headings = csvHeader().trimEnd().split(',');
    const exported = EXPORTED_FINDING_COLUMNS.map(([heading]) => heading);
    expect(headings.filter((heading) => exported.includes(heading))).toEqual(exported);
    expect(headings.filter((heading) => !exported.includes(heading))).toEqual([
      'scanner_type',
      'assignee',
      'sla_days_remaining',
      'sla_breached',
    ]);
  });

  it('caps every capped field of a parsed finding at the length it says', () => {
    const long = 'z'.repeat(100_000);
    const base = emptyFinding({ kind: 'code', title: long, severity: 'high', toolName: long });
    const overlong = { ...base } as Record<string, unknown>;
    for (const { field, items } of PARSED_FIELD_CAPS) {
      overlong[field] =
        items === undefined
          ? long
          : Array.from({ length: items + 10 }, (_, i) => (field === 'cweIds' ? i : long));
    }
    const capped = capFindingFields(overlong as unknown as NormalizedFinding) as unknown as Record<
      string,
      unknown
    >;
    for (const { field, cap, items } of PARSED_FIELD_CAPS) {
      const value = capped[field];
      if (items === undefined) {
        expect(value, field).toHaveLength(cap ?? Infinity);
        continue;
      }
      expect(value, field).toHaveLength(items);
      if (cap !== undefined) for (const entry of value as string[]) expect(entry, field).toHaveLength(cap);
    }
  });
});
