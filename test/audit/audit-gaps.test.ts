import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAcceptanceExpiry } from '../../src/modules/acceptances/acceptance-expiry.ts';
import { grant, makeApplication, makeFinding, makeUser, type TestUser } from '../support/factories.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

/**
 * Issue 49, the actions recorded after the first cut: acceptances (made, approved, rejected,
 * extended, revoked, and expired by the job), acceptance settings, SLA configurations and their
 * assignments, SCIM provisioning (the token as the identity provider's actor) and its tokens, SBOM
 * and audit-trail exports. Each is performed through the API and leaves exactly one matching row
 * with the right actor; none of the secrets used reaches the table.
 */

let t: TestApp;
let admin: TestUser;
let author: TestUser;
let approver: TestUser;
const secrets: string[] = [];
const DAY = 86_400_000;

beforeAll(async () => {
  t = await createTestApp();
  admin = await makeUser(t, { role: 'admin' });
  author = await makeUser(t);
  approver = await makeUser(t);
  secrets.push(admin.key, author.key, approver.key);
}, 120_000);
afterAll(() => t.close());

interface Row {
  id: string;
  actor_type: string;
  actor_id: string | null;
  actor_label: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  application_id: number | null;
  changes: Record<string, { before: unknown; after: unknown }> | null;
  details: Record<string, unknown> | null;
}

let seen = 0n;
async function newRows(): Promise<Row[]> {
  const rows = (await t.db
    .selectFrom('audit_events')
    .selectAll()
    .select(sql<string>`audit_events.id::text`.as('id'))
    .where('audit_events.id', '>', String(seen) as never)
    .orderBy('audit_events.id')
    .execute()) as unknown as Row[];
  for (const row of rows) if (BigInt(row.id) > seen) seen = BigInt(row.id);
  return rows;
}

/** Exactly one new row of `action` since the last look, by this actor, matching `fields`. */
async function expectOne(action: string, actor: { type: string; id: string | null }, fields?: Partial<Row>) {
  const rows = (await newRows()).filter((row) => row.action === action);
  expect(rows, `${action}: ${JSON.stringify(rows)}`).toHaveLength(1);
  const row = rows[0]!;
  expect({ type: row.actor_type, id: row.actor_id }).toEqual(actor);
  if (fields) expect(row).toMatchObject(fields);
  return row;
}

const byKey = (user: TestUser) => ({ type: 'api_key', id: String(user.id) });
const send = (user: TestUser, method: string, url: string, payload?: object) =>
  t.app.inject({ method: method as 'POST', url, headers: user.headers, ...(payload ? { payload } : {}) });

describe('acceptances: every decision is one row, by its person (expiry: the job)', () => {
  it('settings, created, approved, extended, revoked; rejected; expired by the system', async () => {
    const app = await makeApplication(t, admin);
    await grant(t, author, app.id, 'write');
    await grant(t, approver, app.id, 'write');
    await newRows();

    const settings = await send(admin, 'PUT', `/api/groups/${app.group_id}/acceptance-settings`, {
      four_eyes: true,
    });
    expect(settings.statusCode, settings.body).toBe(200);
    const setRow = await expectOne('acceptance_settings.updated', byKey(admin), {
      target_type: 'group',
      target_id: String(app.group_id),
    });
    expect(setRow.changes).toEqual({ four_eyes: { before: null, after: true } });
    // The same settings again change nothing: no row.
    await send(admin, 'PUT', `/api/groups/${app.group_id}/acceptance-settings`, { four_eyes: true });
    expect((await newRows()).filter((row) => row.action === 'acceptance_settings.updated')).toEqual([]);

    const finding = await makeFinding(t, app.id, { cve_ids: ['CVE-2024-4242'] });
    const expires = new Date(Date.now() + 30 * DAY).toISOString();
    const created = await send(author, 'POST', '/api/acceptances', {
      application_id: app.id,
      cve: 'CVE-2024-4242',
      expires_at: expires,
    });
    expect(created.statusCode, created.body).toBe(201);
    const acceptance = created.json() as { id: number };
    const made = await expectOne('acceptance.created', byKey(author), {
      target_type: 'acceptance',
      target_id: String(acceptance.id),
      application_id: app.id,
    });
    expect(made.changes?.['status']).toEqual({ before: null, after: 'pending' });

    expect((await send(approver, 'POST', `/api/acceptances/${acceptance.id}/approve`, {})).statusCode).toBe(
      200,
    );
    const approved = await expectOne('acceptance.approved', byKey(approver), {
      target_id: String(acceptance.id),
    });
    expect(approved.changes?.['status']).toEqual({ before: 'pending', after: 'active' });
    expect(approved.details).toMatchObject({ covered_findings: 1 });
    // Covering the finding is the acceptance's row, not one of its own per finding.
    expect((await newRows()).filter((row) => row.target_id === String(finding.id))).toEqual([]);

    const later = new Date(Date.now() + 40 * DAY).toISOString();
    const extended = await send(author, 'POST', `/api/acceptances/${acceptance.id}/extend`, {
      expires_at: later,
    });
    expect(extended.statusCode, extended.body).toBe(200);
    const extension = await expectOne('acceptance.extended', byKey(author));
    expect(Object.keys(extension.changes ?? {})).toEqual(['expires_at']);

    expect((await send(author, 'POST', `/api/acceptances/${acceptance.id}/revoke`)).statusCode).toBe(200);
    const revoked = await expectOne('acceptance.revoked', byKey(author), {
      target_id: String(acceptance.id),
    });
    expect(revoked.changes?.['status']).toEqual({ before: 'active', after: 'revoked' });
    expect(revoked.details).toMatchObject({ reopened_findings: 1 });

    // A refused decision (revoked already) writes nothing.
    expect((await send(author, 'POST', `/api/acceptances/${acceptance.id}/revoke`)).statusCode).toBe(409);
    expect((await newRows()).filter((row) => row.action.startsWith('acceptance.'))).toEqual([]);

    const second = await send(author, 'POST', '/api/acceptances', {
      application_id: app.id,
      finding_ids: [finding.id],
      reason: 'wont_fix',
    });
    expect(second.statusCode, second.body).toBe(201);
    await expectOne('acceptance.created', byKey(author));
    expect((await send(approver, 'POST', `/api/acceptances/${second.json().id}/reject`, {})).statusCode).toBe(
      200,
    );
    await expectOne('acceptance.rejected', byKey(approver), { target_id: String(second.json().id) });

    // Expiry: four-eyes off, an acceptance active at once, then the job past its end.
    await send(admin, 'PUT', `/api/groups/${app.group_id}/acceptance-settings`, { four_eyes: false });
    await newRows();
    const third = await send(author, 'POST', '/api/acceptances', {
      application_id: app.id,
      finding_ids: [finding.id],
      reason: 'accepted_risk',
      expires_at: new Date(Date.now() + 2 * DAY).toISOString(),
    });
    expect(third.statusCode, third.body).toBe(201);
    await expectOne('acceptance.created', byKey(author));
    const run = await runAcceptanceExpiry(t.db, t.jobs, new Date(Date.now() + 3 * DAY));
    expect(run.expired).toContain(third.json().id);
    const expired = await expectOne(
      'acceptance.expired',
      { type: 'system', id: null },
      { target_id: String(third.json().id), actor_label: 'acceptance-expiry' },
    );
    expect(expired.changes?.['status']).toEqual({ before: 'active', after: 'expired' });
  });
});

describe('SLA configurations and their assignments', () => {
  it('created, changed, assigned to a group and an application, deleted: one row each', async () => {
    const app = await makeApplication(t, admin);
    await newRows();
    const created = await send(admin, 'POST', '/api/sla-configurations', {
      name: `audited-sla-${Date.now()}`,
      severities: { critical: { days: 5 } },
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().id as number;
    const made = await expectOne('sla_configuration.created', byKey(admin), {
      target_type: 'sla_configuration',
      target_id: String(id),
    });
    expect(made.changes?.['critical_days']).toEqual({ before: null, after: 5 });

    const changed = await send(admin, 'PATCH', `/api/sla-configurations/${id}`, {
      severities: { critical: { days: 3 } },
    });
    expect(changed.statusCode, changed.body).toBe(200);
    const update = await expectOne('sla_configuration.updated', byKey(admin));
    expect(update.changes).toEqual({ critical_days: { before: 5, after: 3 } });

    const toGroup = await send(admin, 'PUT', `/api/groups/${app.group_id}/sla-configuration`, {
      sla_configuration_id: id,
    });
    expect(toGroup.statusCode, toGroup.body).toBe(200);
    const assigned = await expectOne('group.sla_assigned', byKey(admin), { target_id: String(app.group_id) });
    expect(assigned.changes).toEqual({ sla_configuration_id: { before: null, after: id } });

    const toApp = await send(admin, 'PUT', `/api/applications/${app.id}/sla-configuration`, {
      sla_configuration_id: id,
    });
    expect(toApp.statusCode, toApp.body).toBe(200);
    await expectOne('application.sla_assigned', byKey(admin), { application_id: app.id });

    expect((await send(admin, 'DELETE', `/api/sla-configurations/${id}`)).statusCode).toBe(204);
    const deleted = await expectOne('sla_configuration.deleted', byKey(admin), { target_id: String(id) });
    expect(deleted.changes?.['critical_days']).toEqual({ before: 3, after: null });
  });
});

describe('SCIM provisioning: the token, as the identity provider, is the actor', () => {
  const SCIM_JSON = 'application/scim+json';
  const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
  const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
  const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
  let token = '';
  let tokenId = 0;
  const scim = (method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
    t.app.inject({
      method,
      url: `/scim/v2${url}`,
      headers: { authorization: `Bearer ${token}`, ...(payload ? { 'content-type': SCIM_JSON } : {}) },
      ...(payload ? { payload: JSON.stringify(payload) } : {}),
    });

  it('tokens created and revoked by the admin, never their value', async () => {
    await newRows();
    const made = await send(admin, 'POST', '/api/admin/scim-tokens', { name: 'audited-idp' });
    expect(made.statusCode).toBe(201);
    token = made.json().token;
    tokenId = made.json().id;
    secrets.push(token);
    await expectOne('scim_token.created', byKey(admin), { target_id: String(tokenId) });
    const spare = await send(admin, 'POST', '/api/admin/scim-tokens', { name: 'spare' });
    secrets.push(spare.json().token);
    await newRows();
    expect((await send(admin, 'DELETE', `/api/admin/scim-tokens/${spare.json().id}`)).statusCode).toBe(200);
    await expectOne('scim_token.revoked', byKey(admin), { target_id: String(spare.json().id) });
  });

  it('users created, updated, deactivated, deleted; groups created, members, renamed, deleted', async () => {
    const idp = { type: 'idp', id: `scim_token:${tokenId}` };
    await newRows();
    const created = await scim('POST', '/Users', {
      schemas: [USER],
      userName: 'provisioned@example.test',
      name: { givenName: 'Pro', familyName: 'Visioned' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const userId = created.json().id as string;
    const made = await expectOne('user.created', idp, {
      target_id: userId,
      actor_label: 'SCIM token audited-idp',
    });
    expect(made.details).toMatchObject({ source: 'scim' });

    // A sync that changes nothing writes nothing (identity providers resend every user).
    const same = await scim('PUT', `/Users/${userId}`, {
      schemas: [USER],
      userName: 'provisioned@example.test',
      name: { givenName: 'Pro', familyName: 'Visioned' },
    });
    expect(same.statusCode, same.body).toBe(200);
    expect((await newRows()).filter((row) => row.action.startsWith('user.'))).toEqual([]);

    const renamed = await scim('PUT', `/Users/${userId}`, {
      schemas: [USER],
      userName: 'provisioned@example.test',
      displayName: 'Pro V.',
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
    const update = await expectOne('user.updated', idp, { target_id: userId });
    expect(update.changes).toEqual({ name: { before: 'Pro Visioned', after: 'Pro V.' } });

    const off = await scim('PATCH', `/Users/${userId}`, {
      schemas: [PATCH],
      Operations: [{ op: 'replace', value: { active: false } }],
    });
    expect(off.statusCode, off.body).toBe(200);
    const deactivated = await expectOne('user.deactivated', idp, { target_id: userId });
    expect(deactivated.changes).toEqual({ disabled: { before: false, after: true } });

    const group = await scim('POST', '/Groups', {
      schemas: [GROUP],
      displayName: 'audited-provisioned-team',
      members: [{ value: userId }],
    });
    expect(group.statusCode, group.body).toBe(201);
    const teamId = group.json().id as string;
    const made2 = await newRows();
    // The team's row, and the membership it made as a row of its own, as when made by hand.
    expect(made2.map((row) => [row.action, row.target_id, row.actor_id])).toEqual([
      ['team.created', teamId, idp.id],
      ['team.member_added', teamId, idp.id],
    ]);

    const emptied = await scim('PATCH', `/Groups/${teamId}`, {
      schemas: [PATCH],
      Operations: [
        { op: 'replace', path: 'displayName', value: 'audited-renamed-team' },
        { op: 'replace', path: 'members', value: [] },
      ],
    });
    expect(emptied.statusCode, emptied.body).toBe(200);
    const changes = await newRows();
    const of = (action: string) => changes.filter((row) => row.action === action);
    expect(of('team.updated')).toHaveLength(1);
    expect(of('team.updated')[0]!.changes).toEqual({
      name: { before: 'audited-provisioned-team', after: 'audited-renamed-team' },
    });
    expect(of('team.member_removed')).toHaveLength(1);
    expect(of('team.member_removed')[0]!.details).toMatchObject({ user_id: Number(userId), source: 'scim' });
    expect(changes.every((row) => row.actor_type === 'idp' && row.actor_id === idp.id)).toBe(true);

    expect((await scim('DELETE', `/Groups/${teamId}`)).statusCode).toBe(204);
    await expectOne('team.deleted', idp, { target_id: teamId });
    expect((await scim('DELETE', `/Users/${userId}`)).statusCode).toBe(204);
    await expectOne('user.deleted', idp, { target_id: userId });
  });
});

describe('exports: an SBOM, and the audit trail itself', () => {
  it('who took which version’s SBOM, and which part of the trail, in what format', async () => {
    const app = await makeApplication(t, admin);
    const version = await t.db
      .selectFrom('application_versions')
      .select('id')
      .where('application_id', '=', app.id)
      .executeTakeFirstOrThrow();
    await newRows();
    const sbom = await send(
      admin,
      'GET',
      `/api/applications/${app.id}/versions/${version.id}/sbom?format=cyclonedx`,
    );
    expect(sbom.statusCode, sbom.body).toBe(200);
    const row = await expectOne('sbom.exported', byKey(admin), {
      target_type: 'version',
      target_id: String(version.id),
      application_id: app.id,
    });
    expect(row.details).toMatchObject({ format: 'cyclonedx', components: 0 });

    const trail = await send(admin, 'GET', '/api/audit-events?format=csv&action=acceptance.*');
    expect(trail.statusCode).toBe(200);
    const exported = await expectOne('audit_events.exported', byKey(admin));
    expect(exported.details).toEqual({ format: 'csv', scope: { action: 'acceptance.*' } });
    // A page is not an export.
    expect((await send(admin, 'GET', '/api/audit-events?limit=5')).statusCode).toBe(200);
    expect(await newRows()).toEqual([]);
  });
});

describe('no secret in the audit table', () => {
  it('holds none of the keys and tokens used above, and the chain verifies', async () => {
    const dump = (
      await sql<{ row: string }>`select audit_events::text as row from audit_events`.execute(t.db)
    ).rows
      .map((row) => row.row)
      .join('\n');
    expect(dump).toContain('scim_token.created'); // the sequence ran: an empty table cannot pass
    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThan(8);
      expect(dump.includes(secret), `audit table holds ${secret.slice(0, 12)}…`).toBe(false);
    }
    expect(dump).not.toMatch(/scim_[A-Za-z0-9_-]{20,}/);
    const verify = await send(admin, 'GET', '/api/audit-events/verify');
    expect(verify.json()).toMatchObject({ ok: true });
  });
});
