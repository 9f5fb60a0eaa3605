import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FindingStatus, SeverityName } from '../../src/db/schema.ts';
import { compactFindingCounts } from '../../src/modules/findings/finding-counts.repository.ts';
import { listFindings } from '../../src/modules/findings/findings.service.ts';
import type { ListFindingsInput } from '../../src/modules/findings/findings.schema.ts';
import { grant, makeApplication, makeFinding, makeUser, type TestUser } from '../support/factories.ts';
import { buildSarif, manyResults } from '../support/sarif-builder.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { upload } from '../support/upload.ts';

let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await makeUser(t, { role: 'admin' });
});
afterAll(() => t.close());

const SEVERITIES: SeverityName[] = ['critical', 'high', 'medium', 'low', 'info'];
const STATUSES: FindingStatus[] = ['open', 'confirmed', 'false_positive', 'fixed'];
const RANK = { critical: 5, high: 4, medium: 3, low: 2, info: 1 } as const;

interface LedgerRow {
  application_id: number;
  version_id: number;
  severity: string;
  status: string;
  findings: number;
  risk: number;
  fixed_timed: number;
  fix_seconds: number;
}

/** The ledger summed per key, and the same figures counted from the findings: they must be equal. */
async function ledgerAndTruth(): Promise<{ ledger: LedgerRow[]; truth: LedgerRow[] }> {
  const order = sql`order by application_id, version_id, severity, status`;
  const ledger = await sql<LedgerRow>`select application_id, version_id, severity, status,
      sum(findings)::float8 as findings, sum(risk)::float8 as risk, sum(fixed_timed)::float8 as fixed_timed,
      round(sum(fix_seconds), 3)::float8 as fix_seconds
    from finding_counts group by application_id, version_id, severity, status
    having sum(findings) <> 0 or sum(risk) <> 0 or sum(fixed_timed) <> 0 or sum(fix_seconds) <> 0
    ${order}`.execute(t.db);
  const truth = await sql<LedgerRow>`select application_id, version_id, severity, status,
      count(*)::float8 as findings, sum(risk_score)::float8 as risk,
      (count(*) filter (where status = 'fixed' and fixed_at is not null))::float8 as fixed_timed,
      round(coalesce(sum(extract(epoch from fixed_at - first_seen_at)) filter (where status = 'fixed'), 0), 3)::float8
        as fix_seconds
    from findings f
    -- a finding counts once the scan that created it completes
    where not exists (select 1 from scans s where s.id = f.first_scan_id and s.status <> 'completed')
    group by application_id, version_id, severity, status ${order}`.execute(t.db);
  return { ledger: ledger.rows, truth: truth.rows };
}

async function expectLedgerExact(): Promise<void> {
  const { ledger, truth } = await ledgerAndTruth();
  expect(ledger).toEqual(truth);
}

async function versionOf(applicationId: number, name: string): Promise<number> {
  const row = await t.db
    .insertInto('application_versions')
    .values({ application_id: applicationId, name })
    .onConflict((oc) => oc.columns(['application_id', 'name']).doUpdateSet({ name }))
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

type Operation =
  | {
      kind: 'insert';
      version: number;
      /** By a scan still merging (a chunked merge on PGlite): not counted until it completes. */
      unfinished: boolean;
      rows: { severity: number; status: number; risk: number }[];
    }
  | { kind: 'complete' }
  | { kind: 'status'; pick: number; status: number }
  | { kind: 'severity'; pick: number; severity: number }
  | { kind: 'risk'; pick: number; risk: number }
  | { kind: 'touch'; pick: number }
  | { kind: 'delete'; pick: number }
  | { kind: 'delete_version'; version: number }
  | { kind: 'compact' };

const operation: fc.Arbitrary<Operation> = fc.oneof(
  fc.record({
    kind: fc.constant('insert' as const),
    version: fc.nat(2),
    unfinished: fc.boolean(),
    rows: fc.array(fc.record({ severity: fc.nat(4), status: fc.nat(3), risk: fc.nat(100) }), {
      minLength: 1,
      maxLength: 12,
    }),
  }),
  fc.record({ kind: fc.constant('status' as const), pick: fc.nat(6), status: fc.nat(3) }),
  fc.record({ kind: fc.constant('severity' as const), pick: fc.nat(6), severity: fc.nat(4) }),
  fc.record({ kind: fc.constant('risk' as const), pick: fc.nat(6), risk: fc.nat(100) }),
  fc.record({ kind: fc.constant('touch' as const), pick: fc.nat(6) }),
  fc.record({ kind: fc.constant('delete' as const), pick: fc.nat(6) }),
  fc.record({ kind: fc.constant('delete_version' as const), version: fc.nat(2) }),
  fc.constant({ kind: 'compact' as const }),
  fc.constant({ kind: 'complete' as const }),
);

describe('finding_counts ledger', () => {
  it('equals count(*) per version, severity and status of findings whose scan completed, after any mix of inserts, updates, deletes, folds and completions', async () => {
    const app = await makeApplication(t, admin);
    const scannerType = await t.db
      .selectFrom('scanner_types')
      .select('id')
      .where('name', '=', 'sarif')
      .executeTakeFirstOrThrow();
    let round = 0;
    // The scan that unfinished inserts belong to, made when needed (a version delete takes it along).
    let unfinished: number | undefined;
    const unfinishedScan = async (): Promise<number> => {
      const exists =
        unfinished !== undefined &&
        (await t.db.selectFrom('scans').select('id').where('id', '=', unfinished).executeTakeFirst());
      if (exists) return unfinished!;
      const scan = await t.db
        .insertInto('scans')
        .values({
          application_id: app.id,
          version_id: await versionOf(app.id, 'v0'),
          scanner_type: 'sarif',
          file_sha256: '0'.repeat(64),
          file_size: 1,
          uploaded_via: 'api_key',
          status: 'processing',
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return (unfinished = scan.id);
    };
    // As the merge's last transaction does: the scan completes and its counts join the ledger.
    const complete = async () => {
      if (unfinished === undefined) return;
      await t.db.updateTable('scans').set({ status: 'completed' }).where('id', '=', unfinished).execute();
      await sql`select publish_finding_counts(${unfinished}::integer)`.execute(t.db);
      unfinished = undefined;
    };
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 12 }), async (operations) => {
        round++;
        for (const op of operations) {
          // Rows are picked by id modulo: `pick` selects every finding whose id ≡ pick (mod 7), so
          // statements change several rows across versions and keys at once.
          const picked = sql<boolean>`application_id = ${app.id} and id % 7 = ${'pick' in op ? op.pick : 0}`;
          switch (op.kind) {
            case 'insert': {
              // An unfinished scan's findings are in its own version (v0), so deleting the version
              // deletes both; findings outside their scan's version are not something ingest makes.
              const firstScanId = op.unfinished ? await unfinishedScan() : null;
              const versionId = await versionOf(app.id, op.unfinished ? 'v0' : `v${op.version}`);
              await t.db
                .insertInto('findings')
                .values(
                  op.rows.map((row, index) => {
                    const severity = SEVERITIES[row.severity] ?? 'high';
                    const status = STATUSES[row.status] ?? 'open';
                    const fingerprint = `fp-${round}-${index}-${Math.random()}`;
                    return {
                      application_id: app.id,
                      version_id: versionId,
                      scanner_type_id: scannerType.id,
                      first_scan_id: firstScanId,
                      fingerprint,
                      identity_base: fingerprint,
                      kind: 'code',
                      title: 'Property',
                      severity,
                      severity_rank: RANK[severity],
                      status,
                      tool_name: 'TestTool',
                      risk_score: row.risk,
                      risk_severity: 5,
                      risk_exploitation: 0.2,
                      risk_age: 0,
                      risk_asset: 0.65,
                      risk_formula_version: 1,
                      first_seen_at: new Date(Date.now() - 86_400_000 * (1 + index)),
                      fixed_at: status === 'fixed' ? new Date(Date.now() - 1234.567 * index) : null,
                    };
                  }),
                )
                .execute();
              break;
            }
            case 'status': {
              const status = STATUSES[op.status] ?? 'open';
              await sql`update findings set status = ${status},
                fixed_at = case when ${status} = 'fixed' then now() - interval '1.5 hours' else null end
                where ${picked}`.execute(t.db);
              break;
            }
            case 'severity': {
              const severity = SEVERITIES[op.severity] ?? 'high';
              await sql`update findings set severity = ${severity}, severity_rank = ${RANK[severity]}
                where ${picked}`.execute(t.db);
              break;
            }
            case 'risk':
              await sql`update findings set risk_score = ${op.risk} where ${picked}`.execute(t.db);
              break;
            case 'touch':
              // An update of no counted column (what most ingest and triage updates are).
              await sql`update findings set last_seen_at = now(), present = not present where ${picked}`.execute(
                t.db,
              );
              break;
            case 'delete':
              await sql`delete from findings where ${picked}`.execute(t.db);
              break;
            case 'delete_version':
              await t.db
                .deleteFrom('application_versions')
                .where('application_id', '=', app.id)
                .where('name', '=', `v${op.version}`)
                .execute();
              break;
            case 'compact':
              await compactFindingCounts(t.db);
              break;
            case 'complete':
              // As the merge's last transaction does: the scan completes and its counts join the ledger.
              if (unfinished !== undefined) {
                await t.db
                  .updateTable('scans')
                  .set({ status: 'completed' })
                  .where('id', '=', unfinished)
                  .execute();
                await sql`select publish_finding_counts(${unfinished}::integer)`.execute(t.db);
                unfinished = undefined;
              }
              break;
          }
        }
        await expectLedgerExact();
      }),
      { numRuns: 40 },
    );
    // The tests below read every finding of this database as shown, which no unfinished scan hides here.
    await complete();
    await expectLedgerExact();
    // Folding leaves one row per key that has findings.
    await compactFindingCounts(t.db);
    const { ledger } = await ledgerAndTruth();
    const rows = await t.db
      .selectFrom('finding_counts')
      .select((eb) => eb.fn.countAll<number>().as('rows'))
      .executeTakeFirstOrThrow();
    expect(Number(rows.rows)).toBe(ledger.length);
  });

  it('a rolled-back statement leaves no trace, and deleting an application cancels its counts', async () => {
    const app = await makeApplication(t, admin);
    await makeFinding(t, app.id, { severity: 'critical', status: 'open' });
    await makeFinding(t, app.id, { severity: 'low', status: 'fixed', fixed_at: new Date() });
    await expect(
      t.db.transaction().execute(async (trx) => {
        await sql`update findings set status = 'confirmed' where application_id = ${app.id}`.execute(trx);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    await expectLedgerExact();
    await t.db.deleteFrom('applications').where('id', '=', app.id).execute();
    await expectLedgerExact();
    await compactFindingCounts(t.db);
    const left = await t.db
      .selectFrom('finding_counts')
      .selectAll()
      .where('application_id', '=', app.id)
      .execute();
    expect(left).toEqual([]);
  });

  it('ingest (new, re-upload, fixed by absence, reopened) and bulk triage keep the ledger exact', async () => {
    const app = await makeApplication(t, admin);
    const ingest = (count: number) =>
      upload(
        t,
        '/api/ingest',
        { 'x-api-token': app.api_token },
        {
          file: buildSarif({ results: manyResults(count) }),
          fileName: 'r.sarif',
          fields: { version: 'main' },
        },
      );
    expect((await ingest(30)).statusCode).toBe(201);
    await expectLedgerExact();
    expect((await ingest(30)).statusCode).toBe(201);
    expect((await ingest(12)).statusCode).toBe(201); // 18 fixed by absence
    await expectLedgerExact();
    expect((await ingest(25)).statusCode).toBe(201); // 13 reopened
    await expectLedgerExact();
    const ids = await t.db
      .selectFrom('findings')
      .select('id')
      .where('application_id', '=', app.id)
      .orderBy('id')
      .limit(5)
      .execute();
    const triage = await t.app.inject({
      method: 'PATCH',
      url: '/api/findings',
      headers: admin.headers,
      payload: { ids: ids.map((row) => row.id), status: 'confirmed' },
    });
    expect(triage.statusCode).toBeLessThan(300);
    await expectLedgerExact();
  });
});

describe.runIf(Boolean(process.env.TEST_DATABASE_URL))(
  'finding_counts under concurrency (PostgreSQL)',
  () => {
    it('two open transactions changing findings of one key both write without waiting on each other', async () => {
      const app = await makeApplication(t, admin);
      const first = await makeFinding(t, app.id, { severity: 'high', status: 'open' });
      const second = await makeFinding(t, app.id, { severity: 'high', status: 'open' });
      const pool = t.database.pool!;
      const [a, b] = [await pool.connect(), await pool.connect()];
      try {
        await a.query('begin');
        await b.query('begin');
        // A shared counter row would make b wait for a's commit: the timeout turns a wait into a failure.
        await b.query(`set local lock_timeout = '2s'`);
        await a.query(`update findings set status = 'confirmed' where id = $1`, [first.id]);
        await b.query(`update findings set status = 'confirmed' where id = $1`, [second.id]);
        await b.query('commit');
        await a.query('commit');
      } finally {
        a.release();
        b.release();
      }
      await expectLedgerExact();
    });
  },
);

describe('GET /api/findings total and pages', () => {
  it('total is the real count and every page the real slice, for each filter, sort and caller', async () => {
    const member = await makeUser(t);
    const readable = await makeApplication(t, admin);
    const hidden = await makeApplication(t, admin);
    await grant(t, member, readable.id, 'read');
    const otherVersion = await versionOf(readable.id, 'release');
    // Few risk values, so ties across statuses are broken by id.
    for (let index = 0; index < 60; index++) {
      const severity = SEVERITIES[index % 5] ?? 'high';
      const status = STATUSES[(index * 7) % 4] ?? 'open';
      await makeFinding(t, index % 3 === 0 ? hidden.id : readable.id, {
        severity,
        severity_rank: RANK[severity],
        status,
        risk_score: (index * 13) % 5,
        ...(index % 4 === 1 && index % 3 !== 0 ? { version_id: otherVersion } : {}),
        ...(index % 6 === 2 ? { assignee_id: member.id } : {}),
      });
    }
    const all = await t.db
      .selectFrom('findings')
      .select(['id', 'application_id', 'version_id', 'severity', 'status', 'risk_score', 'assignee_id'])
      .execute();
    const filters: { query: Partial<ListFindingsInput>; matches: (row: (typeof all)[number]) => boolean }[] =
      [
        { query: {}, matches: () => true },
        {
          query: { status: ['open,confirmed'] },
          matches: (row) => ['open', 'confirmed'].includes(row.status),
        },
        {
          query: { status: ['closed'], severity: ['high'] },
          matches: (row) => ['fixed', 'false_positive'].includes(row.status) && row.severity === 'high',
        },
        {
          query: { application_version_id: otherVersion },
          matches: (row) => row.version_id === otherVersion,
        },
        {
          query: { assigned_to: String(member.id), status: ['open,fixed'] },
          matches: (row) => row.assignee_id === member.id && ['open', 'fixed'].includes(row.status),
        },
      ];
    for (const [user, visible] of [
      // The admin reads every finding of this file's database, those of the tests above included.
      [admin, [...new Set(all.map((row) => row.application_id))]],
      [member, [readable.id]],
    ] as const) {
      for (const { query, matches } of filters) {
        for (const [applicationId, order] of [
          [undefined, 'desc'],
          [readable.id, 'asc'],
        ] as const) {
          const expected = all
            .filter((row) => visible.includes(row.application_id) && matches(row))
            .filter((row) => applicationId === undefined || row.application_id === applicationId)
            .sort((a, b) => (a.risk_score - b.risk_score || a.id - b.id) * (order === 'desc' ? -1 : 1))
            .map((row) => row.id);
          const got: number[] = [];
          for (let page = 1; page <= Math.ceil(expected.length / 7) + 1; page++) {
            const list = await listFindings(t.db, user.principal, {
              ...query,
              ...(applicationId === undefined ? {} : { application_id: applicationId }),
              sort_by: 'risk_score',
              order,
              page,
              per_page: 7,
            } as ListFindingsInput);
            expect(list.pagination.total).toBe(expected.length);
            got.push(...list.findings.map((finding) => finding.id));
          }
          expect(got).toEqual(expected);
        }
      }
    }
  });
});
