import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
