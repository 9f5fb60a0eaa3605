import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeApplication, makeFinding, grant, type TestUser, makePeople } from '../support/factories.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

/**
 * Issue 46 item 6: a VEX document in. Statements match findings by vulnerability id (and aliases)
 * and package URL; not_affected makes an acceptance through the acceptances service (four-eyes
 * applies), fixed a timeline entry, under_investigation a comment; the report says what matched and
 * why not; a malformed document is a 400 naming the path and changes nothing; the same document
 * again, or its statements in another order, changes nothing.
 */

let t: TestApp;
let admin: TestUser;
let writer: TestUser;
let reader: TestUser;
let outsider: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  ({ admin, writer, reader, outsider } = await makePeople(t));
});
afterAll(() => t.close());

async function appWithFindings() {
  const app = await makeApplication(t, admin);
  await grant(t, writer, app.id, 'write');
  await grant(t, reader, app.id, 'read');
  const dependency = (name: string, cve: string, extra: Record<string, unknown> = {}) =>
    makeFinding(t, app.id, {
      kind: 'dependency',
      rule_id: cve,
      cve_ids: [cve],
      package_name: name,
      package_version: '1.0.0',
      file_path: 'package-lock.json',
      line: null,
      ...extra,
    });
  const findings = {
    lodash: await dependency('lodash', 'CVE-2024-1001'),
    scoped: await dependency('@acme/parser', 'CVE-2024-1002', {
      rule_id: 'GHSA-aaaa-bbbb-cccc',
      cve_ids: [],
    }),
    minimist: await dependency('minimist', 'CVE-2024-1003'),
    qs: await dependency('qs', 'CVE-2024-1004'),
    log4j: await dependency('org.apache.logging.log4j:log4j-core', 'CVE-2021-44228', {
      package_version: '2.13.2',
    }),
  };
  return { app, findings };
}

const importVex = (applicationId: number, document: unknown, user: TestUser = writer) =>
  t.app.inject({
    method: 'POST',
    url: `/api/applications/${applicationId}/vex`,
    headers: user.headers,
    payload: document as object,
  });

const openVex = (statements: unknown[], extra: Record<string, unknown> = {}) => ({
  '@context': 'https://openvex.dev/ns/v0.2.0',
  '@id': 'https://vendor.example/vex/2024-001',
  author: 'Vendor Security Team <security@vendor.example>',
  timestamp: '2024-05-01T10:00:00Z',
  version: 1,
  statements,
  ...extra,
});

const product = (...purls: string[]) => [
  { '@id': 'pkg:oci/shop@sha256%3Aabc', subcomponents: purls.map((purl) => ({ '@id': purl })) },
];

const finding = (id: number) =>
  t.db.selectFrom('findings').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

/** What an import may change, for one application: findings, acceptances, comments, timeline. */
async function stateOf(applicationId: number) {
  const findings = await t.db
    .selectFrom('findings')
    .select(['id', 'status', 'dismissal_reason', 'acceptance_id'])
    .where('application_id', '=', applicationId)
    .orderBy('id')
    .execute();
  const ids = findings.map((f) => f.id);
  const acceptances = await t.db
    .selectFrom('acceptances')
    .select([
      'id',
      'status',
      'reason',
      'justification',
      'impact_statement',
      'match_cve',
      'match_rule_id',
      'match_package',
      'source',
    ])
    .where('application_id', '=', applicationId)
    .orderBy('id')
    .execute();
  const comments = await t.db
    .selectFrom('finding_comments')
    .select(['id', 'finding_id', 'content'])
    .where('finding_id', 'in', ids)
    .orderBy('id')
    .execute();
  const events = await t.db
    .selectFrom('finding_events')
    .select(['id', 'finding_id', 'type', 'detail'])
    .where('finding_id', 'in', ids)
    .orderBy('id')
    .execute();
  return { findings, acceptances, comments, events };
}

describe('POST /api/applications/{id}/vex (OpenVEX)', () => {
  it('not_affected makes an acceptance carrying the justification and author; fixed and under_investigation are recorded; the report says what did not match and why', async () => {
    const { app, findings } = await appWithFindings();
    const document = openVex([
      {
        vulnerability: { name: 'CVE-2024-1001' },
        products: product('pkg:npm/lodash@1.0.0'),
        status: 'not_affected',
        justification: 'vulnerable_code_not_in_execute_path',
        impact_statement: 'lodash.template is never called.',
      },
      {
        // By alias: the finding's advisory id; the scoped npm name by its purl namespace.
        vulnerability: { name: 'CVE-2099-0001', aliases: ['GHSA-aaaa-bbbb-cccc'] },
        products: product('pkg:npm/%40acme/parser'),
        status: 'under_investigation',
        status_notes: 'Checking whether the parser path is reachable.',
      },
      {
        vulnerability: { name: 'cve-2024-1003' },
        products: product('pkg:npm/minimist@1.0.0'),
        status: 'fixed',
      },
      {
        vulnerability: { name: 'CVE-2024-1004' },
        products: product('pkg:npm/qs@2.0.0'),
        status: 'not_affected',
        justification: 'component_not_present',
      },
      { vulnerability: { name: 'CVE-2030-0000' }, products: product('pkg:npm/lodash'), status: 'fixed' },
      {
        vulnerability: { name: 'CVE-2021-44228' },
        products: product('pkg:maven/org.apache.logging.log4j/log4j-core@2.13.2'),
        status: 'affected',
        action_statement: 'Upgrade to 2.17.1.',
      },
    ]);
    const response = await importVex(app.id, document);
    expect(response.statusCode, response.body).toBe(200);
    const report = response.json();
    expect(report).toMatchObject({
      format: 'openvex',
      document_id: 'https://vendor.example/vex/2024-001',
      author: 'Vendor Security Team <security@vendor.example>',
      statements: 6,
      changed: true,
    });
    expect(report.matched.map((m: { path: string; action: string }) => [m.path, m.action])).toEqual([
      ['statements.0', 'acceptance_created'],
      ['statements.1', 'comment_added'],
      ['statements.2', 'timeline_recorded'],
      ['statements.5', 'comment_added'],
    ]);
    expect(report.unmatched).toEqual([
      expect.objectContaining({
        path: 'statements.3',
        reason: 'no_finding_on_product',
        vulnerability: 'CVE-2024-1004',
      }),
      expect.objectContaining({ path: 'statements.4', reason: 'no_finding_for_vulnerability' }),
    ]);

    const acceptanceId = report.matched[0].acceptance_ids[0] as number;
    expect(report.matched[0]).toMatchObject({
      finding_ids: [findings.lodash.id],
      acceptance_status: 'active',
    });
    const acceptance = await t.db
      .selectFrom('acceptances')
      .selectAll()
      .where('id', '=', acceptanceId)
      .executeTakeFirstOrThrow();
    expect(acceptance).toMatchObject({
      status: 'active',
      reason: 'false_positive',
      justification: 'vulnerable_code_not_in_execute_path',
      impact_statement: 'lodash.template is never called.',
      match_cve: 'CVE-2024-1001',
      match_package: 'lodash',
      created_by: writer.id,
      expires_at: null,
    });
    expect(acceptance.source).toMatchObject({
      type: 'vex',
      format: 'openvex',
      author: 'Vendor Security Team <security@vendor.example>',
      document_id: 'https://vendor.example/vex/2024-001',
    });
    expect(await finding(findings.lodash.id)).toMatchObject({
      status: 'false_positive',
      dismissal_reason: 'false_positive',
      acceptance_id: acceptanceId,
    });
    // fixed is a timeline entry only; the status is the scans' to change.
    expect((await finding(findings.minimist.id)).status).toBe('open');
    const events = await t.db
      .selectFrom('finding_events')
      .selectAll()
      .where('finding_id', '=', findings.minimist.id)
      .execute();
    expect(events).toEqual([expect.objectContaining({ type: 'vex_statement', actor_user_id: writer.id })]);
    expect(events[0]?.detail).toMatchObject({
      status: 'fixed',
      vulnerability: 'CVE-2024-1003',
      format: 'openvex',
    });
    const comments = await t.db
      .selectFrom('finding_comments')
      .selectAll()
      .where('finding_id', 'in', [findings.scoped.id, findings.log4j.id])
      .orderBy('finding_id')
      .execute();
    expect(comments.map((c) => c.finding_id)).toEqual([findings.scoped.id, findings.log4j.id]);
    expect(comments[0]?.content).toContain('under investigation');
    expect(comments[0]?.content).toContain('Checking whether the parser path is reachable.');
    expect(comments[1]?.content).toContain('Upgrade to 2.17.1.');
    // qs was not touched (another version of it).
    expect((await finding(findings.qs.id)).status).toBe('open');
    const audit = await t.db
      .selectFrom('audit_events')
      .selectAll()
      .where('action', '=', 'vex.imported')
      .where('application_id', '=', app.id)
      .execute();
    expect(audit).toHaveLength(1);

    // The same document again: the same matches, nothing changed.
    const before = await stateOf(app.id);
    const again = await importVex(app.id, document);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toMatchObject({ changed: false, unmatched: report.unmatched });
    expect(again.json().matched.map((m: { action: string }) => m.action)).toEqual([
      'acceptance_exists',
      'already_recorded',
      'already_recorded',
      'already_recorded',
    ]);
    expect(await stateOf(app.id)).toEqual(before);
  });
});

describe('POST /api/applications/{id}/vex (CycloneDX, four-eyes, refusals)', () => {
  it('reads CycloneDX VEX: refs by bom-ref, BOM-links and purls; states and justifications mapped', async () => {
    const { app, findings } = await appWithFindings();
    const response = await importVex(app.id, {
      bomFormat: 'CycloneDX',
      specVersion: '1.6',
      serialNumber: 'urn:uuid:3e671687-395b-41f5-a30f-a58921a69b79',
      version: 1,
      metadata: {
        authors: [{ name: 'Supplier PSIRT' }],
        component: { type: 'application', 'bom-ref': 'product', name: 'shop' },
      },
      components: [
        { type: 'library', 'bom-ref': 'lodash-ref', name: 'lodash', purl: 'pkg:npm/lodash@1.0.0' },
      ],
      vulnerabilities: [
        {
          id: 'CVE-2024-1001',
          analysis: { state: 'not_affected', justification: 'code_not_reachable', detail: 'Never called.' },
          affects: [{ ref: 'lodash-ref' }],
        },
        {
          id: 'CVE-2021-44228',
          analysis: { state: 'resolved' },
          affects: [
            {
              ref: 'urn:cdx:3e671687-395b-41f5-a30f-a58921a69b79/1#pkg:maven/org.apache.logging.log4j/log4j-core@2.13.2',
            },
          ],
        },
        { id: 'CVE-2024-1003', analysis: { state: 'false_positive' }, affects: [{ ref: 'product' }] },
      ],
    });
    expect(response.statusCode, response.body).toBe(200);
    const report = response.json();
    expect(report).toMatchObject({ format: 'cyclonedx', author: 'Supplier PSIRT', unmatched: [] });
    expect(report.matched.map((m: { action: string }) => m.action)).toEqual([
      'acceptance_created',
      'timeline_recorded',
      'acceptance_created',
    ]);
    const acceptances = await t.db
      .selectFrom('acceptances')
      .selectAll()
      .where('application_id', '=', app.id)
      .orderBy('match_cve')
      .execute();
    expect(
      acceptances.map((a) => [a.match_cve, a.match_package, a.justification, a.impact_statement]),
    ).toEqual([
      ['CVE-2024-1001', 'lodash', 'vulnerable_code_not_in_execute_path', 'Never called.'],
      // The product itself: the vulnerability in any package of the application.
      ['CVE-2024-1003', null, 'vulnerable_code_not_present', null],
    ]);
    expect((await finding(findings.minimist.id)).status).toBe('false_positive');
  });

  it('under four-eyes the acceptance is pending and changes no finding until a second person approves', async () => {
    const { app, findings } = await appWithFindings();
    const settings = await t.app.inject({
      method: 'PUT',
      url: `/api/groups/${app.group_id}/acceptance-settings`,
      headers: admin.headers,
      payload: { four_eyes: true },
    });
    expect(settings.statusCode, settings.body).toBe(200);
    const document = openVex([
      {
        vulnerability: { name: 'CVE-2024-1001' },
        products: product('pkg:npm/lodash'),
        status: 'not_affected',
        justification: 'vulnerable_code_not_present',
      },
    ]);
    const response = await importVex(app.id, document);
    expect(response.statusCode, response.body).toBe(200);
    const matched = response.json().matched[0];
    expect(matched).toMatchObject({ action: 'acceptance_created', acceptance_status: 'pending' });
    expect((await finding(findings.lodash.id)).status).toBe('open');
    // Importing it again finds the pending acceptance; its author cannot approve it, another writer can.
    expect((await importVex(app.id, document)).json().matched[0].action).toBe('acceptance_exists');
    const id = matched.acceptance_ids[0] as number;
    const self = await t.app.inject({
      method: 'POST',
      url: `/api/acceptances/${id}/approve`,
      headers: writer.headers,
      payload: {},
    });
    expect(self.statusCode).toBe(403);
    const approved = await t.app.inject({
      method: 'POST',
      url: `/api/acceptances/${id}/approve`,
      headers: admin.headers,
      payload: {},
    });
    expect(approved.statusCode, approved.body).toBe(200);
    expect(await finding(findings.lodash.id)).toMatchObject({ status: 'false_positive', acceptance_id: id });
  });

  it('a malformed document is a 400 naming the JSON path, and changes nothing', async () => {
    const { app } = await appWithFindings();
    const good = {
      vulnerability: { name: 'CVE-2024-1001' },
      products: product('pkg:npm/lodash'),
      status: 'fixed',
    };
    const cases: [unknown, string][] = [
      [openVex([good, { ...good, status: 'not_affected' }]), 'body.statements.1.justification'],
      [openVex([{ ...good, status: 'affected' }]), 'body.statements.0.action_statement'],
      [openVex([{ ...good, status: 'maybe' }]), 'body.statements.0.status'],
      [openVex([{ ...good, colour: 'red' }]), 'body.statements.0.colour'],
      [openVex([{ ...good, products: product('pkg:') }]), 'body.statements.0.products.0.subcomponents.0.@id'],
      [openVex([good], { '@context': 'https://example.test/vex' }), 'body.@context'],
      [openVex([]), 'body.statements'],
      [{ ...openVex([good]), author: undefined }, 'body.author'],
      [{ ...openVex([good]), bomFormat: 'CycloneDX' }, 'body'],
      [{ hello: 'world' }, 'body.hello'],
      [{ version: 1 }, 'body'],
      [
        { bomFormat: 'CycloneDX', specVersion: '1.6', vulnerabilities: [{ id: 'CVE-1', affects: [] }] },
        'body.vulnerabilities.0.analysis.state',
      ],
      [{ bomFormat: 'CycloneDX', specVersion: '2.0', vulnerabilities: [] }, 'body.specVersion'],
    ];
    const before = await stateOf(app.id);
    for (const [document, path] of cases) {
      const response = await importVex(app.id, document);
      expect(response.statusCode, `${path}: ${response.body}`).toBe(400);
      expect(response.headers['content-type']).toContain('application/problem+json');
      const paths = (response.json().errors ?? []).map((issue: { path: string }) => issue.path);
      expect(paths, response.body).toContain(path);
    }
    // A valid statement beside a malformed one is not applied either.
    expect(await stateOf(app.id)).toEqual(before);
  });

  it('401 without credentials, 404 for an outsider, 403 for a reader', async () => {
    const { app } = await appWithFindings();
    const document = openVex([
      { vulnerability: { name: 'CVE-2024-1003' }, products: product('pkg:npm/minimist'), status: 'fixed' },
    ]);
    const anonymous = await t.app.inject({
      method: 'POST',
      url: `/api/applications/${app.id}/vex`,
      payload: document,
    });
    expect(anonymous.statusCode).toBe(401);
    expect((await importVex(app.id, document, outsider)).statusCode).toBe(404);
    expect((await importVex(app.id, document, reader)).statusCode).toBe(403);
    expect((await stateOf(app.id)).events).toEqual([]);
  });
});

describe('importing is idempotent', () => {
  const STATEMENTS = [
    {
      vulnerability: { name: 'CVE-2024-1001' },
      products: product('pkg:npm/lodash@1.0.0'),
      status: 'not_affected',
      justification: 'vulnerable_code_not_present',
    },
    {
      vulnerability: { name: 'CVE-2024-1001' },
      products: product('pkg:npm/lodash'),
      status: 'not_affected',
      impact_statement: 'Only lodash.get is used.',
    },
    { vulnerability: { name: 'CVE-2024-1003' }, products: product('pkg:npm/minimist'), status: 'fixed' },
    {
      vulnerability: { name: 'CVE-2024-1003' },
      status: 'under_investigation',
      status_notes: 'Asking upstream.',
    },
    {
      vulnerability: { name: 'X-1', aliases: ['GHSA-aaaa-bbbb-cccc'] },
      status: 'affected',
      action_statement: 'Pin 2.0.',
    },
    {
      vulnerability: { name: 'CVE-2021-44228' },
      products: product('pkg:maven/org.apache.logging.log4j/log4j-core@2.13.2'),
      status: 'not_affected',
      justification: 'vulnerable_code_cannot_be_controlled_by_adversary',
    },
    { vulnerability: { name: 'CVE-2024-1004' }, products: product('pkg:npm/qs@9'), status: 'fixed' },
  ];

  /** A state with the ids replaced by their rank, to compare two applications. */
  async function normalized(applicationId: number) {
    const state = await stateOf(applicationId);
    const rank = (list: { id: number }[]) => new Map(list.map((row, index) => [row.id, index]));
    const findings = rank(state.findings);
    const acceptances = rank(state.acceptances);
    const comments = rank(state.comments);
    return {
      findings: state.findings.map((f) => ({
        ...f,
        id: findings.get(f.id),
        acceptance_id: f.acceptance_id === null ? null : acceptances.get(f.acceptance_id),
      })),
      acceptances: state.acceptances.map((a) => ({ ...a, id: acceptances.get(a.id) })),
      comments: state.comments.map((c) => ({
        ...c,
        id: comments.get(c.id),
        finding_id: findings.get(c.finding_id),
      })),
      events: state.events.map((e) => ({
        type: e.type,
        finding_id: findings.get(e.finding_id),
        detail: {
          ...(e.detail as Record<string, unknown>),
          ...((e.detail as Record<string, unknown> | null)?.['comment_id'] !== undefined
            ? { comment_id: comments.get((e.detail as { comment_id: number }).comment_id) }
            : {}),
          ...((e.detail as Record<string, unknown> | null)?.['acceptance_id'] !== undefined
            ? { acceptance_id: acceptances.get((e.detail as { acceptance_id: number }).acceptance_id) }
            : {}),
        },
      })),
    };
  }

  it('the same statements twice, or reordered, or repeated, give the same state (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc
          .subarray(STATEMENTS, { minLength: 1 })
          .chain((chosen) =>
            fc.tuple(
              fc.constant(chosen),
              fc.shuffledSubarray(chosen, { minLength: chosen.length }),
              fc.boolean(),
            ),
          ),
        async ([chosen, shuffled, repeat]) => {
          const first = await appWithFindings();
          const second = await appWithFindings();
          expect((await importVex(first.app.id, openVex(chosen))).statusCode).toBe(200);
          const once = await stateOf(first.app.id);
          // Again, in another order, perhaps with a statement twice: nothing changes.
          const again = await importVex(
            first.app.id,
            openVex(repeat ? [...shuffled, shuffled[0]] : shuffled),
          );
          expect(again.statusCode, again.body).toBe(200);
          expect(again.json().changed).toBe(false);
          expect(await stateOf(first.app.id)).toEqual(once);
          // Reordered into a fresh application: the same state, ids aside.
          expect((await importVex(second.app.id, openVex(shuffled))).statusCode).toBe(200);
          expect(await normalized(second.app.id)).toEqual(await normalized(first.app.id));
        },
      ),
      { numRuns: 12 },
    );
  });
});
