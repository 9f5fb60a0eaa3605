import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshotDatabase } from '../support/route-walk.ts';
import {
  grant,
  makeApplication,
  makeFinding,
  makeGroup,
  makeUser,
  type TestUser,
} from '../support/factories.ts';
import { buildSarif } from '../support/sarif-builder.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { upload } from '../support/upload.ts';

let t: TestApp;
let admin: TestUser;
let triager: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await makeUser(t, { role: 'admin' });
  triager = await makeUser(t);
});
afterAll(() => t.close());

async function createPolicy(body: object) {
  const response = await t.app.inject({
    method: 'POST',
    url: '/api/policies',
    headers: admin.headers,
    payload: body,
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as { id: number };
}

const onApp = (applicationId: number, rest: object) => ({
  name: 'policy',
  scope_type: 'application',
  scope_id: applicationId,
  ...rest,
});

const finding = (id: number) =>
  t.db.selectFrom('findings').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const timeline = (id: number) =>
  t.db.selectFrom('finding_events').selectAll().where('finding_id', '=', id).orderBy('id').execute();

const setStatus = (user: TestUser, id: number, status: string) =>
  t.app.inject({
    method: 'PATCH',
    url: `/api/findings/${id}/status`,
    headers: user.headers,
    payload: { status },
  });

describe('on ingest', () => {
  it('"critical or high under src/api → confirmed and assigned": the 201 answer and the findings already show it', async () => {
    const app = await makeApplication(t, admin);
    await grant(t, triager, app.id, 'write');
    const policy = await createPolicy(
      onApp(app.id, {
        name: 'api criticals',
        event_types: ['finding.created'],
        conditions: [
          { field: 'severity', op: 'gte', value: 'high' },
          { field: 'file_path', op: 'regex', value: '^src/api/' },
        ],
        actions: [
          { type: 'change_status', target: 'confirmed' },
          { type: 'assign_to', target: triager.id },
        ],
      }),
    );
    const sarif = buildSarif({
      results: [
        { ruleId: 'sqli', path: 'src/api/users.ts', line: 3, level: 'error' },
        { ruleId: 'xss', path: 'src/web/page.ts', line: 5, level: 'error' },
        { ruleId: 'lint', path: 'src/api/util.ts', line: 9, level: 'note' },
      ],
    });
    const response = await upload(t, `/api/applications/${app.id}/ingest`, admin.headers, {
      file: sarif,
      fileName: 'r.sarif',
    });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json().new_findings_count).toBe(3);
    const rows = await t.db
      .selectFrom('findings')
      .selectAll()
      .where('application_id', '=', app.id)
      .orderBy('id')
      .execute();
    const byRule = Object.fromEntries(rows.map((row) => [row.rule_id, row]));
    expect(byRule.sqli).toMatchObject({ status: 'confirmed', assignee_id: triager.id });
    expect(byRule.xss).toMatchObject({ status: 'open', assignee_id: null });
    expect(byRule.lint).toMatchObject({ status: 'open', assignee_id: null });

    const entries = await timeline(byRule.sqli?.id ?? 0);
    expect(entries.map((entry) => [entry.type, entry.actor_system])).toEqual(
      expect.arrayContaining([
        ['status_changed', `policy:${policy.id}`],
        ['reassigned', `policy:${policy.id}`],
      ]),
    );
    const events = await t.db
      .selectFrom('events')
      .select(['type', 'finding_id'])
      .where('application_id', '=', app.id)
      .execute();
    expect(
      events
        .filter((event) => event.finding_id === byRule.sqli?.id)
        .map((event) => event.type)
        .sort(),
    ).toEqual(['finding.reassigned', 'finding.status_changed']);

    const runs = await t.app.inject({ url: `/api/policies/${policy.id}/runs`, headers: admin.headers });
    expect(runs.json()).toEqual([
      expect.objectContaining({
        event: 'finding.created',
        depth: 1,
        evaluated: 3,
        matched: 1,
        finding_ids: [byRule.sqli?.id],
        error: null,
      }),
    ]);
    const byFinding = await t.app.inject({
      url: `/api/policies/${policy.id}/runs?finding_id=${byRule.xss?.id}`,
      headers: admin.headers,
    });
    expect(byFinding.json()).toEqual([]);
  });

  it('a disabled policy, and a policy on another application, do nothing', async () => {
    const app = await makeApplication(t, admin);
    const other = await makeApplication(t, admin);
    const everything = {
      event_types: ['finding.created'],
      conditions: [],
      actions: [{ type: 'change_status', target: 'false_positive' }],
    };
    await createPolicy(onApp(app.id, { ...everything, enabled: false }));
    await createPolicy(onApp(other.id, everything));
    const sarif = buildSarif({ results: [{ ruleId: 'r', path: 'a.ts', line: 1, level: 'error' }] });
    expect(
      (await upload(t, `/api/applications/${app.id}/ingest`, admin.headers, { file: sarif })).statusCode,
    ).toBe(201);
    const statuses = await t.db
      .selectFrom('findings')
      .select('status')
      .where('application_id', '=', app.id)
      .execute();
    expect(statuses).toEqual([{ status: 'open' }]);
  });

  it('a group policy acts on the applications of its group', async () => {
    const group = await makeGroup(t, admin);
    const app = await makeApplication(t, admin, { groupId: group.id });
    await createPolicy({
      name: 'group comment',
      scope_type: 'group',
      scope_id: group.id,
      event_types: ['finding.created'],
      conditions: [{ field: 'scanner', op: 'eq', value: 'TestScanner' }],
      actions: [{ type: 'comment', target: 'Triage within a week' }],
    });
    const sarif = buildSarif({ results: [{ ruleId: 'r', path: 'a.ts', line: 1, level: 'warning' }] });
    expect(
      (await upload(t, `/api/applications/${app.id}/ingest`, admin.headers, { file: sarif })).statusCode,
    ).toBe(201);
    const [row] = await t.db
      .selectFrom('findings')
      .select('id')
      .where('application_id', '=', app.id)
      .execute();
    const comments = await t.db
      .selectFrom('finding_comments')
      .selectAll()
      .where('finding_id', '=', row?.id ?? 0)
      .execute();
    expect(comments).toHaveLength(1);
    expect(comments[0]?.author_id).toBeNull();
    expect(comments[0]?.content).toContain('Triage within a week');
    expect(comments[0]?.content).toContain('"group comment"');
    expect(comments[0]?.content).toContain('scanner eq "TestScanner"');
  });
});

describe('on triage changes', () => {
  it('a person confirming a finding sets off a status_changed policy in the same request', async () => {
    const app = await makeApplication(t, admin);
    await grant(t, triager, app.id, 'write');
    await createPolicy(
      onApp(app.id, {
        event_types: ['finding.status_changed'],
        conditions: [{ field: 'status', op: 'eq', value: 'confirmed' }],
        actions: [{ type: 'assign_to', target: triager.id }],
      }),
    );
    const row = await makeFinding(t, app.id);
    const response = await setStatus(triager, row.id, 'confirmed');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ status: 'confirmed', assignee_id: triager.id });
  });

  it('finding.updated reacts to reassignments; the webhook action writes an event for every active webhook', async () => {
    const app = await makeApplication(t, admin);
    const policy = await createPolicy(
      onApp(app.id, { trigger: 'finding.updated', conditions: {}, actions: [{ type: 'webhook' }] }),
    );
    const row = await makeFinding(t, app.id);
    const assigned = await t.app.inject({
      method: 'PATCH',
      url: `/api/findings/${row.id}/assign`,
      headers: admin.headers,
      payload: { userId: admin.id },
    });
    expect(assigned.statusCode).toBe(200);
    const events = await t.db
      .selectFrom('events')
      .selectAll()
      .where('finding_id', '=', row.id)
      .orderBy('id')
      .execute();
    expect(events.map((event) => [event.type, event.policy_id])).toEqual([
      ['finding.reassigned', null],
      ['finding.reassigned', policy.id],
    ]);
  });
});

describe('cascades', () => {
  it('stop at depth 3: four chained policies, the fourth never runs', async () => {
    const app = await makeApplication(t, admin);
    const chain: [string, string][] = [
      ['confirmed', 'false_positive'],
      ['false_positive', 'fixed'],
      ['fixed', 'open'],
      ['open', 'confirmed'],
    ];
    const ids: number[] = [];
    for (const [from, to] of chain) {
      const policy = await createPolicy(
        onApp(app.id, {
          event_types: ['finding.status_changed'],
          conditions: [{ field: 'status', op: 'eq', value: from }],
          actions: [{ type: 'change_status', target: to }],
        }),
      );
      ids.push(policy.id);
    }
    const row = await makeFinding(t, app.id);
    expect((await setStatus(admin, row.id, 'confirmed')).statusCode).toBe(200);
    expect((await finding(row.id)).status).toBe('open');
    const moves = (await timeline(row.id)).filter((entry) => entry.type === 'status_changed');
    expect(moves.map((entry) => [entry.to_status, entry.actor_system])).toEqual([
      ['confirmed', null],
      ['false_positive', `policy:${ids[0]}`],
      ['fixed', `policy:${ids[1]}`],
      ['open', `policy:${ids[2]}`],
    ]);
  });

  it('a policy acts once per finding in a cascade: two policies flipping a status stop', async () => {
    const app = await makeApplication(t, admin);
    for (const [from, to] of [
      ['confirmed', 'false_positive'],
      ['false_positive', 'confirmed'],
    ]) {
      await createPolicy(
        onApp(app.id, {
          event_types: ['finding.status_changed'],
          conditions: [{ field: 'status', op: 'eq', value: from }],
          actions: [{ type: 'change_status', target: to }],
        }),
      );
    }
    const row = await makeFinding(t, app.id);
    expect((await setStatus(admin, row.id, 'confirmed')).statusCode).toBe(200);
    const moves = (await timeline(row.id)).filter((entry) => entry.type === 'status_changed');
    expect(moves.map((entry) => entry.to_status)).toEqual(['confirmed', 'false_positive', 'confirmed']);
  });
});

describe('every condition op, through the dry run', () => {
  let app: { id: number };
  const ids: Record<string, number> = {};
  beforeAll(async () => {
    app = await makeApplication(t, admin);
    ids.a = (
      await makeFinding(t, app.id, {
        severity: 'critical',
        severity_rank: 5,
        risk_score: 90,
        title: 'SQL injection',
        rule_id: 'sqli',
        file_path: 'src/api/db.ts',
        cwe_id: 89,
        cwe_ids: [89, 20],
      })
    ).id;
    ids.b = (
      await makeFinding(t, app.id, {
        severity: 'medium',
        severity_rank: 3,
        risk_score: 40,
        title: 'Reflected XSS',
        rule_id: 'xss',
        file_path: 'src/web/page.ts',
        cwe_id: 79,
        cwe_ids: [79],
      })
    ).id;
    ids.c = (
      await makeFinding(t, app.id, {
        severity: 'low',
        severity_rank: 2,
        risk_score: 10,
        title: 'Missing header',
        rule_id: null,
        file_path: null,
        status: 'confirmed',
      })
    ).id;
  });

  async function matches(conditions: object[]) {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/policies/test',
      headers: admin.headers,
      payload: onApp(app.id, {
        event_types: ['finding.created'],
        conditions,
        actions: [{ type: 'webhook' }],
      }),
    });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json() as { matched: number; findings: { id: number }[] };
    const names = Object.entries(ids)
      .filter(([, id]) => body.findings.some((f) => f.id === id))
      .map(([name]) => name);
    expect(body.matched).toBe(names.length);
    return names.sort();
  }

  it.each([
    [[{ field: 'severity', op: 'gte', value: 'medium' }], ['a', 'b']],
    [[{ field: 'severity', op: 'lte', value: 'medium' }], ['b', 'c']],
    [[{ field: 'severity', op: 'in', value: ['critical', 'low'] }], ['a', 'c']],
    [[{ field: 'severity', op: 'not_in', value: ['critical'] }], ['b', 'c']],
    [[{ field: 'risk_score', op: 'gte', value: 40 }], ['a', 'b']],
    [[{ field: 'risk_score', op: 'lte', value: 40 }], ['b', 'c']],
    [[{ field: 'status', op: 'eq', value: 'confirmed' }], ['c']],
    [[{ field: 'status', op: 'neq', value: 'confirmed' }], ['a', 'b']],
    [[{ field: 'cwe_id', op: 'eq', value: 'CWE-20' }], ['a']],
    [[{ field: 'cwe_id', op: 'in', value: [79, 89] }], ['a', 'b']],
    [[{ field: 'cwe_id', op: 'not_in', value: [79] }], ['a', 'c']],
    [[{ field: 'rule_id', op: 'neq', value: 'xss' }], ['a', 'c']],
    [[{ field: 'rule_id', op: 'eq', value: 'xss' }], ['b']],
    [[{ field: 'file_path', op: 'regex', value: '^src/(api|web)/' }], ['a', 'b']],
    [[{ field: 'title', op: 'regex', value: '(?i)injection' }], ['a']],
    [[{ field: 'scanner_type', op: 'eq', value: 'sarif' }], ['a', 'b', 'c']],
    [[{ field: 'scanner', op: 'in', value: ['TestTool'] }], ['a', 'b', 'c']],
    [
      [
        { field: 'severity', op: 'gte', value: 'medium' },
        { field: 'title', op: 'regex', value: 'XSS' },
      ],
      ['b'],
    ],
  ])('%j matches %j', async (conditions, expected) => {
    expect(await matches(conditions)).toEqual(expected);
  });

  it('a catastrophic-backtracking pattern on a long title finishes in milliseconds (RE2 is linear)', async () => {
    await makeFinding(t, app.id, { title: `${'a'.repeat(30_000)}!` });
    const started = performance.now();
    expect(await matches([{ field: 'title', op: 'regex', value: '^(a+)+$' }])).toEqual([]);
    // A backtracking engine needs about 2^30000 steps here; the bound only guards against that.
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('a dry run reports the effects and changes nothing', async () => {
    const policy = await createPolicy(
      onApp(app.id, {
        event_types: ['finding.created'],
        conditions: [{ field: 'severity', op: 'gte', value: 'low' }],
        actions: [
          { type: 'change_status', target: 'confirmed' },
          { type: 'assign_to', target: admin.id },
          { type: 'comment' },
        ],
      }),
    );
    const before = await snapshotDatabase(t);
    const response = await t.app.inject({
      method: 'POST',
      url: `/api/policies/${policy.id}/test`,
      headers: admin.headers,
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      matched: 4,
      effects: [
        { type: 'change_status', would_change: 3 },
        { type: 'assign_to', would_change: 4 },
        { type: 'comment', would_change: 4 },
      ],
    });
    expect(await snapshotDatabase(t)).toEqual(before);
    const reader = await makeUser(t);
    await grant(t, reader, app.id, 'read');
    const refused = await t.app.inject({
      method: 'POST',
      url: `/api/policies/${policy.id}/test`,
      headers: reader.headers,
    });
    expect(refused.statusCode).toBe(403);
  });
});
