import type { PoolClient } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeApplication, makeFinding, makeUser, type TestUser } from '../support/factories.ts';
import { buildSarif } from '../support/sarif-builder.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { upload } from '../support/upload.ts';

// Every reference of a finding (application and version, scanner type, scans, assignee, reviewer) is
// checked per statement (migrations 2026-11-24T1700 and 2026-11-25T0100): everything a foreign key
// refused is refused, and what a foreign key's `on delete` did is done.

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

  it('refuses a finding whose assignee or reviewer does not exist, on insert and on update', async () => {
    const app = await makeApplication(t, admin);
    expect(await failureOf(makeFinding(t, app.id, { assignee_id: MISSING }))).toBe('23503');
    expect(await failureOf(makeFinding(t, app.id, { reviewed_by: MISSING }))).toBe('23503');
    const finding = await makeFinding(t, app.id, { assignee_id: admin.id, reviewed_by: admin.id });
    const assign = (column: 'assignee_id' | 'reviewed_by', id: number) =>
      t.db.updateTable('findings').set(column, id).where('id', '=', finding.id).execute();
    expect(await failureOf(assign('assignee_id', MISSING))).toBe('23503');
    expect(await failureOf(assign('reviewed_by', MISSING))).toBe('23503');
    expect(await failureOf(assign('assignee_id', admin.id))).toBeUndefined();
  });

  it('refuses moving a finding to another version or application', async () => {
    const mine = await makeApplication(t, admin);
    const theirs = await makeApplication(t, admin);
    const finding = await makeFinding(t, mine.id);
    const move = (set: { version_id: number; application_id?: number }) =>
      t.db.updateTable('findings').set(set).where('id', '=', finding.id).execute();
    expect(await failureOf(move({ version_id: theirs.default_version.id }))).toBe('23503');
    expect(await failureOf(move({ version_id: theirs.default_version.id, application_id: theirs.id }))).toBe(
      '23503',
    );
  });

  it("deleting users clears their findings' assignee and reviewer, and only theirs", async () => {
    const app = await makeApplication(t, admin);
    const [gone, alsoGone, staying] = [await makeUser(t), await makeUser(t), await makeUser(t)];
    const both = await makeFinding(t, app.id, { assignee_id: gone.id, reviewed_by: alsoGone.id });
    const mixed = await makeFinding(t, app.id, { assignee_id: staying.id, reviewed_by: gone.id });
    const untouched = await makeFinding(t, app.id, { assignee_id: staying.id, reviewed_by: staying.id });
    await t.db.deleteFrom('users').where('id', 'in', [gone.id, alsoGone.id]).execute();
    const people = (id: number) =>
      t.db
        .selectFrom('findings')
        .select(['assignee_id', 'reviewed_by'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
    expect(await people(both.id)).toEqual({ assignee_id: null, reviewed_by: null });
    expect(await people(mixed.id)).toEqual({ assignee_id: staying.id, reviewed_by: null });
    expect(await people(untouched.id)).toEqual({ assignee_id: staying.id, reviewed_by: staying.id });
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

/** A copy of one finding of the application under a new fingerprint, with `firstScan` as its scans. */
const copyFinding = (
  client: PoolClient,
  applicationId: number,
  fingerprint: string,
  firstScan: number | null = null,
) =>
  client.query<{ id: number }>(
    `insert into findings (application_id, version_id, scanner_type_id, first_scan_id, last_scan_id,
       fingerprint, identity_base, kind, title, severity, severity_rank, status, tool_name,
       risk_score, risk_severity, risk_exploitation, risk_age, risk_asset, risk_formula_version)
     select application_id, version_id, scanner_type_id, $1, $1, $2, $2, kind, title, severity,
       severity_rank, status, tool_name, risk_score, risk_severity, risk_exploitation, risk_age,
       risk_asset, risk_formula_version
     from findings where application_id = $3 limit 1 returning id`,
    [firstScan, fingerprint, applicationId],
  );

/**
 * `write` in an open transaction on one connection, then `remove` on another: the delete must wait
 * until the writer commits (what it references is held `for key share`). Returns what `write` did.
 */
async function deleteWaitsForWriter<T>(
  write: (client: PoolClient) => Promise<T>,
  remove: (client: PoolClient) => Promise<unknown>,
): Promise<T> {
  const [a, b] = [await t.database.pool!.connect(), await t.database.pool!.connect()];
  try {
    await a.query('begin');
    const written = await write(a);
    const deleting = remove(b);
    const early = await Promise.race([deleting.then(() => 'deleted'), sleep(300).then(() => 'waiting')]);
    expect(early).toBe('waiting');
    await a.query('commit');
    await deleting;
    return written;
  } finally {
    a.release();
    b.release();
  }
}

describe.runIf(Boolean(process.env.TEST_DATABASE_URL))(
  'finding references under concurrency (PostgreSQL)',
  () => {
    it('a scan deleted while a finding referencing it is being inserted: the delete waits, then clears it', async () => {
      const { app, scanId } = await ingested(1);
      const inserted = await deleteWaitsForWriter(
        (client) => copyFinding(client, app.id, 'concurrent', scanId),
        (client) => client.query('delete from scans where id = $1', [scanId]),
      );
      const row = await t.db
        .selectFrom('findings')
        .select(['first_scan_id', 'last_scan_id'])
        .where('id', '=', inserted.rows[0]!.id)
        .executeTakeFirstOrThrow();
      expect(row).toEqual({ first_scan_id: null, last_scan_id: null });
    });

    it('a version deleted while findings are being inserted into it: the delete waits, then deletes them', async () => {
      const { app } = await ingested(1);
      await deleteWaitsForWriter(
        (client) => copyFinding(client, app.id, 'racing'),
        (client) => client.query('delete from application_versions where application_id = $1', [app.id]),
      );
      expect(await findingsOf(app.id)).toEqual([]);
    });

    it('a user deleted while being assigned a finding: the delete waits, then clears the assignment', async () => {
      const { app } = await ingested(1);
      const [finding] = await findingsOf(app.id);
      const assignee = await makeUser(t);
      await deleteWaitsForWriter(
        (client) =>
          client.query('update findings set assignee_id = $1 where id = $2', [assignee.id, finding!.id]),
        (client) => client.query('delete from users where id = $1', [assignee.id]),
      );
      const row = await t.db
        .selectFrom('findings')
        .select('assignee_id')
        .where('id', '=', finding!.id)
        .executeTakeFirstOrThrow();
      expect(row.assignee_id).toBeNull();
    });

    it('a finding inserted while its scan is being deleted fails once the delete commits', async () => {
      const { app, scanId } = await ingested(1);
      const [a, b] = [await t.database.pool!.connect(), await t.database.pool!.connect()];
      try {
        await b.query('begin');
        await b.query('delete from scans where id = $1', [scanId]);
        const inserting = copyFinding(a, app.id, 'late', scanId).then(
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
