import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listFindings } from '../../src/modules/findings/findings.service.ts';
import type { ListFindingsInput } from '../../src/modules/findings/findings.schema.ts';
import { FINDING_STATUSES, type FindingStatus } from '../../src/domain/findings/lifecycle.ts';
import { grant, makeApplication, makeFinding, makeUser, type TestUser } from '../support/factories.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

/**
 * The findings list against a reference computed here from the rows themselves: whichever way the
 * list reads a page (one walk of a risk index, or one walk per readable application merged, see
 * `findingPage`), every page is the reference's slice, for admins and members, each sort and
 * direction, with and without a status or assignee filter.
 */
let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await makeUser(t, { role: 'admin' });
});
afterAll(() => t.close());

const SORTS = ['risk_score', 'severity', 'title', 'created_at', 'epss'] as const;
type Sort = (typeof SORTS)[number];
const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
const RANK = { critical: 5, high: 4, medium: 3, low: 2, info: 1 } as const;

/** Few values of each column, so ties (broken by id) are common; plain words sort alike in any collation. */
const FINDING = fc.record({
  application: fc.nat({ max: 3 }),
  status: fc.constantFrom(...FINDING_STATUSES),
  risk: fc.constantFrom(10, 42, 50, 90),
  severity: fc.constantFrom(...SEVERITIES),
  title: fc.constantFrom('alpha', 'bravo', 'charlie'),
  createdSecond: fc.nat({ max: 3 }),
  epss: fc.oneof(fc.constant(null), fc.constantFrom(0.01, 0.5)),
  assignedToMember: fc.boolean(),
});

interface Row {
  id: number;
  application_id: number;
  status: FindingStatus;
  risk_score: number;
  severity_rank: number;
  title: string;
  created_at: number;
  epss: number | null;
  assignee_id: number | null;
}

/** The list's order: the sort column in `order`, ties by id in `order`; by EPSS, findings without one last. */
function reference(rows: Row[], sort: Sort, order: 'asc' | 'desc'): number[] {
  const sign = order === 'desc' ? -1 : 1;
  const key = (row: Row): number | string | null =>
    sort === 'severity' ? row.severity_rank : sort === 'risk_score' ? row.risk_score : row[sort];
  return [...rows]
    .sort((a, b) => {
      const x = key(a);
      const y = key(b);
      if (x === null || y === null) {
        if (x !== y) return x === null ? 1 : -1;
        return sign * (a.id - b.id);
      }
      const byKey = x < y ? -1 : x > y ? 1 : 0;
      return sign * (byKey || a.id - b.id);
    })
    .map((row) => row.id);
}

describe('GET /api/findings pages', () => {
  it('are the slices of a reference order, for admins and members, each sort, direction and page size', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(FINDING, { minLength: 10, maxLength: 40, size: 'max' }),
        fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
        fc.integer({ min: 2, max: 9 }),
        fc.option(fc.subarray([...FINDING_STATUSES], { minLength: 1 }), { nil: undefined }),
        fc.boolean(),
        async (findings, grants, perPage, statuses, assignedToMe) => {
          // Each run starts from no findings, so the admin's list is this run's findings.
          await sql`delete from findings`.execute(t.db);
          const applications = [];
          for (let i = 0; i < 4; i++) applications.push(await makeApplication(t, admin));
          const member = await makeUser(t);
          for (const [i, granted] of grants.entries()) {
            if (granted) await grant(t, member, applications[i]!.id, 'read');
          }
          for (const finding of findings) {
            await makeFinding(t, applications[finding.application]!.id, {
              status: finding.status,
              risk_score: finding.risk,
              severity: finding.severity,
              severity_rank: RANK[finding.severity],
              title: finding.title,
              created_at: new Date(Date.UTC(2026, 10, 1, 12, 0, finding.createdSecond)),
              epss: finding.epss,
              assignee_id: finding.assignedToMember ? member.id : null,
            });
          }
          const rows = (
            await t.db
              .selectFrom('findings')
              // EPSS is in `finding_epss` (migration 2026-11-29T1600).
              .leftJoin('finding_epss', 'finding_epss.finding_id', 'findings.id')
              .select([
                'findings.id',
                'findings.application_id',
                'findings.status',
                'findings.risk_score',
                'findings.severity_rank',
                'findings.title',
                'findings.created_at',
                'finding_epss.epss',
                'findings.assignee_id',
              ])
              .execute()
          ).map((row): Row => ({
            ...row,
            id: Number(row.id),
            risk_score: Number(row.risk_score),
            severity_rank: Number(row.severity_rank),
            created_at: new Date(row.created_at).getTime(),
            epss: row.epss === null ? null : Number(row.epss),
            assignee_id: row.assignee_id === null ? null : Number(row.assignee_id),
          }));
          for (const caller of [admin, member]) {
            const readable = new Set(
              applications
                .filter((_, i) => caller === admin || grants[i])
                .map((application) => application.id),
            );
            const selected = rows.filter(
              (row) =>
                readable.has(row.application_id) &&
                (statuses === undefined || statuses.includes(row.status)) &&
                (!assignedToMe || row.assignee_id === caller.id),
            );
            for (const sort of SORTS) {
              for (const order of ['asc', 'desc'] as const) {
                const expected = reference(selected, sort, order);
                const got: number[] = [];
                for (let page = 1; page <= Math.ceil(expected.length / perPage) + 1; page++) {
                  const list = await listFindings(t.db, caller.principal, {
                    ...(statuses ? { status: statuses } : {}),
                    ...(assignedToMe ? { assigned_to: 'me' } : {}),
                    sort_by: sort,
                    order,
                    page,
                    per_page: perPage,
                  } as ListFindingsInput);
                  expect(list.pagination.total).toBe(expected.length);
                  const ids = list.findings.map((finding) => finding.id);
                  expect(ids, `${sort} ${order} page ${page}`).toEqual(
                    expected.slice((page - 1) * perPage, page * perPage),
                  );
                  got.push(...ids);
                }
                expect(got).toEqual(expected);
              }
            }
          }
        },
      ),
      { numRuns: 12 },
    );
  }, 300_000);
});
