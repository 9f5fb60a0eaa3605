import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conditionSql } from '../../src/domain/policies/conditions.ts';
import { listFindings } from '../../src/modules/findings/findings.service.ts';
import type { ListFindingsInput } from '../../src/modules/findings/findings.schema.ts';
import { grant, makeApplication, makeFinding, makeUser, type TestUser } from '../support/factories.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await makeUser(t, { role: 'admin' });
});
afterAll(() => t.close());

/** Few values, so ties are broken by id; null (no EPSS) often, as an upload's findings have none. */
const EPSS = fc.oneof(fc.constant(null), fc.constantFrom(0.01, 0.5, 0.97));

/** The list's order by EPSS: EPSS in `order`, ties by id in `order`, findings without one last. */
function expectedOrder(rows: { id: number; epss: number | null }[], order: 'asc' | 'desc'): number[] {
  const sign = order === 'desc' ? -1 : 1;
  return [...rows]
    .sort((a, b) => {
      if (a.epss === null || b.epss === null) {
        if (a.epss !== b.epss) return a.epss === null ? 1 : -1;
        return sign * (a.id - b.id);
      }
      return sign * (a.epss - b.epss || a.id - b.id);
    })
    .map((row) => row.id);
}

describe('GET /api/findings?sort_by=epss pages', () => {
  it('yield every finding exactly once, in EPSS order with those without one last, whatever the page size, direction and caller', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(EPSS, { minLength: 0, maxLength: 24 }),
        fc.array(EPSS, { minLength: 0, maxLength: 6 }),
        fc.integer({ min: 1, max: 7 }),
        fc.constantFrom('asc' as const, 'desc' as const),
        fc.boolean(),
        async (values, otherValues, perPage, order, byMember) => {
          const application = await makeApplication(t, admin);
          // Another application's findings, which the member may not read and the filter leaves out.
          const other = await makeApplication(t, admin);
          const member = await makeUser(t);
          await grant(t, member, application.id, 'read');
          const rows: { id: number; epss: number | null }[] = [];
          for (const epss of values) rows.push(await makeFinding(t, application.id, { epss }));
          for (const epss of otherValues) await makeFinding(t, other.id, { epss });
          const expected = expectedOrder(rows, order);
          const got: number[] = [];
          for (let page = 1; page <= Math.ceil(expected.length / perPage) + 1; page++) {
            // The member reads this one application without naming it; the admin names it.
            const list = await listFindings(t.db, (byMember ? member : admin).principal, {
              ...(byMember ? {} : { application_id: application.id }),
              sort_by: 'epss',
              order,
              page,
              per_page: perPage,
            } as ListFindingsInput);
            expect(list.pagination.total).toBe(expected.length);
            got.push(...list.findings.map((finding) => finding.id));
          }
          expect(got).toEqual(expected);
        },
      ),
      { numRuns: 25 },
    );
  }, 180_000);
});

/**
 * A finding's EPSS in either place: its `finding_epss` row (a snapshot's), its report's own
 * (`report_epss`), both (the row wins) or neither.
 */
const PLACED = fc.record({ row: EPSS, report: EPSS });

describe("the report's EPSS in the list and in policies (issue 45 item 3)", () => {
  it('epss_min, sort_by=epss and the conditions epss / epss_percentile read the value the API shows', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(PLACED, { minLength: 0, maxLength: 16 }),
        fc.integer({ min: 1, max: 6 }),
        fc.constantFrom('asc' as const, 'desc' as const),
        fc.constantFrom(0.01, 0.5, 0.97),
        async (placed, perPage, order, min) => {
          const application = await makeApplication(t, admin);
          const rows: { id: number; epss: number | null }[] = [];
          for (const { row, report } of placed) {
            const finding = await makeFinding(t, application.id, {
              epss: row,
              // The percentile beside each value, one tenth of it, so the two are told apart.
              epss_percentile: row === null ? null : row / 10,
              report_epss: report,
              report_epss_percentile: report === null ? null : report / 10,
            });
            rows.push({ id: finding.id, epss: row ?? report });
          }
          // What the API shows for each finding is the value the model expects.
          const shown = await listFindings(t.db, admin.principal, {
            application_id: application.id,
            per_page: 100,
          } as ListFindingsInput);
          expect(
            new Map(shown.findings.map((finding) => [finding.id, [finding.epss, finding.epss_percentile]])),
          ).toEqual(
            new Map(rows.map((row) => [row.id, [row.epss, row.epss === null ? null : row.epss / 10]])),
          );

          const expected = expectedOrder(rows, order);
          const got: number[] = [];
          for (let page = 1; page <= Math.ceil(expected.length / perPage) + 1; page++) {
            const list = await listFindings(t.db, admin.principal, {
              application_id: application.id,
              sort_by: 'epss',
              order,
              page,
              per_page: perPage,
            } as ListFindingsInput);
            got.push(...list.findings.map((finding) => finding.id));
          }
          expect(got).toEqual(expected);

          const atLeast = rows.filter((row) => row.epss !== null && row.epss >= min).map((row) => row.id);
          const filtered = await listFindings(t.db, admin.principal, {
            application_id: application.id,
            epss_min: min,
            per_page: 100,
          } as ListFindingsInput);
          expect(filtered.findings.map((finding) => finding.id).sort((a, b) => a - b)).toEqual(atLeast);

          for (const [field, bound] of [
            ['epss', min],
            ['epss_percentile', min / 10],
          ] as const) {
            const matched = await sql<{ id: number }>`select f.id from findings f
              where f.application_id = ${application.id}
                and ${conditionSql({ field, op: 'gte', value: bound })} order by f.id`.execute(t.db);
            expect(matched.rows.map((row) => row.id)).toEqual(atLeast);
          }
        },
      ),
      { numRuns: 25 },
    );
  }, 180_000);
});
