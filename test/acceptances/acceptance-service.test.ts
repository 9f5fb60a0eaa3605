import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAcceptance } from '../../src/modules/acceptances/acceptances.service.ts';
import { makeApplication, makeFinding, makeUser, type TestUser } from '../support/factories.ts';
import { buildSarif } from '../support/sarif-builder.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { upload } from '../support/upload.ts';

let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await makeUser(t, { role: 'admin' });
});
afterAll(() => t.close());

const findingRow = (id: number) =>
  t.db.selectFrom('findings').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

describe('createAcceptance (the service VEX import calls)', () => {
  it('covers the open findings a rule matches at once, with its reason, and only those', async () => {
    const app = await makeApplication(t, admin);
    const matching = await makeFinding(t, app.id, { rule_id: 'js/xss', file_path: 'src/a.ts' });
    const elsewhere = await makeFinding(t, app.id, { rule_id: 'js/xss', file_path: 'test/a.ts' });
    const other = await makeFinding(t, app.id, { rule_id: 'js/sqli', file_path: 'src/a.ts' });
    const now = new Date();
    const result = await t.db.transaction().execute((trx) =>
      createAcceptance(
        trx,
        {
          applicationId: app.id,
          match: { ruleId: 'js/xss', pathPrefix: 'src/' },
          reason: 'accepted_risk',
          justification: 'vulnerable_code_not_in_execute_path',
          expiresAt: new Date(now.getTime() + 90 * 86_400_000),
        },
        { userId: admin.id, now },
      ),
    );
    expect(result).toMatchObject({ created: true, covered: 1 });
    expect(result.acceptance.status).toBe('active');
    expect(await findingRow(matching.id)).toMatchObject({
      status: 'false_positive',
      dismissal_reason: 'accepted_risk',
      acceptance_id: result.acceptance.id,
    });
    expect((await findingRow(elsewhere.id)).status).toBe('open');
    expect((await findingRow(other.id)).status).toBe('open');
    const timeline = await t.db
      .selectFrom('finding_events')
      .selectAll()
      .where('finding_id', '=', matching.id)
      .execute();
    expect(timeline.map((entry) => entry.type)).toEqual(['accepted']);
  });

  it('covers the same finding when an upload brings it into another version', async () => {
    const app = await makeApplication(t, admin);
    const sarif = buildSarif({ results: [{ ruleId: 'R1', path: 'src/x.ts', line: 3 }] });
    const token = { 'x-api-token': app.api_token };
    expect((await upload(t, '/api/ingest', token, { file: sarif, fileName: 'r.sarif' })).statusCode).toBe(
      201,
    );
    const [first] = await t.db
      .selectFrom('findings')
      .selectAll()
      .where('application_id', '=', app.id)
      .execute();
    const { acceptance } = await t.db
      .transaction()
      .execute((trx) =>
        createAcceptance(
          trx,
          { applicationId: app.id, match: { findingIds: [first!.id] }, reason: 'false_positive' },
          { userId: admin.id },
        ),
      );
    const response = await upload(t, '/api/ingest', token, {
      file: sarif,
      fileName: 'r.sarif',
      fields: { version: 'release-2' },
    });
    expect(response.statusCode).toBe(201);
    const rows = await t.db
      .selectFrom('findings')
      .select(['id', 'status', 'acceptance_id', 'dismissal_reason'])
      .where('application_id', '=', app.id)
      .orderBy('id')
      .execute();
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row).toMatchObject({
        status: 'false_positive',
        acceptance_id: acceptance.id,
        dismissal_reason: 'false_positive',
      });
    }
  });

  it('refuses an accepted risk without expiry, and a source key made twice makes one', async () => {
    const app = await makeApplication(t, admin);
    await expect(
      t.db
        .transaction()
        .execute((trx) =>
          createAcceptance(
            trx,
            { applicationId: app.id, match: { cve: 'CVE-2024-1' } },
            { userId: admin.id },
          ),
        ),
    ).rejects.toMatchObject({ status: 400, code: 'expiry_required' });
    const make = () =>
      t.db.transaction().execute((trx) =>
        createAcceptance(
          trx,
          {
            applicationId: app.id,
            match: { cve: 'CVE-2024-1', packageName: 'lodash' },
            reason: 'false_positive',
            justification: 'component_not_present',
            source: { type: 'vex', key: 'doc-1#stmt-1', author: 'Supplier' },
          },
          { userId: admin.id },
        ),
      );
    const first = await make();
    const second = await make();
    expect(first.created).toBe(true);
    expect(second).toMatchObject({ created: false });
    expect(second.acceptance.id).toBe(first.acceptance.id);
  });
});
