import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statementsOf, type VexFinding } from '../../src/modules/vex/vex-statements.ts';
import { makeApplication, makeCast, makeFinding, type Cast } from '../support/factories.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { upload } from '../support/upload.ts';
import { cycloneDxErrors, openVexErrors } from './vex-support.ts';

/**
 * Issue 46 item 5: a version's VEX out, OpenVEX 0.2.0 and CycloneDX 1.6, valid against the official
 * schemas, with statements from the findings' states, in a stable order.
 */

let t: TestApp;
let cast: Cast;
let versionId: number;
const ids = {} as Record<
  'untriaged' | 'confirmed' | 'fixed' | 'falsePositive' | 'accepted' | 'acceptedRisk' | 'code',
  number
>;

const vexUrl = (applicationId: number, version: number, format: string) =>
  `/api/applications/${applicationId}/versions/${version}/vex?format=${format}`;

beforeAll(async () => {
  t = await createTestApp();
  cast = await makeCast(t);
  versionId = (
    await t.db
      .selectFrom('application_versions')
      .select('id')
      .where('application_id', '=', cast.applicationId)
      .executeTakeFirstOrThrow()
  ).id;
  const dependency = (name: string, cve: string, extra: Record<string, unknown> = {}) =>
    makeFinding(t, cast.applicationId, {
      kind: 'dependency',
      rule_id: cve,
      cve_ids: [cve],
      package_name: name,
      package_version: '1.0.0',
      file_path: 'package-lock.json',
      line: null,
      ...extra,
    });
  ids.untriaged = (await dependency('left-pad', 'CVE-2024-0001', { rule_id: 'GHSA-2222-3333-4444' })).id;
  ids.confirmed = (
    await dependency('lodash', 'CVE-2024-0002', { status: 'confirmed', fixed_version: '1.0.1' })
  ).id;
  ids.fixed = (await dependency('minimist', 'CVE-2024-0003', { status: 'fixed' })).id;
  ids.falsePositive = (
    await dependency('qs', 'CVE-2024-0004', {
      status: 'false_positive',
      dismissal_reason: 'false_positive',
      dismissal_comment: 'Only the type definitions ship.',
    })
  ).id;
  ids.accepted = (await dependency('express', 'CVE-2024-0005')).id;
  ids.acceptedRisk = (await dependency('axios', 'CVE-2024-0006')).id;
  ids.code = (await makeFinding(t, cast.applicationId, { rule_id: 'js/xss' })).id;
  const accept = async (body: Record<string, unknown>) => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/acceptances',
      headers: cast.admin.headers,
      payload: { application_id: cast.applicationId, ...body },
    });
    expect(response.statusCode, response.body).toBe(201);
  };
  const in90Days = new Date(Date.now() + 90 * 86_400_000).toISOString();
  await accept({
    finding_ids: [ids.accepted],
    reason: 'accepted_risk',
    justification: 'vulnerable_code_not_in_execute_path',
    impact_statement: 'The vulnerable router is never mounted.',
    expires_at: in90Days,
  });
  await accept({ finding_ids: [ids.acceptedRisk], reason: 'accepted_risk', expires_at: in90Days });
});
afterAll(() => t.close());

async function exportVex(format: 'openvex' | 'cyclonedx', headers = cast.reader.headers) {
  return t.app.inject({ url: vexUrl(cast.applicationId, versionId, format), headers });
}

type Statement = {
  vulnerability: { name: string; aliases?: string[] };
  products: { '@id': string; subcomponents?: { '@id': string }[] }[];
  status: string;
  justification?: string;
  impact_statement?: string;
  action_statement?: string;
  status_notes?: string;
};

describe('GET …/versions/{versionId}/vex?format=openvex', () => {
  it('is OpenVEX 0.2.0, valid against the official schema, one statement per vulnerability and package', async () => {
    const response = await exportVex('openvex');
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toContain('application/vnd.openvex+json');
    expect(response.headers['content-disposition']).toContain(`vex-${versionId}.openvex.json`);
    const document = response.json();
    expect(openVexErrors(document)).toBeNull();
    // The validator is not vacuous: what the schema forbids is refused.
    expect(openVexErrors({ ...document, statements: [] })).not.toBeNull();
    expect(
      openVexErrors({
        ...document,
        statements: [{ ...document.statements[1], action_statement: undefined }],
      }),
    ).not.toBeNull();
    expect(document['@context']).toBe('https://openvex.dev/ns/v0.2.0');
    const statements = document.statements as Statement[];
    const byName = new Map(statements.map((s) => [s.vulnerability.name, s]));
    // The code finding without a CVE is not a VEX statement.
    expect([...byName.keys()]).toEqual([
      'CVE-2024-0001',
      'CVE-2024-0002',
      'CVE-2024-0003',
      'CVE-2024-0004',
      'CVE-2024-0005',
      'CVE-2024-0006',
    ]);
    expect(byName.get('CVE-2024-0001')).toMatchObject({
      status: 'under_investigation',
      vulnerability: { aliases: ['GHSA-2222-3333-4444'] },
      products: [{ subcomponents: [{ '@id': 'pkg:generic/left-pad@1.0.0' }] }],
    });
    expect(byName.get('CVE-2024-0002')).toMatchObject({
      status: 'affected',
      action_statement: 'Upgrade lodash to 1.0.1 or later.',
    });
    expect(byName.get('CVE-2024-0003')?.status).toBe('fixed');
    expect(byName.get('CVE-2024-0004')).toMatchObject({
      status: 'not_affected',
      justification: 'vulnerable_code_not_present',
      status_notes: 'Only the type definitions ship.',
    });
    expect(byName.get('CVE-2024-0005')).toMatchObject({
      status: 'not_affected',
      justification: 'vulnerable_code_not_in_execute_path',
      impact_statement: 'The vulnerable router is never mounted.',
    });
    expect(byName.get('CVE-2024-0006')).toMatchObject({ status: 'affected' });
    expect(byName.get('CVE-2024-0006')?.action_statement).toMatch(/^Risk accepted until \d{4}-\d{2}-\d{2}$/);
    const product = statements[0]?.products[0]?.['@id'];
    expect(product).toMatch(/^pkg:generic\/app-[^@]+@default$/);
  });

  it('the same state gives the same document apart from its timestamp; a change of state changes its id', async () => {
    const first = (await exportVex('openvex')).json();
    const second = (await exportVex('openvex')).json();
    expect({ ...second, timestamp: null }).toEqual({ ...first, timestamp: null });
    expect(first['@id']).toMatch(
      /^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    await t.db.updateTable('findings').set({ status: 'fixed' }).where('id', '=', ids.confirmed).execute();
    const third = (await exportVex('openvex')).json();
    expect(third['@id']).not.toBe(first['@id']);
    await t.db.updateTable('findings').set({ status: 'confirmed' }).where('id', '=', ids.confirmed).execute();
    expect((await exportVex('openvex')).json()['@id']).toBe(first['@id']);
  });

  it('a version with no vulnerability finding: 409 in OpenVEX (it needs a statement), an empty but valid CycloneDX VEX', async () => {
    const app = await makeApplication(t, cast.admin);
    const version = (
      await t.db
        .selectFrom('application_versions')
        .select('id')
        .where('application_id', '=', app.id)
        .executeTakeFirstOrThrow()
    ).id;
    const openVex = await t.app.inject({
      url: vexUrl(app.id, version, 'openvex'),
      headers: cast.admin.headers,
    });
    expect(openVex.statusCode).toBe(409);
    expect(openVex.json().code).toBe('nothing_to_state');
    const cdx = await t.app.inject({
      url: vexUrl(app.id, version, 'cyclonedx'),
      headers: cast.admin.headers,
    });
    expect(cdx.statusCode).toBe(200);
    expect(await cycloneDxErrors(cdx.body)).toBeNull();
    expect(cdx.json().vulnerabilities).toEqual([]);
  });

  it('401 without credentials, 404 for an outsider or another application’s version, 400 without or with a bad format', async () => {
    expect((await t.app.inject({ url: vexUrl(cast.applicationId, versionId, 'openvex') })).statusCode).toBe(
      401,
    );
    expect((await exportVex('openvex', cast.outsider.headers)).statusCode).toBe(404);
    const other = await makeApplication(t, cast.admin);
    const foreign = await t.app.inject({
      url: vexUrl(other.id, versionId, 'openvex'),
      headers: cast.admin.headers,
    });
    expect(foreign.statusCode).toBe(404);
    for (const query of ['', '?format=csaf', '?format=openvex&x=1']) {
      const response = await t.app.inject({
        url: `/api/applications/${cast.applicationId}/versions/${versionId}/vex${query}`,
        headers: cast.admin.headers,
      });
      expect(response.statusCode, query).toBe(400);
      expect(response.headers['content-type']).toContain('application/problem+json');
    }
  });
});

describe('GET …/vex?format=cyclonedx', () => {
  it('is CycloneDX 1.6 VEX valid against the official schema, with analysis states and mapped justifications', async () => {
    const response = await exportVex('cyclonedx');
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toContain('application/vnd.cyclonedx+json');
    expect(await cycloneDxErrors(response.body)).toBeNull();
    const bom = response.json();
    const broken = { ...bom, vulnerabilities: [{ ...bom.vulnerabilities[0], analysis: { state: 'maybe' } }] };
    expect(await cycloneDxErrors(JSON.stringify(broken))).not.toBeNull();
    expect(bom).toMatchObject({ bomFormat: 'CycloneDX', specVersion: '1.6' });
    const byId = new Map(
      (
        bom.vulnerabilities as { id: string; analysis: Record<string, unknown>; affects: { ref: string }[] }[]
      ).map((v) => [v.id, v]),
    );
    expect(byId.get('CVE-2024-0001')?.analysis).toEqual({ state: 'in_triage' });
    expect(byId.get('CVE-2024-0002')?.analysis).toMatchObject({ state: 'exploitable', response: ['update'] });
    expect(byId.get('CVE-2024-0003')?.analysis).toEqual({ state: 'resolved' });
    expect(byId.get('CVE-2024-0004')?.analysis).toMatchObject({
      state: 'not_affected',
      justification: 'code_not_present',
    });
    expect(byId.get('CVE-2024-0005')?.analysis).toMatchObject({
      state: 'not_affected',
      justification: 'code_not_reachable',
      detail: 'The vulnerable router is never mounted.',
    });
    expect(byId.get('CVE-2024-0006')?.analysis).toMatchObject({
      state: 'exploitable',
      response: ['will_not_fix'],
    });
    // Every affected ref is a component of the document.
    const refs = new Set((bom.components as { 'bom-ref': string }[]).map((c) => c['bom-ref']));
    for (const vulnerability of byId.values()) {
      for (const affected of vulnerability.affects) expect(refs.has(affected.ref), affected.ref).toBe(true);
    }
    const again = (await exportVex('cyclonedx')).json();
    expect(again.serialNumber).toBe(bom.serialNumber);
    expect({ ...again, metadata: { ...again.metadata, timestamp: null } }).toEqual({
      ...bom,
      metadata: { ...bom.metadata, timestamp: null },
    });
  });

  it('names packages by the version’s component purls (the log4j SBOM)', async () => {
    const app = await makeApplication(t, cast.admin);
    const response = await upload(
      t,
      '/api/ingest',
      { 'x-api-token': app.api_token },
      {
        file: 'corpus:cyclonedx/log4j.json',
        fields: { version: '3.1' },
      },
    );
    expect(response.statusCode, response.body).toBe(201);
    const version = response.json().scan.version_id as number;
    const openVex = await t.app.inject({
      url: vexUrl(app.id, version, 'openvex'),
      headers: cast.admin.headers,
    });
    expect(openVex.statusCode, openVex.body).toBe(200);
    expect(openVexErrors(openVex.json())).toBeNull();
    const log4shell = (openVex.json().statements as Statement[]).find(
      (s) => s.vulnerability.name === 'CVE-2021-44228',
    );
    expect(log4shell?.products[0]?.subcomponents?.[0]?.['@id']).toBe(
      'pkg:maven/org.apache.logging.log4j/log4j-core@2.13.2',
    );
    const cdx = await t.app.inject({
      url: vexUrl(app.id, version, 'cyclonedx'),
      headers: cast.admin.headers,
    });
    expect(await cycloneDxErrors(cdx.body)).toBeNull();
  });
});

describe('statementsOf', () => {
  const finding = (id: number, overrides: Partial<VexFinding> = {}): VexFinding => ({
    id,
    kind: 'dependency',
    status: 'open',
    reviewed: false,
    rule_id: 'CVE-2024-1000',
    cve_ids: ['CVE-2024-1000'],
    package_name: 'pkg',
    package_version: '1.0.0',
    fixed_version: null,
    remediation: null,
    dismissal_reason: null,
    dismissal_comment: null,
    purl: 'pkg:npm/pkg@1.0.0',
    acceptance: null,
    ...overrides,
  });
  const arbitraryFinding = (id: number) =>
    fc
      .record({
        status: fc.constantFrom('open', 'confirmed', 'fixed', 'false_positive' as const),
        reviewed: fc.boolean(),
        cve: fc.constantFrom('CVE-2024-1', 'CVE-2024-2', 'CVE-2024-3'),
        purl: fc.constantFrom('pkg:npm/a@1', 'pkg:npm/b@1', null),
        reason: fc.constantFrom('false_positive', 'accepted_risk', 'wont_fix', 'used_in_tests', null),
      })
      .map(({ status, reviewed, cve, purl, reason }) =>
        finding(id, {
          status,
          reviewed,
          rule_id: cve,
          cve_ids: [cve],
          purl,
          dismissal_reason: status === 'false_positive' ? reason : null,
        }),
      );

  it('whatever order the findings come in, the same statements in the same order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.nat(40), { maxLength: 25 }).chain((raw) => {
          const unique = [...new Set(raw)].map((n) => n + 1);
          return fc
            .tuple(...unique.map(arbitraryFinding))
            .chain((findings) =>
              fc.tuple(fc.constant(findings), fc.shuffledSubarray(findings, { minLength: findings.length })),
            );
        }),
        ([findings, shuffled]) => {
          const statements = statementsOf(findings);
          expect(statementsOf(shuffled)).toEqual(statements);
          const keys = statements.map((s) => `${s.vulnerability}\u0000${s.purl ?? ''}`);
          expect(new Set(keys).size).toBe(keys.length);
          expect([...keys].sort()).toEqual(keys);
          // Every statement carries what its status requires.
          for (const statement of statements) {
            if (statement.status === 'affected') expect(statement.action_statement).toBeTruthy();
            if (statement.status === 'not_affected')
              expect(statement.justification ?? statement.impact_statement).toBeTruthy();
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('the worst status of the findings behind one statement wins', () => {
    const [statement] = statementsOf([
      finding(1, { status: 'fixed' }),
      finding(2, { status: 'confirmed', fixed_version: '1.0.1' }),
      finding(3, { status: 'false_positive' }),
    ]);
    expect(statement).toMatchObject({ status: 'affected', finding_ids: [1, 2, 3] });
  });
});
