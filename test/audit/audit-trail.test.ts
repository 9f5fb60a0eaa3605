import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_COOKIE } from '../../src/http/auth.ts';
import { makeUser, type TestUser } from '../support/factories.ts';
import { buildSarif } from '../support/sarif-builder.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { multipartBody } from '../support/upload.ts';

/**
 * Issue 49: every recorded action, performed through the API, leaves exactly one matching audit row
 * with the right actor, and no secret reaches the audit table (log-secrets.test.ts's idea, for the
 * table). Then reading: filters, keyset pages, strict query, exports, verify, who may read.
 */

let t: TestApp;
let admin: TestUser;
const secrets: string[] = [];

beforeAll(async () => {
  t = await createTestApp({ outbound: { allowPrivate: true } });
  admin = await makeUser(t, { role: 'admin', password: 'admin password never audited' });
  secrets.push('admin password never audited', admin.key);
}, 120_000);
afterAll(() => t.close());

type Headers = Record<string, string>;
const inject = (method: string, url: string, payload?: object, headers: Headers = admin.headers) =>
  t.app.inject({ method: method as 'POST', url, headers, ...(payload ? { payload } : {}) });

interface Row {
  id: string;
  target_label: string | null;
  actor_type: string;
  actor_id: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  application_id: number | null;
  request_id: string | null;
  ip: string | null;
  user_agent: string | null;
  changes: unknown;
  details: unknown;
}

let seen = 0n;
/** The audit rows written since the last call. */
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

/** Exactly one new row of `action` (other new rows may be of other actions), by this actor. */
async function expectOne(action: string, actor: { type: string; id: string | null }, target?: Partial<Row>) {
  const rows = (await newRows()).filter((row) => row.action === action);
  expect(rows, `${action}: ${JSON.stringify(rows)}`).toHaveLength(1);
  const row = rows[0]!;
  expect({ type: row.actor_type, id: row.actor_id }).toEqual(actor);
  if (target) expect(row).toMatchObject(target);
  return row;
}

const byKey = (user: TestUser) => ({ type: 'api_key', id: String(user.id) });

describe('every recorded action leaves one audit row, with its actor', () => {
  let userId: number;
  let applicationId: number;
  let appToken: string;
  let cookie: string;
  let csrf: string;

  it('users: created, changed, password reset', async () => {
    await newRows();
    const password = 'member password never audited';
    secrets.push(password);
    const created = await inject('POST', '/api/users', { email: 'audited@example.test', password });
    expect(created.statusCode).toBe(201);
    userId = created.json().id;
    const row = await expectOne('user.created', byKey(admin), {
      target_type: 'user',
      target_id: String(userId),
    });
    expect(row.request_id).toBe(created.headers['x-request-id'] ?? row.request_id);
    expect(row.ip).toBe('127.0.0.1');
    expect((await inject('PATCH', `/api/users/${userId}`, { name: 'Audited Person' })).statusCode).toBe(200);
    const updated = await expectOne('user.updated', byKey(admin));
    expect(updated.changes).toEqual({ name: { before: 'audited', after: 'Audited Person' } });
    const reset = 'reset password never audited';
    secrets.push(reset);
    expect((await inject('POST', `/api/users/${userId}/password`, { new_password: reset })).statusCode).toBe(
      200,
    );
    await expectOne('user.password_reset', byKey(admin), { target_id: String(userId) });
  });

  it('sign-ins: failed, by password, API key first use of the day; password change; sign-out', async () => {
    const wrong = 'wrong guess never audited';
    secrets.push(wrong);
    const failed = await inject(
      'POST',
      '/api/auth/login',
      { email: 'audited@example.test', password: wrong },
      {
        'user-agent': 'audit-test-agent',
      },
    );
    expect(failed.statusCode).toBe(401);
    const failure = await expectOne('auth.sign_in_failed', { type: 'anonymous', id: null });
    expect(failure.user_agent).toBe('audit-test-agent');
    expect(failure.details).toMatchObject({ method: 'password', reason: 'wrong_password' });

    const login = await inject(
      'POST',
      '/api/auth/login',
      {
        email: 'audited@example.test',
        password: 'reset password never audited',
      },
      {},
    );
    expect(login.statusCode).toBe(200);
    cookie = login.cookies.find((candidate) => candidate.name === SESSION_COOKIE)?.value ?? '';
    csrf = login.json().csrfToken;
    secrets.push(cookie, csrf);
    await expectOne('auth.signed_in', { type: 'user', id: String(userId) });

    const session = { cookie: `${SESSION_COOKIE}=${cookie}`, 'x-csrf-token': csrf };
    const key = await inject('POST', '/api/api-keys', { name: 'audited key' }, session);
    expect(key.statusCode).toBe(201);
    secrets.push(key.json().key);
    await expectOne('api_key.created', { type: 'user', id: String(userId) });
    for (let index = 0; index < 2; index += 1) {
      expect(
        (await inject('GET', '/api/auth/me', undefined, { 'x-api-key': key.json().key })).statusCode,
      ).toBe(200);
    }
    await expectOne(
      'auth.api_key_used',
      { type: 'api_key', id: String(userId) },
      {
        target_id: String(key.json().id),
      },
    );
    expect((await inject('DELETE', `/api/api-keys/${key.json().id}`, undefined, session)).statusCode).toBe(
      200,
    );
    await expectOne('api_key.revoked', { type: 'user', id: String(userId) });

    const next = 'changed password never audited';
    secrets.push(next);
    const changed = await inject(
      'POST',
      '/api/auth/password',
      { current_password: 'reset password never audited', new_password: next },
      session,
    );
    expect(changed.statusCode).toBe(200);
    await expectOne('user.password_changed', { type: 'user', id: String(userId) });
    expect((await inject('POST', '/api/auth/logout', undefined, session)).statusCode).toBe(204);
    await expectOne('auth.signed_out', { type: 'user', id: String(userId) });
  });

  it('teams and memberships, groups, applications, application tokens', async () => {
    const team = await inject('POST', '/api/teams', { name: 'audited team' });
    expect(team.statusCode).toBe(201);
    await expectOne('team.created', byKey(admin));
    expect(
      (await inject('POST', `/api/teams/${team.json().id}/members`, { user_id: userId })).statusCode,
    ).toBe(201);
    await expectOne('team.member_added', byKey(admin), { target_id: String(team.json().id) });
    expect((await inject('DELETE', `/api/teams/${team.json().id}/members/${userId}`)).statusCode).toBe(204);
    await expectOne('team.member_removed', byKey(admin));

    const group = await inject('POST', '/api/groups', { name: 'audited', path: 'audited' });
    expect(group.statusCode).toBe(201);
    await expectOne('group.created', byKey(admin));
    const application = await inject('POST', '/api/applications', {
      name: 'audited',
      slug: 'audited',
      group_id: group.json().id,
    });
    expect(application.statusCode).toBe(201);
    applicationId = application.json().id;
    secrets.push(application.json().api_token);
    await expectOne('application.created', byKey(admin), { application_id: applicationId });
    expect(
      (await inject('PUT', `/api/applications/${applicationId}`, { asset_criticality: 'high' })).statusCode,
    ).toBe(200);
    const updated = await expectOne('application.updated', byKey(admin));
    expect(updated.changes).toEqual({ asset_criticality: { before: 'medium', after: 'high' } });
    const regenerated = await inject('POST', `/api/applications/${applicationId}/regenerate-token`);
    expect(regenerated.statusCode).toBe(200);
    appToken = regenerated.json().api_token;
    secrets.push(appToken);
    await expectOne('application_token.regenerated', byKey(admin), { application_id: applicationId });
  });

  it('permission grants and revocations: application and admin policies', async () => {
    const grants = `/api/applications/${applicationId}/permissions`;
    expect((await inject('POST', grants, { subject: `user:${userId}`, action: 'read' })).statusCode).toBe(
      201,
    );
    await expectOne('permission.granted', byKey(admin), { application_id: applicationId });
    expect((await inject('DELETE', grants, { subject: `user:${userId}`, action: 'read' })).statusCode).toBe(
      200,
    );
    await expectOne('permission.revoked', byKey(admin));
    const adminGrant = { subject: `user:${userId}`, resource: 'audit', action: 'read' };
    expect((await inject('POST', '/api/admin/permissions', adminGrant)).statusCode).toBe(201);
    const row = await expectOne('permission.granted', byKey(admin));
    expect(row.details).toMatchObject({ resource: 'audit', permission: 'read' });
  });

  it('webhooks, policies and issue trackers, secrets masked', async () => {
    const hookSecret = 'webhook secret never audited';
    const hookSecret2 = 'second webhook secret never audited';
    secrets.push(hookSecret, hookSecret2, 'hooks.example.test/secret-path');
    const hooks = `/api/applications/${applicationId}/webhooks`;
    const hook = await inject('POST', hooks, {
      url: 'https://hooks.example.test/secret-path',
      events: '*',
      secret: hookSecret,
    });
    expect(hook.statusCode).toBe(201);
    await expectOne('webhook.created', byKey(admin));
    expect((await inject('PATCH', `${hooks}/${hook.json().id}`, { secret: hookSecret2 })).statusCode).toBe(
      200,
    );
    const changed = await expectOne('webhook.updated', byKey(admin));
    expect(changed.changes).toEqual({ secret: { before: '[masked]', after: '[masked]' } });
    expect((await inject('DELETE', `${hooks}/${hook.json().id}`)).statusCode).toBe(204);
    await expectOne('webhook.deleted', byKey(admin));

    const policy = await inject('POST', '/api/policies', {
      name: 'audited policy',
      scope_type: 'application',
      scope_id: applicationId,
      event_types: ['finding.created'],
      conditions: [{ field: 'severity', op: 'gte', value: 'high' }],
      actions: [{ type: 'change_status', target: 'confirmed' }],
    });
    expect(policy.statusCode).toBe(201);
    await expectOne('policy.created', byKey(admin), { target_id: String(policy.json().id) });
    expect((await inject('PATCH', `/api/policies/${policy.json().id}`, { enabled: false })).statusCode).toBe(
      200,
    );
    const patched = await expectOne('policy.updated', byKey(admin));
    expect(patched.changes).toEqual({ enabled: { before: true, after: false } });
    expect((await inject('DELETE', `/api/policies/${policy.json().id}`)).statusCode).toBe(204);
    await expectOne('policy.deleted', byKey(admin));

    const trackerToken = 'ghp_tracker-token-never-audited-01';
    const trackerSecret = 'tracker-webhook-secret-never-audited';
    secrets.push(trackerToken, trackerSecret);
    const trackerUrl = `/api/applications/${applicationId}/issue-tracker`;
    const tracker = await inject('POST', trackerUrl, {
      provider: 'github',
      token: trackerToken,
      base_url: 'https://api.github.example.test',
      repository: 'acme/app',
      webhook_secret: trackerSecret,
    });
    expect(tracker.statusCode).toBe(201);
    await expectOne('issue_tracker.created', byKey(admin));
    expect((await inject('DELETE', trackerUrl)).statusCode).toBe(204);
    await expectOne('issue_tracker.deleted', byKey(admin));
  });

  it('settings: scanner types, identity provider group mappings; a version deleted with what it held', async () => {
    expect((await inject('PATCH', '/api/scanner-types/gosec', { enabled: false })).statusCode).toBe(200);
    const toggled = await expectOne('scanner_type.updated', byKey(admin), {
      target_label: 'gosec',
    } as Partial<Row>);
    expect(toggled.changes).toEqual({ enabled: { before: true, after: false } });
    const team = await inject('POST', '/api/teams', { name: 'mapped team' });
    const mapping = await inject('POST', '/api/sso/group-mappings', {
      idp_group: 'sec',
      team_id: team.json().id,
    });
    expect(mapping.statusCode).toBe(201);
    await expectOne('sso.group_mapping_created', byKey(admin));
    expect((await inject('DELETE', `/api/sso/group-mappings/${mapping.json().id}`)).statusCode).toBe(200);
    await expectOne('sso.group_mapping_deleted', byKey(admin));
    const version = await inject('POST', `/api/applications/${applicationId}/versions`, { name: 'doomed' });
    expect(version.statusCode).toBe(201);
    expect(
      (await inject('DELETE', `/api/applications/${applicationId}/versions/${version.json().id}`)).statusCode,
    ).toBeLessThan(300);
    const deleted = await expectOne('version.deleted', byKey(admin), { application_id: applicationId });
    expect(deleted.details).toMatchObject({ finding_count: 0, scan_count: 0 });
  });

  it('an upload is one row (not one per finding), by the application token, with its counts', async () => {
    const sarif = buildSarif({
      results: Array.from({ length: 30 }, (_, index) => ({
        ruleId: `rule-${index}`,
        path: `src/file-${index}.ts`,
        line: index + 1,
      })),
    });
    const { body, contentType } = multipartBody({ file: sarif, fileName: 'audited.sarif' });
    const uploaded = await t.app.inject({
      method: 'POST',
      url: '/api/ingest',
      headers: { 'x-api-token': appToken, 'content-type': contentType },
      payload: body,
    });
    expect(uploaded.statusCode).toBe(201);
    const row = await expectOne(
      'upload.completed',
      { type: 'application_token', id: String(applicationId) },
      { target_type: 'scan', target_id: String(uploaded.json().scan.id) },
    );
    expect(row.details).toMatchObject({ scanner: 'sarif', findings: 30, new: 30 });
  }, 120_000);

  it('triage: status, assignment, bulk (set-wise, one row per finding), comment; exports', async () => {
    const findings = await t.db
      .selectFrom('findings')
      .select('id')
      .where('application_id', '=', applicationId)
      .orderBy('id')
      .execute();
    const [first, second, ...rest] = findings.map((finding) => finding.id);
    expect((await inject('PATCH', `/api/findings/${first}/status`, { status: 'confirmed' })).statusCode).toBe(
      200,
    );
    const status = await expectOne('finding.status_changed', byKey(admin), { target_id: String(first) });
    expect(status.changes).toEqual({ status: { before: 'open', after: 'confirmed' } });
    expect((await inject('PATCH', `/api/findings/${second}/assign`, { user_id: admin.id })).statusCode).toBe(
      200,
    );
    await expectOne('finding.reassigned', byKey(admin), { target_id: String(second) });
    const bulk = await inject('PATCH', '/api/findings', { ids: rest, status: 'false_positive' });
    expect(bulk.statusCode).toBe(200);
    const bulkRows = (await newRows()).filter((row) => row.action === 'finding.status_changed');
    expect(bulkRows.map((row) => Number(row.target_id)).sort((a, b) => a - b)).toEqual(rest);
    expect(new Set(bulkRows.map((row) => row.request_id)).size).toBe(1);
    expect(
      (await inject('POST', `/api/findings/${first}/comments`, { content: 'looks real' })).statusCode,
    ).toBe(201);
    await expectOne('finding.commented', byKey(admin), { target_id: String(first) });
    const exported = await inject('GET', `/api/findings?application_id=${applicationId}&format=csv`);
    expect(exported.statusCode).toBe(200);
    const exportRow = await expectOne('findings.exported', byKey(admin), { application_id: applicationId });
    expect(exportRow.details).toMatchObject({ format: 'csv', scope: { application_id: applicationId } });
  });
});

describe('reading the audit trail', () => {
  it('filters by actor, action family, target, time; pages newest first by cursor', async () => {
    const page = await inject('GET', `/api/audit-events?actor_id=${admin.id}&action=finding.*&limit=3`);
    expect(page.statusCode).toBe(200);
    const body = page.json();
    expect(body.items).toHaveLength(3);
    expect(body.items.every((item: { action: string }) => item.action.startsWith('finding.'))).toBe(true);
    const ids = body.items.map((item: { id: string }) => Number(item.id));
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    const next = await inject(
      'GET',
      `/api/audit-events?actor_id=${admin.id}&action=finding.*&limit=3&cursor=${body.next_cursor}`,
    );
    expect(Number(next.json().items[0].id)).toBeLessThan(ids[2]);
    const users = await inject('GET', '/api/audit-events?target_type=user&action=user.created');
    expect(users.json().items.length).toBeGreaterThanOrEqual(1);
    const future = await inject('GET', '/api/audit-events?since=2999-01-01T00:00:00Z');
    expect(future.json()).toEqual({ items: [], next_cursor: null });
  });

  it('refuses unknown or malformed query parameters (400), never a 500', async () => {
    expect((await inject('GET', '/api/audit-events?actor=1')).statusCode).toBe(400);
    expect((await inject('GET', '/api/audit-events?cursor=abc')).statusCode).toBe(400);
    expect((await inject('GET', '/api/audit-events?since=yesterday')).statusCode).toBe(400);
    expect((await inject('GET', '/api/audit-events?action=DROP%20TABLE')).statusCode).toBe(400);
  });

  it('exports NDJSON and CSV of every matching event, oldest first, CSV formulas neutralised', async () => {
    const ndjson = await inject('GET', '/api/audit-events?format=ndjson');
    expect(ndjson.headers['content-type']).toContain('application/x-ndjson');
    const lines = ndjson.body
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const total = await t.db
      .selectFrom('audit_events')
      .select(t.db.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    expect(lines).toHaveLength(Number(total.n));
    expect(Number(lines[0].id)).toBeLessThan(Number(lines.at(-1).id));
    await inject('POST', '/api/teams', { name: '=HYPERLINK("http://evil.example")' });
    const csv = await inject('GET', '/api/audit-events?format=csv&action=team.created');
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.body).toContain(`"'=HYPERLINK(""http://evil.example"")"`);
    expect(csv.body.split('\r\n')[0]).toMatch(/^id,occurred_at,actor_type/);
  });

  it('admins and holders of audit.read may read; other members get 403', async () => {
    const member = await makeUser(t);
    expect((await inject('GET', '/api/audit-events', undefined, member.headers)).statusCode).toBe(403);
    expect((await inject('GET', '/api/audit-events/verify', undefined, member.headers)).statusCode).toBe(403);
    await inject('POST', '/api/admin/permissions', {
      subject: `user:${member.id}`,
      resource: 'audit',
      action: 'read',
    });
    expect((await inject('GET', '/api/audit-events', undefined, member.headers)).statusCode).toBe(200);
  });

  it('verify reports the chain intact, then the first tampered row', async () => {
    const intact = await inject('GET', '/api/audit-events/verify');
    expect(intact.statusCode).toBe(200);
    expect(intact.json()).toMatchObject({ ok: true, first_broken: null });
    const victim = await t.db
      .selectFrom('audit_events')
      .select(sql<string>`id::text`.as('id'))
      .where('action', '=', 'permission.granted')
      .orderBy('audit_events.id')
      .executeTakeFirstOrThrow();
    await sql`alter table audit_events disable trigger audit_events_append_only`.execute(t.db);
    await sql`update audit_events set details = '{"resource": "*", "permission": "write"}' where id = ${victim.id}`.execute(
      t.db,
    );
    await sql`alter table audit_events enable trigger audit_events_append_only`.execute(t.db);
    const broken = await inject('GET', '/api/audit-events/verify');
    expect(broken.json()).toMatchObject({
      ok: false,
      first_broken: { id: victim.id, reason: 'hash_mismatch' },
    });
  });
});

describe('no secret in the audit table', () => {
  it('holds none of the passwords, keys, tokens, cookies or webhook and tracker secrets used above', async () => {
    const dump = (
      await sql<{ row: string }>`select audit_events::text as row from audit_events`.execute(t.db)
    ).rows
      .map((row) => row.row)
      .join('\n');
    expect(dump).toContain('webhook.updated'); // the sequence ran: an empty table cannot pass
    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThan(8);
      expect(dump.includes(secret), `audit table holds ${secret.slice(0, 12)}…`).toBe(false);
    }
    expect(dump).not.toMatch(/\$argon2id\$/);
    expect(dump).not.toMatch(/v1\.[\w-]+\.[\w-]+\.[\w-]+/); // no sealed secret
    expect(dump).not.toMatch(/sh[kt]_[A-Za-z0-9_-]{20,}/); // no raw API key or application token
  });
});
