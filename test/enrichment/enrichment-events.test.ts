import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyEnrichment } from '../../src/domain/findings/enrichment.ts';
import { makeApplication, makeFinding, makeUser, type TestUser } from '../support/factories.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { upload } from '../support/upload.ts';

let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await makeUser(t, { role: 'admin' });
});
afterAll(() => t.close());

const epss = (day: string, rows: [string, number, number][]) =>
  `#model_version:v2025.03.14,score_date:${day}T00:00:00Z\ncve,epss,percentile\n${rows.map((row) => row.join(',')).join('\n')}\n`;

const importFile = async (file: string) => {
  const answer = await upload(t, '/api/admin/enrichment', admin.headers, { file, fileName: 'epss.csv' });
  expect([200, 201]).toContain(answer.statusCode);
  return answer;
};

const eventsOf = (findingId: number, type: string) =>
  t.db
    .selectFrom('events')
    .select(['type', 'data'])
    .where('finding_id', '=', findingId)
    .where('type', '=', type)
    .execute();

describe('finding.epss_changed and policies on kev / epss', () => {
  it('fires once per finding and snapshot when the percentile crosses the threshold, up then down', async () => {
    const app = await makeApplication(t, admin);
    const finding = await makeFinding(t, app.id, { cve_ids: ['CVE-2030-0001'] });
    const quiet = await makeFinding(t, app.id, { cve_ids: ['CVE-2030-0002'] });
    await importFile(
      epss('2030-01-01', [
        ['CVE-2030-0001', 0.01, 0.5],
        ['CVE-2030-0002', 0.2, 0.95],
      ]),
    );
    await applyEnrichment(t.db, 'all');
    // Known above the threshold from the start: that is a crossing up from "unknown" (below).
    expect(await eventsOf(quiet.id, 'finding.epss_changed')).toHaveLength(1);
    expect(await eventsOf(finding.id, 'finding.epss_changed')).toHaveLength(0);

    await importFile(
      epss('2030-01-02', [
        ['CVE-2030-0001', 0.6, 0.97],
        ['CVE-2030-0002', 0.3, 0.96],
      ]),
    );
    await applyEnrichment(t.db, 'all');
    await applyEnrichment(t.db, 'all');
    const up = await eventsOf(finding.id, 'finding.epss_changed');
    expect(up).toHaveLength(1);
    expect(up[0]!.data).toMatchObject({ direction: 'up', percentile: 0.97, previous_percentile: 0.5 });
    // The same snapshot again: nothing.
    await importFile(
      epss('2030-01-02', [
        ['CVE-2030-0001', 0.6, 0.97],
        ['CVE-2030-0002', 0.3, 0.96],
      ]),
    );
    await applyEnrichment(t.db, 'all');
    expect(await eventsOf(finding.id, 'finding.epss_changed')).toHaveLength(1);
    expect(await eventsOf(quiet.id, 'finding.epss_changed')).toHaveLength(1);

    // 0.97 → 0.018: down, once.
    await importFile(
      epss('2030-01-03', [
        ['CVE-2030-0001', 0.018, 0.3],
        ['CVE-2030-0002', 0.3, 0.96],
      ]),
    );
    await applyEnrichment(t.db, 'all');
    const events = await eventsOf(finding.id, 'finding.epss_changed');
    expect(events).toHaveLength(2);
    expect(events[1]!.data).toMatchObject({ direction: 'down', percentile: 0.3 });
  });

  it('policies match on kev and epss_percentile when those events fire', async () => {
    const app = await makeApplication(t, admin);
    const policy = await t.app.inject({
      method: 'POST',
      url: '/api/policies',
      headers: admin.headers,
      payload: {
        name: 'confirm exploited',
        scope_type: 'application',
        scope_id: app.id,
        event_types: ['finding.kev_listed', 'finding.epss_changed'],
        conditions: [
          { field: 'kev', op: 'eq', value: true },
          { field: 'epss_percentile', op: 'gte', value: 0.5 },
        ],
        actions: [{ type: 'change_status', target: 'confirmed' }],
      },
    });
    expect(policy.statusCode, policy.body).toBe(201);
    const bad = await t.app.inject({
      method: 'POST',
      url: '/api/policies',
      headers: admin.headers,
      payload: {
        name: 'bad',
        scope_type: 'application',
        scope_id: app.id,
        event_types: ['finding.kev_listed'],
        conditions: [{ field: 'epss', op: 'gte', value: 2 }],
        actions: [{ type: 'change_status', target: 'confirmed' }],
      },
    });
    expect(bad.statusCode).toBe(400);
    const listed = await makeFinding(t, app.id, { cve_ids: ['CVE-2031-0001'] });
    const low = await makeFinding(t, app.id, { cve_ids: ['CVE-2031-0002'] });
    const kev = {
      title: 'CISA Catalog of Known Exploited Vulnerabilities',
      catalogVersion: '2031.01.01',
      dateReleased: '2031-01-01T10:00:00Z',
      count: 2,
      vulnerabilities: ['CVE-2031-0001', 'CVE-2031-0002'].map((cveID) => ({
        cveID,
        vendorProject: 'Example',
        product: 'Widget',
        vulnerabilityName: 'Widget RCE',
        dateAdded: '2031-01-01',
        shortDescription: 'Remote code execution.',
        requiredAction: 'Apply updates per vendor instructions.',
        dueDate: '2031-01-22',
        knownRansomwareCampaignUse: 'Unknown',
        notes: '',
        cwes: ['CWE-94'],
      })),
    };
    // EPSS first: when KEV lists them, the policy sees both (a job may apply each import as it lands).
    await importFile(
      epss('2031-01-01', [
        ['CVE-2031-0001', 0.4, 0.8],
        ['CVE-2031-0002', 0.001, 0.1],
      ]),
    );
    await applyEnrichment(t.db, 'all');
    await importFile(JSON.stringify(kev));
    await applyEnrichment(t.db, 'all');
    const status = async (id: number) =>
      (await t.db.selectFrom('findings').select('status').where('id', '=', id).executeTakeFirstOrThrow())
        .status;
    expect(await status(listed.id)).toBe('confirmed');
    expect(await status(low.id)).toBe('open');
    expect(await eventsOf(listed.id, 'finding.kev_listed')).toHaveLength(1);
    expect(await eventsOf(low.id, 'finding.kev_listed')).toHaveLength(1);
  });
});
