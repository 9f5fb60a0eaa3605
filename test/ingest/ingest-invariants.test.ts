import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findingIdentity, twinFingerprint } from '../../src/ingest/fingerprint.ts';
import { sarifParser } from '../../src/ingest/parse/parsers/sarif.ts';
import { makeApplication, makeUser, type TestUser } from '../support/factories.ts';
import { inputFromText } from '../support/corpus-manifest.ts';
import { buildSarif, manyResults } from '../support/sarif-builder.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { upload } from '../support/upload.ts';

let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await makeUser(t, { role: 'admin' });
});
afterAll(() => t.close());

async function ingest(token: string, sarif: string, fields: Record<string, string> = {}) {
  const response = await upload(t, '/api/ingest', { 'x-api-token': token }, { file: sarif, fields });
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as {
    scan: { id: number };
    new_findings_count: number;
    existing_findings_count: number;
    fixed_findings_count: number;
    findings_count: number;
  };
}

async function parseText(text: string) {
  const found = [];
  for await (const finding of sarifParser.parse(inputFromText(text))) found.push(finding);
  return found;
}

const findingsOf = (applicationId: number) =>
  t.db
    .selectFrom('findings')
    .selectAll()
    .where('application_id', '=', applicationId)
    .orderBy('fingerprint')
    .execute();

describe('finding identity across uploads', () => {
  it('uploading the identical file twice writes no finding row; only the scan and the sighting move on', async () => {
    const app = await makeApplication(t, admin);
    const sarif = buildSarif({ results: manyResults(30) });
    const first = await ingest(app.api_token, sarif);
    const before = await findingsOf(app.id);
    const second = await ingest(app.api_token, sarif);
    expect(second).toMatchObject({
      findings_count: 30,
      new_findings_count: 0,
      existing_findings_count: 30,
      fixed_findings_count: 0,
    });
    expect(await findingsOf(app.id)).toEqual(before);
    const events = await t.db
      .selectFrom('finding_events')
      .select('id')
      .where('scan_id', '=', second.scan.id)
      .execute();
    expect(events).toEqual([]);
    // The API reports the new sighting: last seen by the second scan, later than the first.
    const detail = await t.app.inject({ url: `/api/findings/${before[0]!.id}`, headers: admin.headers });
    expect(detail.json().scan_id).toBe(second.scan.id);
    expect(detail.json().first_scan_id).toBe(first.scan.id);
    expect(Date.parse(detail.json().last_seen_at)).toBeGreaterThan(before[0]!.last_seen_at.getTime());
    const listed = await t.app.inject({
      url: `/api/findings?scanId=${second.scan.id}&perPage=200`,
      headers: admin.headers,
    });
    expect(listed.json().pagination.total).toBe(30);
  });

  it('tells identical twins apart by nearest line, not report order, the same way on every upload', async () => {
    const app = await makeApplication(t, admin);
    const twin = { ruleId: 'rule-x', path: 'src/twin.ts', snippet: 'eval(input)' };
    const sarif = buildSarif({ results: [3, 9, 15].map((line) => ({ ...twin, line })) });
    const first = await ingest(app.api_token, sarif);
    expect(first.new_findings_count).toBe(3);
    const idByLine = new Map((await findingsOf(app.id)).map((finding) => [finding.line, finding.id]));
    // Everything moved down 20 lines, and the report lists the twins in another order.
    const again = await ingest(
      app.api_token,
      buildSarif({ results: [35, 23, 29].map((line) => ({ ...twin, line })) }),
    );
    expect(again).toMatchObject({ new_findings_count: 0, existing_findings_count: 3 });
    const findings = await findingsOf(app.id);
    expect(new Map(findings.map((finding) => [finding.id, finding.line]))).toEqual(
      new Map([
        [idByLine.get(3), 23],
        [idByLine.get(9), 29],
        [idByLine.get(15), 35],
      ]),
    );
    // The fingerprints follow the documented recipe: the first twin keeps the identity's hash.
    const [parsed] = await parseText(sarif);
    const base = findingIdentity('sarif', parsed!).base;
    expect(findings.map((finding) => finding.fingerprint).sort()).toEqual(
      [0, 1, 2].map((n) => twinFingerprint(base, n)).sort(),
    );
    expect(findings.every((finding) => finding.identity_base === base)).toBe(true);
  });

  it('moving every finding down 20 lines keeps every identity', async () => {
    const app = await makeApplication(t, admin);
    await ingest(app.api_token, buildSarif({ results: manyResults(25) }));
    const ids = (await findingsOf(app.id)).map((finding) => finding.id);
    const moved = await ingest(app.api_token, buildSarif({ results: manyResults(25, 20) }));
    expect(moved).toMatchObject({
      new_findings_count: 0,
      existing_findings_count: 25,
      fixed_findings_count: 0,
    });
    expect((await findingsOf(app.id)).map((finding) => finding.id)).toEqual(ids);
  });

  it('a finding missing from a re-upload becomes fixed with a timeline entry, and its return reopens it', async () => {
    const app = await makeApplication(t, admin);
    const all = manyResults(10);
    await ingest(app.api_token, buildSarif({ results: all }));
    const without = await ingest(app.api_token, buildSarif({ results: all.slice(1) }));
    expect(without).toMatchObject({
      new_findings_count: 0,
      existing_findings_count: 9,
      fixed_findings_count: 1,
    });
    const fixed = (await findingsOf(app.id)).filter((finding) => finding.status === 'fixed');
    expect(fixed).toHaveLength(1);
    expect(fixed[0]?.fixed_at).toBeInstanceOf(Date);
    const gone = fixed[0]!;
    const fixedEntries = await t.db
      .selectFrom('finding_events')
      .selectAll()
      .where('finding_id', '=', gone.id)
      .execute();
    expect(fixedEntries).toMatchObject([
      {
        type: 'fixed',
        from_status: 'open',
        to_status: 'fixed',
        actor_system: 'ingest',
        scan_id: without.scan.id,
      },
    ]);
    const outbox = await t.db
      .selectFrom('events')
      .selectAll()
      .where('finding_id', '=', gone.id)
      .where('type', '=', 'finding.status_changed')
      .execute();
    expect(outbox).toHaveLength(1);

    const back = await ingest(app.api_token, buildSarif({ results: all }));
    expect(back).toMatchObject({
      new_findings_count: 0,
      existing_findings_count: 10,
      fixed_findings_count: 0,
    });
    const reopened = await t.db
      .selectFrom('findings')
      .selectAll()
      .where('id', '=', gone.id)
      .executeTakeFirstOrThrow();
    expect(reopened).toMatchObject({ status: 'open', fixed_at: null });
    const entries = await t.db
      .selectFrom('finding_events')
      .select(['type', 'to_status'])
      .where('finding_id', '=', gone.id)
      .orderBy('id')
      .execute();
    expect(entries).toEqual([
      { type: 'fixed', to_status: 'fixed' },
      { type: 'reopened', to_status: 'open' },
    ]);
  });

  it("never touches another tool's or another category's findings", async () => {
    const app = await makeApplication(t, admin);
    await ingest(app.api_token, buildSarif({ tool: 'ToolA', results: manyResults(5) }));
    await ingest(app.api_token, buildSarif({ tool: 'ToolA', category: 'backend', results: manyResults(4) }));
    await ingest(app.api_token, buildSarif({ tool: 'ToolB', results: manyResults(3) }));
    // ToolA without category now reports only one finding: only its own four others become fixed.
    const result = await ingest(app.api_token, buildSarif({ tool: 'ToolA', results: manyResults(1) }));
    expect(result.fixed_findings_count).toBe(4);
    const findings = await findingsOf(app.id);
    const fixedByTool = findings
      .filter((f) => f.status === 'fixed')
      .map((f) => `${f.tool_name}/${f.category}`);
    expect(fixedByTool).toEqual(Array(4).fill('ToolA/'));
    expect(findings.filter((f) => f.tool_name === 'ToolB' && f.status === 'open')).toHaveLength(3);
    expect(findings.filter((f) => f.category === 'backend' && f.status === 'open')).toHaveLength(4);
  });

  it('keeps versions apart: the same file in another version creates its own findings', async () => {
    const app = await makeApplication(t, admin);
    const sarif = buildSarif({ results: manyResults(6) });
    const first = await ingest(app.api_token, sarif, { version: 'v1' });
    const second = await ingest(app.api_token, sarif, { version: 'v2' });
    expect(first.new_findings_count).toBe(6);
    expect(second.new_findings_count).toBe(6);
  });

  it('new findings inherit triage (false_positive, confirmed) from another version of the application', async () => {
    const app = await makeApplication(t, admin);
    const results = manyResults(3);
    await ingest(app.api_token, buildSarif({ results }), { version: 'v1' });
    const v1 = await findingsOf(app.id);
    await t.db
      .updateTable('findings')
      .set({ status: 'false_positive' })
      .where('id', '=', v1[0]!.id)
      .execute();
    await t.db.updateTable('findings').set({ status: 'confirmed' }).where('id', '=', v1[1]!.id).execute();
    await ingest(app.api_token, buildSarif({ results }), { version: 'v2' });
    const v2 = (await findingsOf(app.id)).filter((finding) => finding.version_id !== v1[0]!.version_id);
    const byFingerprint = new Map(v2.map((finding) => [finding.fingerprint, finding]));
    expect(byFingerprint.get(v1[0]!.fingerprint)?.status).toBe('false_positive');
    expect(byFingerprint.get(v1[1]!.fingerprint)?.status).toBe('confirmed');
    expect(byFingerprint.get(v1[2]!.fingerprint)?.status).toBe('open');
    const inherited = await t.db
      .selectFrom('finding_events')
      .selectAll()
      .where('finding_id', '=', byFingerprint.get(v1[0]!.fingerprint)!.id)
      .executeTakeFirstOrThrow();
    expect(inherited).toMatchObject({ type: 'inherited', to_status: 'false_positive' });
    expect(inherited.detail).toMatchObject({
      source_finding_id: v1[0]!.id,
      source_version_id: v1[0]!.version_id,
    });
  });

  it('concurrent uploads into one version never create twins', async () => {
    const app = await makeApplication(t, admin);
    const sarif = buildSarif({ results: manyResults(40) });
    const responses = await Promise.all(
      Array.from({ length: 4 }, () =>
        upload(t, '/api/ingest', { 'x-api-token': app.api_token }, { file: sarif }),
      ),
    );
    expect(responses.map((response) => response.statusCode)).toEqual([201, 201, 201, 201]);
    const findings = await findingsOf(app.id);
    expect(findings).toHaveLength(40);
    expect(new Set(findings.map((finding) => finding.fingerprint)).size).toBe(40);
    const created = responses.reduce((sum, response) => sum + response.json().new_findings_count, 0);
    expect(created).toBe(40);
  });

  it('concurrent overlapping uploads into one version all succeed, with no twins and nothing lost', async () => {
    const app = await makeApplication(t, admin);
    const all = manyResults(400);
    // Upload k holds results [k·50, k·50 + 100): each overlaps its neighbours by half.
    const files = Array.from({ length: 7 }, (_, k) =>
      buildSarif({ results: all.slice(k * 50, k * 50 + 100) }),
    );
    const responses = await Promise.all(
      files.map((file) => upload(t, '/api/ingest', { 'x-api-token': app.api_token }, { file })),
    );
    expect(responses.map((response) => response.statusCode)).toEqual(Array(7).fill(201));
    const findings = await findingsOf(app.id);
    expect(new Set(findings.map((finding) => finding.fingerprint)).size).toBe(findings.length);
    expect(findings).toHaveLength(400);
  });

  it('scores risk at ingest with the application criticality and sets an SLA due date', async () => {
    const app = await makeApplication(t, admin, { assetCriticality: 'critical' });
    await ingest(app.api_token, buildSarif({ results: manyResults(1) }));
    const [finding] = await findingsOf(app.id);
    // error → high → S 8; no CVE → X 0.2; new → G 0; critical → M 1: round(100 × (0.48 + 0.06)) = 54
    expect(finding).toMatchObject({
      severity: 'high',
      risk_score: 54,
      risk_asset: 1,
      risk_formula_version: 1,
    });
    const days = (finding!.due_date!.getTime() - finding!.first_seen_at.getTime()) / 86_400_000;
    expect(Math.round(days)).toBe(30);
  });
});
