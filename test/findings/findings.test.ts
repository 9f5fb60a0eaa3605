import type { KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listFindings } from '../../src/modules/findings/findings.service.ts';
import {
  defaultVersionId,
  grant,
  makeApplication,
  makeFinding,
  makeUser,
  type TestUser,
} from '../support/factories.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { upload } from '../support/upload.ts';

let t: TestApp;
let admin: TestUser;
let member: TestUser;
let outsider: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await makeUser(t, { role: 'admin' });
  member = await makeUser(t);
  outsider = await makeUser(t);
});
afterAll(() => t.close());

async function makeScan(applicationId: number) {
  const versionId = await defaultVersionId(t, applicationId);
  return t.db
    .insertInto('scans')
    .values({
      application_id: applicationId,
      version_id: versionId,
      file_size: 1,
      file_sha256: 'x',
      status: 'completed',
      uploaded_via: 'api_key',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
}

async function list(user: TestUser, query: string) {
  const response = await t.app.inject({ url: `/api/findings?${query}`, headers: user.headers });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as {
    findings: { id: number; [key: string]: unknown }[];
    pagination: { page: number; perPage: number; total: number; totalPages: number };
  };
}

const ids = (body: { findings: { id: number }[] }) => body.findings.map((finding) => finding.id);

describe('GET /api/findings', () => {
  it('401 without credentials', async () => {
    const response = await t.app.inject({ url: '/api/findings' });
    expect(response.statusCode).toBe(401);
    expect(response.headers['content-type']).toContain('application/problem+json');
  });

  it('400 names each bad query field', async () => {
    const cases: [string, string][] = [
      ['page=0', 'querystring.page'],
      ['page=abc', 'querystring.page'],
      ['page=1.5', 'querystring.page'],
      ['perPage=0', 'querystring.perPage'],
      ['per_page=-3', 'querystring.per_page'],
      ['severity=extreme', 'querystring.severity'],
      ['severity=high,bogus', 'querystring.severity'],
      ['status=done', 'querystring.status'],
      ['sortBy=colour', 'querystring.sortBy'],
      ['order=up', 'querystring.order'],
      ['applicationId=abc', 'querystring.applicationId'],
      ['scanId=-1', 'querystring.scanId'],
      ['assignedTo=bob', 'querystring.assignedTo'],
    ];
    for (const [query, path] of cases) {
      const response = await t.app.inject({ url: `/api/findings?${query}`, headers: admin.headers });
      expect(response.statusCode, query).toBe(400);
      expect(response.json().code, query).toBe('validation_failed');
      expect(
        response.json().errors.map((error: { path: string }) => error.path),
        query,
      ).toContain(path);
    }
  });

  it('lists only findings of applications the member may read; admins see all', async () => {
    const readable = await makeApplication(t, admin);
    const hidden = await makeApplication(t, admin);
    await grant(t, member, readable.id, 'read');
    const visible = await makeFinding(t, readable.id);
    const secret = await makeFinding(t, hidden.id);
    const asMember = ids(await list(member, 'perPage=200'));
    expect(asMember).toContain(visible.id);
    expect(asMember).not.toContain(secret.id);
    // Filtering by an unreadable application lists nothing rather than leaking it.
    expect((await list(member, `applicationId=${hidden.id}`)).pagination.total).toBe(0);
    expect((await list(outsider, 'perPage=200')).findings).toEqual([]);
    const asAdmin = ids(await list(admin, `perPage=200&sortBy=created_at`));
    expect(asAdmin).toEqual(expect.arrayContaining([visible.id, secret.id]));
  });

  it('returns the full record with scanner type, assignee and risk parts', async () => {
    const app = await makeApplication(t, admin);
    const finding = await makeFinding(t, app.id, {
      assignee_id: member.id,
      cve_ids: ['CVE-2021-44228'],
      references: ['https://example.test/advisory'],
      cwe_ids: [79, 80],
      cwe_id: 79,
      risk_score: 77,
    });
    const [record] = (await list(admin, `applicationId=${app.id}`)).findings;
    expect(record).toMatchObject({
      id: finding.id,
      application_id: app.id,
      version_id: finding.version_id,
      scanner_type: 'sarif',
      scanner: 'TestTool',
      severity: 'high',
      status: 'open',
      location: { file_path: 'src/app.ts', line: 10, column: null, end_line: null },
      file_path: 'src/app.ts',
      line: 10,
      cve_ids: ['CVE-2021-44228'],
      cwe_id: 79,
      cwe_ids: [79, 80],
      references: ['https://example.test/advisory', 'CVE-2021-44228'],
      fingerprint: finding.fingerprint,
      risk_score: 77,
      risk: { score: 77, formula_version: 1, severity: 8, exploitation: 0.2, age: 0, asset: 0.65 },
      assignee_id: member.id,
      assignee: { id: member.id, email: member.email },
      due_date: null,
    });
    expect(record).not.toHaveProperty('timeline');
  });

  it('filters by application, version, severity (lists too), status (closed too) and scanner type', async () => {
    const app = await makeApplication(t, admin);
    const version = await t.db
      .insertInto('application_versions')
      .values({ application_id: app.id, name: 'v2' })
      .returning('id')
      .executeTakeFirstOrThrow();
    const critical = await makeFinding(t, app.id, { severity: 'critical' });
    const low = await makeFinding(t, app.id, { severity: 'low', status: 'confirmed' });
    const fixed = await makeFinding(t, app.id, { severity: 'info', status: 'fixed' });
    const dismissed = await makeFinding(t, app.id, { status: 'false_positive', version_id: version.id });
    const base = `applicationId=${app.id}&sortBy=created_at&order=asc`;

    expect(ids(await list(admin, `${base}&severity=critical`))).toEqual([critical.id]);
    expect(ids(await list(admin, `${base}&severity=critical,low`))).toEqual([critical.id, low.id]);
    expect(ids(await list(admin, `${base}&severity=critical&severity=info`))).toEqual([
      critical.id,
      fixed.id,
    ]);
    expect(ids(await list(admin, `${base}&status=confirmed`))).toEqual([low.id]);
    expect(ids(await list(admin, `${base}&status=closed`))).toEqual([fixed.id, dismissed.id]);
    expect(ids(await list(admin, `${base}&status=open,closed`))).toEqual([
      critical.id,
      fixed.id,
      dismissed.id,
    ]);
    expect(ids(await list(admin, `${base}&applicationVersionId=${version.id}`))).toEqual([dismissed.id]);
    expect(ids(await list(admin, `${base}&application_version_id=${version.id}`))).toEqual([dismissed.id]);
    const sarif = await t.db
      .selectFrom('scanner_types')
      .select('id')
      .where('name', '=', 'sarif')
      .executeTakeFirstOrThrow();
    const other = await t.db
      .selectFrom('scanner_types')
      .select('id')
      .where('name', '!=', 'sarif')
      .executeTakeFirstOrThrow();
    expect((await list(admin, `${base}&scannerTypeId=${sarif.id}`)).pagination.total).toBe(4);
    expect((await list(admin, `${base}&scanner_type_id=${other.id}`)).pagination.total).toBe(0);
    // An empty filter value means "any".
    expect((await list(admin, `${base}&severity=`)).pagination.total).toBe(4);
  });

  it('filters by first or last scan', async () => {
    const app = await makeApplication(t, admin);
    const first = await makeScan(app.id);
    const second = await makeScan(app.id);
    const old = await makeFinding(t, app.id, { first_scan_id: first.id, last_scan_id: second.id });
    const fresh = await makeFinding(t, app.id, { first_scan_id: second.id, last_scan_id: second.id });
    const base = `applicationId=${app.id}&sortBy=created_at&order=asc`;
    expect(ids(await list(admin, `${base}&scanId=${first.id}`))).toEqual([old.id]);
    expect(ids(await list(admin, `${base}&scan_id=${second.id}`))).toEqual([old.id, fresh.id]);
  });

  it('filters by assignee: me, a user id, none', async () => {
    const app = await makeApplication(t, admin);
    await grant(t, member, app.id, 'read');
    const mine = await makeFinding(t, app.id, { assignee_id: member.id });
    const admins = await makeFinding(t, app.id, { assignee_id: admin.id });
    const nobodys = await makeFinding(t, app.id);
    const base = `applicationId=${app.id}&sortBy=created_at&order=asc`;
    expect(ids(await list(member, `${base}&assignedTo=me`))).toEqual([mine.id]);
    expect(ids(await list(admin, `${base}&assignedTo=me`))).toEqual([admins.id]);
    expect(ids(await list(admin, `${base}&assigned_to=${member.id}`))).toEqual([mine.id]);
    expect(ids(await list(admin, `${base}&assignedTo=none`))).toEqual([nobodys.id]);
  });

  it('searches title, file path and rule id case-insensitively, LIKE characters taken literally', async () => {
    const app = await makeApplication(t, admin);
    const byTitle = await makeFinding(t, app.id, { title: 'SQL Injection in login' });
    const byFile = await makeFinding(t, app.id, { file_path: 'lib/Injector.py' });
    const byRule = await makeFinding(t, app.id, { rule_id: 'py/sql-INJECTION' });
    const percent = await makeFinding(t, app.id, { title: '100% CPU' });
    await makeFinding(t, app.id, { title: '100 CPUs' });
    const base = `applicationId=${app.id}&sortBy=created_at&order=asc`;
    expect(ids(await list(admin, `${base}&search=inject`))).toEqual([byTitle.id, byFile.id, byRule.id]);
    expect(ids(await list(admin, `${base}&search=${encodeURIComponent('0%')}`))).toEqual([percent.id]);
    expect(ids(await list(admin, `${base}&search=_`))).toEqual([]);
  });

  it('sorts by each column in both directions, ties broken by id', async () => {
    const app = await makeApplication(t, admin);
    const a = await makeFinding(t, app.id, { title: 'Alpha', severity: 'low', risk_score: 30 });
    const b = await makeFinding(t, app.id, { title: 'Charlie', severity: 'critical', risk_score: 90 });
    const c = await makeFinding(t, app.id, { title: 'Bravo', severity: 'medium', risk_score: 30 });
    const base = `applicationId=${app.id}`;
    // Default: risk_score desc, ties by id desc.
    expect(ids(await list(admin, base))).toEqual([b.id, c.id, a.id]);
    expect(ids(await list(admin, `${base}&sortBy=risk_score&order=asc`))).toEqual([a.id, c.id, b.id]);
    expect(ids(await list(admin, `${base}&sortBy=severity`))).toEqual([b.id, c.id, a.id]);
    expect(ids(await list(admin, `${base}&sort_by=severity&order=asc`))).toEqual([a.id, c.id, b.id]);
    expect(ids(await list(admin, `${base}&sortBy=title&order=asc`))).toEqual([a.id, c.id, b.id]);
    expect(ids(await list(admin, `${base}&sortBy=title&order=desc`))).toEqual([b.id, c.id, a.id]);
    expect(ids(await list(admin, `${base}&sortBy=created_at&order=asc`))).toEqual([a.id, b.id, c.id]);
    expect(ids(await list(admin, `${base}&sortBy=created_at&order=desc`))).toEqual([c.id, b.id, a.id]);
  });

  it('pages with a stable order and clamps perPage to 200', async () => {
    const app = await makeApplication(t, admin);
    const created = [];
    for (let index = 0; index < 5; index += 1) created.push(await makeFinding(t, app.id, { risk_score: 40 }));
    const base = `applicationId=${app.id}`;
    const first = await list(admin, `${base}&perPage=2`);
    const second = await list(admin, `${base}&perPage=2&page=2`);
    const third = await list(admin, `${base}&per_page=2&page=3`);
    expect(first.pagination).toEqual({ page: 1, perPage: 2, total: 5, totalPages: 3 });
    expect(third.pagination).toEqual({ page: 3, perPage: 2, total: 5, totalPages: 3 });
    const seen = [...ids(first), ...ids(second), ...ids(third)];
    expect(seen).toEqual(created.map((finding) => finding.id).reverse());
    const beyond = await list(admin, `${base}&perPage=2&page=9`);
    expect(beyond.findings).toEqual([]);
    expect(beyond.pagination.total).toBe(5);
    expect((await list(admin, `${base}&perPage=5000`)).pagination.perPage).toBe(200);
    expect((await list(admin, base)).pagination).toEqual({ page: 1, perPage: 50, total: 5, totalPages: 1 });
    const none = await list(admin, `${base}&severity=info`);
    expect(none.pagination).toEqual({ page: 1, perPage: 50, total: 0, totalPages: 0 });
  });
  it('runs one page query and one count query however many rows and assignees there are', async () => {
    const app = await makeApplication(t, admin);
    await grant(t, member, app.id, 'read');
    for (let index = 0; index < 30; index += 1) {
      await makeFinding(t, app.id, { assignee_id: index % 2 ? member.id : admin.id });
    }
    // Counted as results, once per statement sent: the page embeds its per-status subqueries,
    // which pass through transformQuery too.
    const statements: string[] = [];
    const counter: KyselyPlugin = {
      transformQuery: (args) => args.node,
      transformResult: async (args) => {
        statements.push('statement');
        return args.result;
      },
    };
    const result = await listFindings(t.db.withPlugin(counter), member.principal, {
      application_id: app.id,
      per_page: 25,
    });
    expect(result.findings).toHaveLength(25);
    expect(result.findings.every((finding) => finding.assignee !== null)).toBe(true);
    expect(result.pagination.total).toBe(30);
    expect(statements).toEqual(['statement', 'statement']);
  });
});

describe('GET /api/findings/{id} and /timeline', () => {
  it('401 without credentials', async () => {
    expect((await t.app.inject({ url: '/api/findings/1' })).statusCode).toBe(401);
    expect((await t.app.inject({ url: '/api/findings/1/timeline' })).statusCode).toBe(401);
  });

  it('404 for unknown, malformed and unreadable ids', async () => {
    const app = await makeApplication(t, admin);
    const finding = await makeFinding(t, app.id);
    for (const id of ['999999', '0', '-1', 'abc', '1.5', '99999999999']) {
      const response = await t.app.inject({ url: `/api/findings/${id}`, headers: admin.headers });
      expect(response.statusCode, id).toBe(404);
      expect(response.json().code).toBe('not_found');
    }
    for (const url of [`/api/findings/${finding.id}`, `/api/findings/${finding.id}/timeline`]) {
      const response = await t.app.inject({ url, headers: outsider.headers });
      expect(response.statusCode, url).toBe(404);
    }
  });

  it('returns every field and a timeline starting with the synthesized creation', async () => {
    const app = await makeApplication(t, admin);
    await grant(t, member, app.id, 'read');
    const scan = await makeScan(app.id);
    const finding = await makeFinding(t, app.id, {
      first_scan_id: scan.id,
      last_scan_id: scan.id,
      description: 'Untrusted input reaches a query',
      remediation: 'Use bind parameters',
      rule_id: 'py/sql-injection',
      column: 4,
      end_line: 12,
      snippet: 'cursor.execute(q)',
      package_name: 'django',
      package_version: '3.2.0',
      fixed_version: '3.2.5',
      cvss_score: 9.8,
      cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
      tool_version: '2.1.0',
      epss: 0.4,
      in_kev: true,
      status: 'confirmed',
    });
    await t.db
      .insertInto('finding_events')
      .values([
        {
          finding_id: finding.id,
          type: 'status_changed',
          actor_user_id: admin.id,
          from_status: 'open',
          to_status: 'confirmed',
        },
        {
          finding_id: finding.id,
          type: 'status_changed',
          actor_system: 'policy:7',
          from_status: 'confirmed',
          to_status: 'confirmed',
          detail: JSON.stringify({ note: 'kept' }),
        },
      ])
      .execute();
    const response = await t.app.inject({ url: `/api/findings/${finding.id}`, headers: member.headers });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toMatchObject({
      id: finding.id,
      scan_id: scan.id,
      first_scan_id: scan.id,
      scanner_type: 'sarif',
      scanner: 'TestTool',
      tool_version: '2.1.0',
      status: 'confirmed',
      description: 'Untrusted input reaches a query',
      remediation: 'Use bind parameters',
      rule_id: 'py/sql-injection',
      location: { file_path: 'src/app.ts', line: 10, column: 4, end_line: 12 },
      snippet: 'cursor.execute(q)',
      package_name: 'django',
      package_version: '3.2.0',
      fixed_version: '3.2.5',
      cvss_score: 9.8,
      cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
      epss: 0.4,
      in_kev: true,
      assignee: null,
      reviewed_at: null,
      reviewed_by: null,
      fixed_at: null,
    });
    for (const field of ['first_seen_at', 'last_seen_at', 'created_at', 'updated_at']) {
      expect(new Date(body[field]).toISOString()).toBe(body[field]);
    }
    expect(body.timeline).toHaveLength(3);
    expect(body.timeline[0]).toMatchObject({
      id: null,
      type: 'created',
      actor: { type: 'system', name: 'ingest' },
      from_status: null,
      to_status: 'open',
      scan_id: scan.id,
      created_at: body.first_seen_at,
    });
    expect(body.timeline[1]).toMatchObject({
      type: 'status_changed',
      actor: { type: 'user', id: admin.id, email: admin.email },
      from_status: 'open',
      to_status: 'confirmed',
    });
    expect(body.timeline[2]).toMatchObject({
      actor: { type: 'system', name: 'policy:7' },
      detail: { note: 'kept' },
    });
    const timeline = await t.app.inject({
      url: `/api/findings/${finding.id}/timeline`,
      headers: member.headers,
    });
    expect(timeline.statusCode).toBe(200);
    expect(timeline.json()).toEqual(body.timeline);
  });

  it('the created entry carries the current status when nothing has changed it', async () => {
    const app = await makeApplication(t, admin);
    const suppressed = await makeFinding(t, app.id, { status: 'false_positive' });
    const response = await t.app.inject({
      url: `/api/findings/${suppressed.id}/timeline`,
      headers: admin.headers,
    });
    expect(response.json()).toEqual([
      expect.objectContaining({ type: 'created', to_status: 'false_positive' }),
    ]);
  });
});

describe('GET /api/applications/{id}/versions/{versionId}/findings', () => {
  it('401, 404 for unknown or unreadable application or version, 400 for bad filters', async () => {
    const app = await makeApplication(t, admin);
    const url = `/api/applications/${app.id}/versions/default/findings`;
    expect((await t.app.inject({ url })).statusCode).toBe(401);
    expect((await t.app.inject({ url, headers: outsider.headers })).statusCode).toBe(404);
    const unknownApp = await t.app.inject({
      url: '/api/applications/999999/versions/default/findings',
      headers: admin.headers,
    });
    expect(unknownApp.statusCode).toBe(404);
    const unknownVersion = await t.app.inject({
      url: `/api/applications/${app.id}/versions/nope/findings`,
      headers: admin.headers,
    });
    expect(unknownVersion.statusCode).toBe(404);
    for (const [query, path] of [
      ['severity=urgent', 'querystring.severity'],
      ['status=gone', 'querystring.status'],
      ['limit=0', 'querystring.limit'],
    ]) {
      const response = await t.app.inject({ url: `${url}?${query}`, headers: admin.headers });
      expect(response.statusCode, query).toBe(400);
      expect(response.json().errors.map((error: { path: string }) => error.path)).toContain(path);
    }
  });

  it('returns a bare array of the version, highest risk first, filtered and capped', async () => {
    const app = await makeApplication(t, admin);
    await grant(t, member, app.id, 'read');
    const other = await t.db
      .insertInto('application_versions')
      .values({ application_id: app.id, name: 'release-2' })
      .returning('id')
      .executeTakeFirstOrThrow();
    const low = await makeFinding(t, app.id, { risk_score: 10, severity: 'low' });
    const high = await makeFinding(t, app.id, { risk_score: 80, severity: 'critical' });
    const fixed = await makeFinding(t, app.id, { risk_score: 50, status: 'fixed' });
    await makeFinding(t, app.id, { version_id: other.id });
    const get = async (path: string) => {
      const response = await t.app.inject({
        url: `/api/applications/${app.id}/versions/${path}`,
        headers: member.headers,
      });
      expect(response.statusCode, response.body).toBe(200);
      return (response.json() as { id: number }[]).map((finding) => finding.id);
    };
    const version = await t.db
      .selectFrom('application_versions')
      .select('id')
      .where('application_id', '=', app.id)
      .where('is_default', '=', true)
      .executeTakeFirstOrThrow();
    expect(await get('default/findings')).toEqual([high.id, fixed.id, low.id]);
    expect(await get(`${version.id}/findings`)).toEqual([high.id, fixed.id, low.id]);
    expect(await get('default/findings?severity=critical,low')).toEqual([high.id, low.id]);
    expect(await get('default/findings?status=closed')).toEqual([fixed.id]);
    expect(await get('default/findings?limit=2')).toEqual([high.id, fixed.id]);
    expect(await get('default/findings?limit=50000')).toHaveLength(3);
    expect((await get('release-2/findings')).length).toBe(1);
  });
});

describe('findings made by ingest', () => {
  const sarif = (messages: string[]) =>
    JSON.stringify({
      version: '2.1.0',
      runs: [
        {
          tool: { driver: { name: 'DemoScanner', rules: [{ id: 'demo/rule' }] } },
          results: messages.map((text, index) => ({
            ruleId: 'demo/rule',
            level: 'error',
            message: { text },
            locations: [
              {
                physicalLocation: { artifactLocation: { uri: `src/${index}.py` }, region: { startLine: 3 } },
              },
            ],
          })),
        },
      ],
    });

  it('list by scan, detail timeline with ingest entries, then triage', async () => {
    const app = await makeApplication(t, admin);
    const url = `/api/applications/${app.id}/ingest`;
    const first = await upload(t, url, admin.headers, { file: sarif(['Alpha issue', 'Bravo issue']) });
    expect(first.statusCode, first.body).toBe(201);
    const second = await upload(t, url, admin.headers, { file: sarif(['Alpha issue']) });
    expect(second.statusCode, second.body).toBe(201);
    const firstScan = first.json().scan.id as number;
    const secondScan = second.json().scan.id as number;

    const listed = await list(admin, `scanId=${firstScan}&sortBy=title&order=asc`);
    expect(listed.findings.map((finding) => [finding.title, finding.status, finding.scan_id])).toEqual([
      ['Alpha issue', 'open', secondScan],
      ['Bravo issue', 'fixed', firstScan],
    ]);
    expect(listed.findings[0]).toMatchObject({
      scanner_type: 'sarif',
      scanner: 'DemoScanner',
      severity: 'high',
    });

    const gone = listed.findings[1]!;
    const detail = (await t.app.inject({ url: `/api/findings/${gone.id}`, headers: admin.headers })).json();
    expect(
      detail.timeline.map((entry: { type: string; actor: object; scan_id: number }) => entry),
    ).toMatchObject([
      { type: 'created', actor: { type: 'system', name: 'ingest' }, to_status: 'open', scan_id: firstScan },
      {
        type: 'fixed',
        actor: { type: 'system', name: 'ingest' },
        from_status: 'open',
        to_status: 'fixed',
        scan_id: secondScan,
      },
    ]);
    const reopened = await t.app.inject({
      method: 'PATCH',
      url: `/api/findings/${gone.id}/status`,
      headers: admin.headers,
      payload: { status: 'open' },
    });
    expect(reopened.statusCode).toBe(200);
    expect(reopened.json()).toMatchObject({ status: 'open', fixed_at: null });
  });
});
