import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateVersion } from '../../src/modules/license-policies/license-evaluation.service.ts';
import { grant, makeApplication, makeGroup, type TestUser, makePeople } from '../support/factories.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { upload } from '../support/upload.ts';
import { eventually } from '../support/webhook-receiver.ts';

/**
 * Licence policies (issue 50 item 3): the API's access and strictness, and the `license` findings an
 * evaluation raises through the ordinary lifecycle — new, fixed when the component or the policy goes,
 * reopened when it comes back, triage kept, nothing written when nothing changed.
 */

let t: TestApp;
let admin: TestUser;
let writer: TestUser;
let reader: TestUser;
let outsider: TestUser;
let groupId: number;
let app: { id: number; api_token: string };

beforeAll(async () => {
  t = await createTestApp();
  ({ admin, writer, reader, outsider } = await makePeople(t));
  groupId = (await makeGroup(t, writer)).id;
  app = await makeApplication(t, writer, { groupId });
  await grant(t, reader, app.id, 'read');
});
afterAll(() => t.close());

/** A CycloneDX 1.5 SBOM of npm packages with the given licence expressions. */
function bom(packages: [name: string, version: string, license: string][]): string {
  return JSON.stringify({
    bomFormat: 'CycloneDX',
    specVersion: '1.5',
    version: 1,
    metadata: { tools: [{ vendor: 'test', name: 'sbom-tool', version: '1' }] },
    components: packages.map(([name, version, license]) => ({
      type: 'library',
      name,
      version,
      purl: `pkg:npm/${name}@${version}`,
      licenses: [{ expression: license }],
    })),
  });
}

const FULL: [string, string, string][] = [
  ['lodash', '4.17.21', 'MIT'],
  ['gpl-only', '1.0.0', 'GPL-3.0-only'],
  ['dual', '2.0.0', 'MIT OR GPL-3.0-only'],
  ['both', '3.0.0', 'MIT AND GPL-3.0-only'],
];

async function sendBom(packages: [string, string, string][], version = '1.0') {
  const response = await upload(
    t,
    '/api/ingest',
    { 'x-api-token': app.api_token },
    { file: bom(packages), fields: { version } },
  );
  expect(response.statusCode, response.body).toBe(201);
  return response.json().scan as { id: number; version_id: number };
}

const licenseFindings = (versionId: number) =>
  t.db
    .selectFrom('findings as f')
    .innerJoin('scanner_types as st', 'st.id', 'f.scanner_type_id')
    .select([
      'f.id',
      'f.kind',
      'f.package_name',
      'f.status',
      'f.severity',
      'f.rule_id',
      'f.tool_name',
      'f.fingerprint',
    ])
    .where('f.version_id', '=', versionId)
    .where('st.name', '=', 'license-policy')
    .orderBy('f.package_name')
    .execute();

/** Waits until the version's licence findings are in these statuses (package → status). */
async function settled(versionId: number, expected: Record<string, string>) {
  return eventually(async () => {
    // An evaluation in flight has written findings it has not published yet.
    const inFlight = await t.db
      .selectFrom('scans')
      .select('id')
      .where('version_id', '=', versionId)
      .where('status', '<>', 'completed')
      .executeTakeFirst();
    if (inFlight) return undefined;
    const rows = await licenseFindings(versionId);
    const actual = Object.fromEntries(rows.map((row) => [row.package_name, row.status]));
    return JSON.stringify(actual) === JSON.stringify(expected) ? rows : undefined;
  }).catch(async () => {
    const rows = await licenseFindings(versionId);
    expect(Object.fromEntries(rows.map((row) => [row.package_name, row.status]))).toEqual(expected);
    return rows;
  });
}

const evaluationScans = async (versionId: number) =>
  (
    await t.db
      .selectFrom('scans')
      .select('id')
      .where('version_id', '=', versionId)
      .where('scanner_type', '=', 'license-policy')
      .execute()
  ).length;

const create = (headers: Record<string, string>, body: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url: '/api/license-policies', headers, payload: body });

describe('licence policies API', () => {
  it('401, 403 for a global one from a member, 400 per bad field, then 201 for the group’s writer', async () => {
    const body = { name: 'No GPL', mode: 'deny', licenses: ['GPL-3.0-only'], owner_group_id: groupId };
    expect((await create({}, body)).statusCode).toBe(401);
    const global = await create(writer.headers, { ...body, owner_group_id: null });
    expect(global.statusCode).toBe(403);
    expect(global.headers['content-type']).toMatch(/application\/problem\+json/);
    expect((await create(reader.headers, body)).statusCode).toBe(403); // reads the group (its application), writes nothing
    expect((await create(outsider.headers, body)).statusCode).toBe(404);
    for (const bad of [
      { ...body, licenses: ['MIT AND ISC'] },
      { ...body, licenses: ['not a licence'] },
      { ...body, licenses: [] },
      { ...body, mode: 'maybe' },
      { ...body, severity: 'urgent' },
      { ...body, extra: 1 },
      { ...body, name: 'x'.repeat(201) },
    ]) {
      const response = await create(writer.headers, bad);
      expect(response.statusCode, JSON.stringify(bad)).toBe(400);
      expect(response.headers['content-type']).toMatch(/application\/problem\+json/);
    }
    const made = await create(writer.headers, { ...body, enabled: false });
    expect(made.statusCode, made.body).toBe(201);
    const policy = made.json();
    expect(policy).toMatchObject({ owner_group_id: groupId, mode: 'deny', severity: 'high', enabled: false });
    const audited = await t.db
      .selectFrom('audit_events')
      .select(['actor_type', 'actor_id', 'target_id'])
      .where('action', '=', 'license_policy.created')
      .where('target_id', '=', String(policy.id))
      .execute();
    expect(audited).toEqual([
      { actor_type: 'api_key', actor_id: String(writer.id), target_id: String(policy.id) },
    ]);
    // read: the writer yes, an outsider 404; write: the outsider 404, the admin yes
    expect(
      (await t.app.inject({ url: `/api/license-policies/${policy.id}`, headers: writer.headers })).statusCode,
    ).toBe(200);
    expect(
      (await t.app.inject({ url: `/api/license-policies/${policy.id}`, headers: outsider.headers }))
        .statusCode,
    ).toBe(404);
    const listed = await t.app.inject({ url: '/api/license-policies', headers: outsider.headers });
    expect(listed.json().map((row: { id: number }) => row.id)).not.toContain(policy.id);
    const patch = (headers: Record<string, string>, payload: Record<string, unknown>) =>
      t.app.inject({ method: 'PATCH', url: `/api/license-policies/${policy.id}`, headers, payload });
    expect((await patch(outsider.headers, { name: 'x' })).statusCode).toBe(404);
    expect((await patch(writer.headers, { licenses: ['MIT AND ISC'] })).statusCode).toBe(400);
    expect((await patch(admin.headers, { name: 'renamed' })).json().name).toBe('renamed');
    const removed = await t.app.inject({
      method: 'DELETE',
      url: `/api/license-policies/${policy.id}`,
      headers: writer.headers,
    });
    expect(removed.statusCode).toBe(204);
    expect(
      await t.db.selectFrom('license_policies').select('id').where('id', '=', policy.id).executeTakeFirst(),
    ).toBeUndefined();
  });

  it('an upload cannot name the license-policy scanner type (only scanhub writes that scope)', async () => {
    const response = await upload(
      t,
      '/api/ingest',
      { 'x-api-token': app.api_token },
      {
        file: JSON.stringify({ scanhub_license_policy: 1, violations: [] }),
        fields: { scannerType: 'license-policy' },
      },
    );
    expect(response.statusCode).toBe(400);
    expect(response.json().code).toBe('unsupported_format');
  });
});

describe('license findings through the normal lifecycle', () => {
  it('deny list raises; removal fixes; policy change fixes and raises; triage kept; idempotent', async () => {
    const { version_id: versionId } = await sendBom(FULL, 'lic-1');
    const made = await create(writer.headers, {
      name: 'No GPL-3.0',
      mode: 'deny',
      licenses: ['GPL-3.0-only'],
      owner_group_id: groupId,
      severity: 'critical',
    });
    expect(made.statusCode, made.body).toBe(201);
    const policyId = made.json().id as number;

    // `dual` may be taken under MIT; `both` needs GPL-3.0-only too.
    const raised = await settled(versionId, { both: 'open', 'gpl-only': 'open' });
    expect(raised.every((row) => row.kind === 'license' && row.severity === 'critical')).toBe(true);
    expect(raised.map((row) => row.rule_id)).toEqual(['MIT AND GPL-3.0-only', 'GPL-3.0-only']);
    const created = await t.db
      .selectFrom('events')
      .select('id')
      .where('type', '=', 'finding.created')
      .where('application_id', '=', app.id)
      .execute();
    expect(created.length).toBeGreaterThan(0);

    // Idempotent: evaluating again writes nothing.
    const scansBefore = await evaluationScans(versionId);
    expect(await evaluateVersion(t, versionId)).toBe('unchanged');
    expect(await evaluateVersion(t, versionId)).toBe('unchanged');
    expect(await evaluationScans(versionId)).toBe(scansBefore);

    // The component goes: its finding is fixed (by the evaluation after the upload).
    await sendBom(
      FULL.filter(([name]) => name !== 'gpl-only'),
      'lic-1',
    );
    await settled(versionId, { both: 'open', 'gpl-only': 'fixed' });

    // Triage of `both` is kept across evaluations.
    const both = (await licenseFindings(versionId)).find((row) => row.package_name === 'both');
    const triaged = await t.app.inject({
      method: 'PATCH',
      url: `/api/findings/${both?.id}/status`,
      headers: writer.headers,
      payload: { status: 'false_positive' },
    });
    expect(triaged.statusCode, triaged.body).toBe(200);

    // The policy changes to deny MIT: lodash and dual (both alternatives? no: dual may take GPL) …
    const changed = await t.app.inject({
      method: 'PATCH',
      url: `/api/license-policies/${policyId}`,
      headers: writer.headers,
      payload: { licenses: ['MIT'] },
    });
    expect(changed.statusCode, changed.body).toBe(200);
    const after = await settled(versionId, { both: 'false_positive', 'gpl-only': 'fixed', lodash: 'open' });
    // `both` is the same finding (package + licence), still triaged.
    expect(after.find((row) => row.package_name === 'both')?.id).toBe(both?.id);

    // The component comes back under a policy that denies it again: reopened, same finding.
    await t.app.inject({
      method: 'PATCH',
      url: `/api/license-policies/${policyId}`,
      headers: writer.headers,
      payload: { licenses: ['GPL-3.0-only'] },
    });
    await settled(versionId, { both: 'false_positive', 'gpl-only': 'fixed', lodash: 'fixed' });
    await sendBom(FULL, 'lic-1');
    const back = await settled(versionId, { both: 'false_positive', 'gpl-only': 'open', lodash: 'fixed' });
    expect(back.find((row) => row.package_name === 'gpl-only')?.fingerprint).toBe(
      raised.find((row) => row.package_name === 'gpl-only')?.fingerprint,
    );

    // Disabled policy: everything it raised is fixed (the false positive stays what triage made it).
    await t.app.inject({
      method: 'PATCH',
      url: `/api/license-policies/${policyId}`,
      headers: writer.headers,
      payload: { enabled: false },
    });
    await settled(versionId, { both: 'false_positive', 'gpl-only': 'fixed', lodash: 'fixed' });
    expect(await evaluateVersion(t, versionId)).toBe('unchanged');
  });

  it('a global policy covers every application; an allow list flags what is not wholly allowed', async () => {
    const other = await makeApplication(t, admin);
    const response = await upload(
      t,
      '/api/ingest',
      { 'x-api-token': other.api_token },
      { file: bom(FULL), fields: { version: 'g-1' } },
    );
    const versionId = response.json().scan.version_id as number;
    const made = await create(admin.headers, {
      name: 'Permissive only',
      mode: 'allow',
      licenses: ['MIT', 'Apache-2.0'],
    });
    expect(made.statusCode, made.body).toBe(201);
    await settled(versionId, { both: 'open', 'gpl-only': 'open' });
    await t.app.inject({
      method: 'DELETE',
      url: `/api/license-policies/${made.json().id}`,
      headers: admin.headers,
    });
    await settled(versionId, { both: 'fixed', 'gpl-only': 'fixed' });
  });
});

describe('an application moved to another group', () => {
  it('is evaluated against the policies of the group it joins (and those of the one it left stop)', async () => {
    const policed = await makeGroup(t, writer);
    const plain = await makeGroup(t, writer);
    const moving = await makeApplication(t, writer, { groupId: plain.id });
    const sent = await upload(
      t,
      '/api/ingest',
      { 'x-api-token': moving.api_token },
      { file: bom(FULL), fields: { version: 'm-1' } },
    );
    expect(sent.statusCode, sent.body).toBe(201);
    const versionId = sent.json().scan.version_id as number;
    const made = await create(writer.headers, {
      name: `No GPL in ${policed.path}`,
      mode: 'deny',
      licenses: ['GPL-3.0-only'],
      owner_group_id: policed.id,
    });
    expect(made.statusCode, made.body).toBe(201);
    const move = (to: number, headers = writer.headers) =>
      t.app.inject({
        method: 'PUT',
        url: `/api/applications/${moving.id}`,
        headers,
        payload: { group_id: to },
      });
    // Outside the policy's group: its evaluation (after the upload, after the policy) raises nothing.
    await settled(versionId, {});
    expect(await evaluationScans(versionId)).toBe(0);

    const moved = await move(policed.id);
    expect(moved.statusCode, moved.body).toBe(200);
    expect(moved.json().group_id).toBe(policed.id);
    await settled(versionId, { both: 'open', 'gpl-only': 'open' });

    // A reader of the application may not move it; nor may its writer into a group it cannot write.
    await grant(t, reader, moving.id, 'read');
    expect((await move(plain.id, reader.headers)).statusCode).toBe(403);
    const foreign = await makeGroup(t, outsider);
    expect([403, 404]).toContain((await move(foreign.id)).statusCode);
    const back = await move(plain.id);
    expect(back.statusCode, back.body).toBe(200);
    await settled(versionId, { both: 'fixed', 'gpl-only': 'fixed' });
    await t.app.inject({
      method: 'DELETE',
      url: `/api/license-policies/${made.json().id}`,
      headers: writer.headers,
    });
  });

  it('needs the slug free in the group it joins (409)', async () => {
    const first = await makeGroup(t, writer);
    const second = await makeGroup(t, writer);
    const a = await makeApplication(t, writer, { groupId: first.id, slug: 'same-slug-moves' });
    await makeApplication(t, writer, { groupId: second.id, slug: 'same-slug-moves' });
    const response = await t.app.inject({
      method: 'PUT',
      url: `/api/applications/${a.id}`,
      headers: writer.headers,
      payload: { group_id: second.id },
    });
    expect(response.statusCode, response.body).toBe(409);
    const row = await t.db
      .selectFrom('applications')
      .select('group_id')
      .where('id', '=', a.id)
      .executeTakeFirstOrThrow();
    expect(row.group_id).toBe(first.id);
  });
});
