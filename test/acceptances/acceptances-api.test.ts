import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAcceptanceExpiry } from '../../src/modules/acceptances/acceptance-expiry.ts';
import { grant, makeApplication, makeFinding, makeUser, type TestUser } from '../support/factories.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

let t: TestApp;
let admin: TestUser;
let author: TestUser;
let approver: TestUser;
let reader: TestUser;
let outsider: TestUser;

const DAY = 86_400_000;

beforeAll(async () => {
  t = await createTestApp();
  admin = await makeUser(t, { role: 'admin' });
  author = await makeUser(t);
  approver = await makeUser(t);
  reader = await makeUser(t);
  outsider = await makeUser(t);
}, 600_000);
afterAll(() => t.close());

async function appWithCast() {
  const app = await makeApplication(t, admin);
  await grant(t, author, app.id, 'write');
  await grant(t, approver, app.id, 'write');
  await grant(t, reader, app.id, 'read');
  return app;
}

const post = (user: TestUser | null, url: string, payload: object = {}) =>
  t.app.inject({ method: 'POST', url, payload, ...(user ? { headers: user.headers } : {}) });
const findingRow = (id: number) =>
  t.db.selectFrom('findings').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const timelineTypes = async (id: number) =>
  (
    await t.db
      .selectFrom('finding_events')
      .select('type')
      .where('finding_id', '=', id)
      .orderBy('id')
      .execute()
  ).map((row) => row.type);
const outbox = (type: string) => t.db.selectFrom('events').selectAll().where('type', '=', type).execute();

describe('POST /api/acceptances', () => {
  it('401, 404 to an outsider, 403 to a reader, 400 per bad field; nothing is made', async () => {
    const app = await appWithCast();
    const finding = await makeFinding(t, app.id);
    const body = { application_id: app.id, finding_ids: [finding.id], reason: 'wont_fix' };
    expect((await post(null, '/api/acceptances', body)).statusCode).toBe(401);
    expect((await post(outsider, '/api/acceptances', body)).statusCode).toBe(404);
    expect((await post(reader, '/api/acceptances', body)).statusCode).toBe(403);
    const noExpiry = await post(author, '/api/acceptances', { ...body, reason: 'accepted_risk' });
    expect(noExpiry.statusCode).toBe(400);
    expect(noExpiry.json()).toMatchObject({ code: 'expiry_required' });
    const both = await post(author, '/api/acceptances', { ...body, cve: 'CVE-2024-0001' });
    expect(both.statusCode).toBe(400);
    const badJustification = await post(author, '/api/acceptances', { ...body, justification: 'because' });
    expect(badJustification.statusCode).toBe(400);
    const past = await post(author, '/api/acceptances', { ...body, expires_at: '2001-01-01' });
    expect(past.statusCode).toBe(400);
    const elsewhere = await makeFinding(t, (await makeApplication(t, admin)).id);
    const foreign = await post(author, '/api/acceptances', { ...body, finding_ids: [elsewhere.id] });
    expect(foreign.statusCode).toBe(404);
    const made = await t.db
      .selectFrom('acceptances')
      .select('id')
      .where('application_id', '=', app.id)
      .execute();
    expect(made).toEqual([]);
    expect((await findingRow(finding.id)).status).toBe('open');
  });

  it('caps an accepted risk by the settings for the worst severity it matches', async () => {
    const app = await appWithCast();
    const finding = await makeFinding(t, app.id, { severity: 'critical' });
    const settings = await t.app.inject({
      method: 'PUT',
      url: `/api/groups/${app.group_id}/acceptance-settings`,
      headers: admin.headers,
      payload: { max_days: { critical: 30, high: 90 } },
    });
    expect(settings.statusCode, settings.body).toBe(200);
    expect(settings.json().effective.max_days).toMatchObject({ critical: 30 });
    const tooFar = await post(author, '/api/acceptances', {
      application_id: app.id,
      finding_ids: [finding.id],
      expires_at: new Date(Date.now() + 60 * DAY).toISOString(),
    });
    expect(tooFar.statusCode).toBe(400);
    expect(tooFar.json()).toMatchObject({ code: 'expiry_too_far', max_days: 30, severity: 'critical' });
    const within = await post(author, '/api/acceptances', {
      application_id: app.id,
      finding_ids: [finding.id],
      expires_at: new Date(Date.now() + 20 * DAY).toISOString(),
    });
    expect(within.statusCode, within.body).toBe(201);
    expect(within.json()).toMatchObject({ status: 'active', covered_findings: 1, reason: 'accepted_risk' });
  });
});

describe('an accepted risk for 90 days, approved by a second person, back by itself on day 91', () => {
  it('pending changes nothing; the author cannot approve; a second writer can; expiry reopens', async () => {
    const app = await appWithCast();
    await t.app.inject({
      method: 'PUT',
      url: `/api/groups/${app.group_id}/acceptance-settings`,
      headers: admin.headers,
      payload: { four_eyes: true, expiring_notice_days: 7 },
    });
    const finding = await makeFinding(t, app.id, { cve_ids: ['CVE-2024-1234'], package_name: 'lodash' });
    const unrelated = await makeFinding(t, app.id, { cve_ids: ['CVE-2024-9999'], package_name: 'lodash' });
    const start = new Date();
    const created = await post(author, '/api/acceptances', {
      application_id: app.id,
      cve: 'CVE-2024-1234',
      package: 'lodash',
      justification: 'vulnerable_code_not_in_execute_path',
      expires_at: new Date(start.getTime() + 90 * DAY).toISOString(),
    });
    expect(created.statusCode, created.body).toBe(201);
    const acceptance = created.json();
    expect(acceptance).toMatchObject({ status: 'pending', covered_findings: 0, created_by: author.id });
    expect((await findingRow(finding.id)).status).toBe('open');

    const self = await post(author, `/api/acceptances/${acceptance.id}/approve`);
    expect(self.statusCode).toBe(403);
    expect(self.json()).toMatchObject({ code: 'four_eyes' });
    expect((await post(reader, `/api/acceptances/${acceptance.id}/approve`)).statusCode).toBe(403);
    expect((await post(outsider, `/api/acceptances/${acceptance.id}/approve`)).statusCode).toBe(404);

    const approved = await post(approver, `/api/acceptances/${acceptance.id}/approve`, { comment: 'ok' });
    expect(approved.statusCode, approved.body).toBe(200);
    expect(approved.json()).toMatchObject({ status: 'active', decided_by: approver.id, covered_findings: 1 });
    expect(await findingRow(finding.id)).toMatchObject({
      status: 'false_positive',
      dismissal_reason: 'accepted_risk',
      acceptance_id: acceptance.id,
    });
    expect((await findingRow(unrelated.id)).status).toBe('open');
    expect(await timelineTypes(finding.id)).toEqual(['acceptance_approved', 'accepted']);
    expect((await outbox('acceptance.approved')).some((e) => e.application_id === app.id)).toBe(true);

    // A person cannot reopen a covered finding while the acceptance stands.
    const reopen = await t.app.inject({
      method: 'PATCH',
      url: `/api/findings/${finding.id}/status`,
      headers: author.headers,
      payload: { status: 'open' },
    });
    expect(reopen.statusCode).toBe(409);
    expect(reopen.json()).toMatchObject({ code: 'covered_by_acceptance' });

    // Day 84: nothing yet. Day 85: one notice. Day 91: expired, the finding open again.
    const at = (days: number) => new Date(start.getTime() + days * DAY);
    const early = await runAcceptanceExpiry(t.db, t.jobs, at(80));
    expect([...early.expired, ...early.expiring]).not.toContain(acceptance.id);
    const notice = await runAcceptanceExpiry(t.db, t.jobs, at(85));
    expect(notice.expiring).toContain(acceptance.id);
    expect((await runAcceptanceExpiry(t.db, t.jobs, at(86))).expiring).not.toContain(acceptance.id);
    const day91 = at(91);
    const run = await runAcceptanceExpiry(t.db, t.jobs, day91);
    expect(run.expired).toContain(acceptance.id);
    const back = await findingRow(finding.id);
    expect(back).toMatchObject({ status: 'open', acceptance_id: null, dismissal_reason: null });
    // High: 30 SLA days from the moment it came back.
    expect(back.due_date?.getTime()).toBe(day91.getTime() + 30 * DAY);
    expect(await timelineTypes(finding.id)).toEqual([
      'acceptance_approved',
      'accepted',
      'acceptance_expired',
    ]);
    const expired = await t.app.inject({ url: `/api/acceptances/${acceptance.id}`, headers: reader.headers });
    expect(expired.json()).toMatchObject({ status: 'expired', covered_findings: 0 });
    expect((await outbox('acceptance.expired')).some((e) => e.application_id === app.id)).toBe(true);
    const statusEvents = await t.db
      .selectFrom('events')
      .selectAll()
      .where('finding_id', '=', finding.id)
      .where('type', '=', 'finding.status_changed')
      .orderBy('id')
      .execute();
    expect(statusEvents.map((e) => e.data)).toEqual([
      expect.objectContaining({ from: 'open', to: 'false_positive', reason: 'accepted' }),
      expect.objectContaining({ from: 'false_positive', to: 'open', reason: 'acceptance_expired' }),
    ]);
    // Exactly once: a second run finds nothing to do.
    expect((await runAcceptanceExpiry(t.db, t.jobs, at(92))).expired).toEqual([]);
  });

  it('revoke brings the findings back at once; reject leaves them untouched', async () => {
    const app = await appWithCast();
    const finding = await makeFinding(t, app.id, { rule_id: 'r-revoke' });
    const made = await post(author, '/api/acceptances', {
      application_id: app.id,
      rule_id: 'r-revoke',
      reason: 'wont_fix',
      impact_statement: 'Only reachable by admins',
    });
    expect(made.json()).toMatchObject({ status: 'active', covered_findings: 1 });
    expect((await findingRow(finding.id)).dismissal_reason).toBe('wont_fix');
    const revoked = await post(author, `/api/acceptances/${made.json().id}/revoke`);
    expect(revoked.statusCode, revoked.body).toBe(200);
    expect(revoked.json()).toMatchObject({ status: 'revoked', ended_by: author.id });
    expect(await findingRow(finding.id)).toMatchObject({ status: 'open', acceptance_id: null });
    expect(await timelineTypes(finding.id)).toEqual(['accepted', 'acceptance_revoked']);
    expect((await post(author, `/api/acceptances/${made.json().id}/revoke`)).statusCode).toBe(409);
  });
});

describe('dismissal reasons on the status endpoints', () => {
  it('stores the reason and comment, shows them, filters by them, and refuses them on other statuses', async () => {
    const app = await appWithCast();
    const finding = await makeFinding(t, app.id);
    const plain = await makeFinding(t, app.id);
    const patch = (id: number, payload: object) =>
      t.app.inject({ method: 'PATCH', url: `/api/findings/${id}/status`, headers: author.headers, payload });
    expect((await patch(finding.id, { status: 'confirmed', dismissal_reason: 'wont_fix' })).statusCode).toBe(
      400,
    );
    const dismissed = await patch(finding.id, {
      status: 'false_positive',
      dismissal_reason: 'used_in_tests',
      dismissal_comment: 'fixture only',
    });
    expect(dismissed.statusCode, dismissed.body).toBe(200);
    expect(dismissed.json()).toMatchObject({
      dismissal_reason: 'used_in_tests',
      dismissal_comment: 'fixture only',
    });
    // The spec's clients send no reason: still valid.
    expect((await patch(plain.id, { status: 'false_positive' })).json()).toMatchObject({
      dismissal_reason: null,
    });
    const list = await t.app.inject({
      url: `/api/findings?application_id=${app.id}&dismissal_reason=used_in_tests`,
      headers: reader.headers,
    });
    expect(list.json().findings.map((f: { id: number }) => f.id)).toEqual([finding.id]);
    const none = await t.app.inject({
      url: `/api/findings?application_id=${app.id}&dismissal_reason=none`,
      headers: reader.headers,
    });
    expect(none.json().findings.map((f: { id: number }) => f.id)).toEqual([plain.id]);
    const csv = await t.app.inject({
      url: `/api/findings?application_id=${app.id}&format=csv`,
      headers: reader.headers,
    });
    expect(csv.body.split('\r\n')[0]).toContain('dismissal_reason,dismissal_comment,acceptance_id');
    expect(csv.body).toContain('"used_in_tests","fixture only"');
    // Reopening clears the reason.
    expect((await patch(finding.id, { status: 'open' })).json()).toMatchObject({ dismissal_reason: null });
  });
});
