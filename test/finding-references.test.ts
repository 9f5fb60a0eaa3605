import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeApplication, makeFinding, makeUser, type TestUser } from './support/factories.ts';
import { buildSarif } from './support/sarif-builder.ts';
import { createTestApp, type TestApp } from './support/test-app.ts';
import { upload } from './support/upload.ts';

// A finding's scanner type and scans are checked per statement, its application and version by one
// composite foreign key (migration 2026-11-24T1700): everything a foreign key refused is refused.

let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await makeUser(t, { role: 'admin' });
});
afterAll(() => t.close());

const MISSING = 2_000_000_000;

/** The SQLSTATE a statement fails with (undefined: it succeeded). */
async function failureOf(statement: Promise<unknown>): Promise<string | undefined> {
  try {
    await statement;
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  }
}

/** An application with one ingested scan of `count` findings. */
async function ingested(count: number) {
  const app = await makeApplication(t, admin);
  const results = Array.from({ length: count }, (_, n) => ({
    ruleId: `rule-${n}`,
    path: `src/file-${n}.ts`,
    line: n + 1,
  }));
  const response = await upload(
    t,
    '/api/ingest',
    { 'x-api-token': app.api_token },
    { file: buildSarif({ results }) },
  );
  expect(response.statusCode, response.body).toBe(201);
  const scanId = (response.json() as { scan: { id: number } }).scan.id;
  return { app, scanId };
}

const findingsOf = (applicationId: number) =>
  t.db
    .selectFrom('findings')
    .select(['id', 'first_scan_id', 'last_scan_id'])
    .where('application_id', '=', applicationId)
    .orderBy('id')
    .execute();

describe('finding references', () => {
  it('refuses a finding whose scanner type, first scan or last scan does not exist', async () => {
    const app = await makeApplication(t, admin);
    expect(await failureOf(makeFinding(t, app.id, { scanner_type_id: MISSING }))).toBe('23503');
    expect(await failureOf(makeFinding(t, app.id, { first_scan_id: MISSING }))).toBe('23503');
    expect(await failureOf(makeFinding(t, app.id, { last_scan_id: MISSING }))).toBe('23503');
    expect(await failureOf(makeFinding(t, app.id))).toBeUndefined();
  });

  it("refuses a finding whose version is another application's", async () => {
    const mine = await makeApplication(t, admin);
    const theirs = await makeApplication(t, admin);
    expect(await failureOf(makeFinding(t, mine.id, { version_id: theirs.default_version.id }))).toBe('23503');
  });

  it('refuses an update that points a finding at a scan that does not exist', async () => {
    const { app } = await ingested(2);
    const [finding] = await findingsOf(app.id);
    const update = t.db
      .updateTable('findings')
      .set({ last_scan_id: MISSING })
      .where('id', '=', finding!.id)
      .execute();
    expect(await failureOf(update)).toBe('23503');
  });

  it("deleting a scan clears its findings' first and last scan, and only those", async () => {
    const { app, scanId } = await ingested(3);
    const other = await ingested(2);
    await t.db.deleteFrom('scans').where('id', '=', scanId).execute();
    for (const finding of await findingsOf(app.id)) {
      expect(finding).toMatchObject({ first_scan_id: null, last_scan_id: null });
    }
    for (const finding of await findingsOf(other.app.id)) {
      expect(finding).toMatchObject({ first_scan_id: other.scanId, last_scan_id: other.scanId });
    }
  });

  it('refuses to delete a scanner type that findings use', async () => {
    const { app } = await ingested(1);
    const used = await t.db
      .selectFrom('findings')
      .select('scanner_type_id')
      .where('application_id', '=', app.id)
      .executeTakeFirstOrThrow();
    const remove = t.db.deleteFrom('scanner_types').where('id', '=', used.scanner_type_id).execute();
    expect(await failureOf(remove)).toBe('23503');
  });

  it("deleting a version, or its application, deletes the version's findings", async () => {
    const first = await ingested(2);
    await t.db.deleteFrom('application_versions').where('application_id', '=', first.app.id).execute();
    expect(await findingsOf(first.app.id)).toEqual([]);
    const second = await ingested(2);
    await t.db.deleteFrom('applications').where('id', '=', second.app.id).execute();
    expect(await findingsOf(second.app.id)).toEqual([]);
  });
});

describe.runIf(Boolean(process.env.TEST_DATABASE_URL))(
  'finding references under concurrency (PostgreSQL)',
  () => {
    it('a scan deleted while a finding referencing it is being inserted: the delete waits, then clears it', async () => {
      const { app, scanId } = await ingested(1);
      const [a, b] = [await t.database.pool!.connect(), await t.database.pool!.connect()];
      try {
        await a.query('begin');
        const inserted = await a.query<{ id: number }>(
          `insert into findings (application_id, version_id, scanner_type_id, first_scan_id, last_scan_id,
           fingerprint, identity_base, kind, title, severity, severity_rank, status, tool_name,
           risk_score, risk_severity, risk_exploitation, risk_age, risk_asset, risk_formula_version)
         select application_id, version_id, scanner_type_id, $1, $1, 'concurrent', 'concurrent', kind, title,
           severity, severity_rank, status, tool_name, risk_score, risk_severity, risk_exploitation, risk_age,
           risk_asset, risk_formula_version
         from findings where application_id = $2 limit 1 returning id`,
          [scanId, app.id],
        );
        const deleting = b.query('delete from scans where id = $1', [scanId]);
        // The insert holds the scan `for key share`: the delete cannot finish before it commits.
        const early = await Promise.race([deleting.then(() => 'deleted'), sleep(300).then(() => 'waiting')]);
        expect(early).toBe('waiting');
        await a.query('commit');
        await deleting;
        const row = await t.db
          .selectFrom('findings')
          .select(['first_scan_id', 'last_scan_id'])
          .where('id', '=', inserted.rows[0]!.id)
          .executeTakeFirstOrThrow();
        expect(row).toEqual({ first_scan_id: null, last_scan_id: null });
      } finally {
        a.release();
        b.release();
      }
    });

    it('a finding inserted while its scan is being deleted fails once the delete commits', async () => {
      const { app, scanId } = await ingested(1);
      const [a, b] = [await t.database.pool!.connect(), await t.database.pool!.connect()];
      try {
        await b.query('begin');
        await b.query('delete from scans where id = $1', [scanId]);
        const inserting = a
          .query(
            `insert into findings (application_id, version_id, scanner_type_id, first_scan_id, last_scan_id,
             fingerprint, identity_base, kind, title, severity, severity_rank, status, tool_name,
             risk_score, risk_severity, risk_exploitation, risk_age, risk_asset, risk_formula_version)
           select application_id, version_id, scanner_type_id, $1, $1, 'late', 'late', kind, title, severity,
             severity_rank, status, tool_name, risk_score, risk_severity, risk_exploitation, risk_age,
             risk_asset, risk_formula_version
           from findings where application_id = $2 limit 1`,
            [scanId, app.id],
          )
          .then(
            () => undefined,
            (error: { code?: string }) => error.code,
          );
        await sleep(300);
        await b.query('commit');
        expect(await inserting).toBe('23503');
      } finally {
        a.release();
        b.release();
      }
    });
  },
);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
