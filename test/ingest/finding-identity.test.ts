import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as secretEvidenceSpelling from '../../src/db/migrations/2026-11-25T0300-secret-evidence-spelling.ts';
import { makeApplication, makeUser, type TestUser } from '../support/factories.ts';
import { buildSarif, manyResults, type SarifResultSpec } from '../support/sarif-builder.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { upload } from '../support/upload.ts';

/** Issue 9: what identity, scope, category, partial uploads and root mean through the real API. */

let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await makeUser(t, { role: 'admin' });
});
afterAll(() => t.close());

interface IngestResult {
  scan: { id: number };
  findings_count: number;
  new_findings_count: number;
  existing_findings_count: number;
  fixed_findings_count: number;
}

async function ingest(token: string, file: string, fields: Record<string, string> = {}) {
  const response = await upload(t, '/api/ingest', { 'x-api-token': token }, { file, fields });
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as IngestResult;
}

const findingsOf = (applicationId: number) =>
  t.db.selectFrom('findings').selectAll().where('application_id', '=', applicationId).orderBy('id').execute();

const openLines = async (applicationId: number) =>
  (await findingsOf(applicationId))
    .filter((finding) => finding.status === 'open')
    .map((finding) => `${finding.file_path}:${finding.line}`)
    .sort();

function bom(tool: string, vulnerabilities: { id: string; purl: string }[], subject = 'project') {
  return JSON.stringify({
    bomFormat: 'CycloneDX',
    specVersion: '1.5',
    metadata: {
      tools: { components: [{ type: 'application', name: tool, version: '1.0.0' }] },
      component: { type: 'application', name: subject },
    },
    components: vulnerabilities.map((vulnerability) => ({
      'bom-ref': vulnerability.purl,
      type: 'library',
      name: /\/([^/@]+)@/.exec(vulnerability.purl)?.[1],
      version: /@(.+)$/.exec(vulnerability.purl)?.[1],
      purl: vulnerability.purl,
    })),
    vulnerabilities: vulnerabilities.map((vulnerability) => ({
      id: vulnerability.id,
      ratings: [{ severity: 'high' }],
      affects: [{ ref: vulnerability.purl }],
    })),
  });
}

describe('matched findings show where they are now', () => {
  it('takes the latest line, column, snippet, message and severity; a severity change is on the timeline', async () => {
    const app = await makeApplication(t, admin);
    const result: SarifResultSpec = {
      ruleId: 'r1',
      path: 'src/a.ts',
      line: 10,
      column: 3,
      snippet: 'eval(x)',
      partialFingerprint: 'abc',
      level: 'warning',
      message: 'first wording',
    };
    await ingest(app.api_token, buildSarif({ results: [result] }));
    const [before] = await findingsOf(app.id);
    const second = await ingest(
      app.api_token,
      buildSarif({
        results: [
          { ...result, line: 42, column: 7, snippet: 'eval(y)', level: 'error', message: 'second wording' },
        ],
      }),
    );
    expect(second).toMatchObject({ new_findings_count: 0, existing_findings_count: 1 });
    const [after] = await findingsOf(app.id);
    expect(after).toMatchObject({
      id: before!.id,
      fingerprint: before!.fingerprint,
      line: 42,
      column: 7,
      end_line: 42,
      snippet: 'eval(y)',
      title: 'second wording',
      severity: 'high',
      severity_rank: 4,
      cwe_id: 79,
    });
    expect(before).toMatchObject({ severity: 'medium', line: 10 });
    expect(after!.risk_score).toBeGreaterThan(before!.risk_score);
    const timeline = await t.app.inject({
      url: `/api/findings/${after!.id}/timeline`,
      headers: admin.headers,
    });
    expect(timeline.json()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          type: 'severity_changed',
          scan_id: second.scan.id,
          detail: { from: 'medium', to: 'high' },
        }),
      ]),
    );
    // The same report again writes nothing.
    const rows = await findingsOf(app.id);
    await ingest(
      app.api_token,
      buildSarif({
        results: [
          { ...result, line: 42, column: 7, snippet: 'eval(y)', level: 'error', message: 'second wording' },
        ],
      }),
    );
    expect(await findingsOf(app.id)).toEqual(rows);
  });

  it('updates the installed version of a dependency without changing its identity', async () => {
    const app = await makeApplication(t, admin);
    await ingest(app.api_token, bom('retire.js', [{ id: 'CVE-2020-1', purl: 'pkg:npm/lodash@4.17.15' }]));
    const [before] = await findingsOf(app.id);
    const upgraded = await ingest(
      app.api_token,
      bom('retire.js', [{ id: 'CVE-2020-1', purl: 'pkg:npm/lodash@4.17.19' }]),
    );
    expect(upgraded).toMatchObject({ new_findings_count: 0, fixed_findings_count: 0 });
    const [after] = await findingsOf(app.id);
    expect(after).toMatchObject({ id: before!.id, package_version: '4.17.19', status: 'open' });
  });
});

describe('twins', () => {
  const twin = (line: number): SarifResultSpec => ({
    ruleId: 'no-eval',
    path: 'src/twin.ts',
    line,
    snippet: 'eval(input)',
  });

  it('fixing the first of twins at 32 and 34 closes the one at 32, even when 34 moved to 33', async () => {
    const app = await makeApplication(t, admin);
    await ingest(app.api_token, buildSarif({ results: [twin(32), twin(34)] }));
    const [at32, at34] = (await findingsOf(app.id)).sort((a, b) => a.line! - b.line!);
    const fixed = await ingest(app.api_token, buildSarif({ results: [twin(33)] }));
    expect(fixed).toMatchObject({
      new_findings_count: 0,
      existing_findings_count: 1,
      fixed_findings_count: 1,
    });
    const after = new Map((await findingsOf(app.id)).map((finding) => [finding.id, finding]));
    expect(after.get(at32!.id)).toMatchObject({ status: 'fixed', line: 32 });
    expect(after.get(at34!.id)).toMatchObject({ status: 'open', line: 33 });
  });

  it('matches by nearest line whatever the report order', async () => {
    const app = await makeApplication(t, admin);
    await ingest(app.api_token, buildSarif({ results: [twin(10), twin(50), twin(90)] }));
    const byLine = new Map((await findingsOf(app.id)).map((finding) => [finding.line, finding.id]));
    // 50 is fixed; the others moved a little, listed in reverse order.
    await ingest(app.api_token, buildSarif({ results: [twin(92), twin(11)] }));
    const after = new Map((await findingsOf(app.id)).map((finding) => [finding.id, finding]));
    expect(after.get(byLine.get(50)!)?.status).toBe('fixed');
    expect(after.get(byLine.get(10)!)).toMatchObject({ status: 'open', line: 11 });
    expect(after.get(byLine.get(90)!)).toMatchObject({ status: 'open', line: 92 });
    // A third twin appears: a new finding; the fixed one comes back at its line: reopened.
    const back = await ingest(
      app.api_token,
      buildSarif({ results: [twin(11), twin(51), twin(92), twin(200)] }),
    );
    expect(back).toMatchObject({ new_findings_count: 1, existing_findings_count: 3 });
    expect(after.get(byLine.get(50)!)?.fingerprint).toBe(
      (await findingsOf(app.id)).find((finding) => finding.line === 51)?.fingerprint,
    );
    expect((await findingsOf(app.id)).every((finding) => finding.status === 'open')).toBe(true);
  });
});

describe("a tool's fingerprint never stands alone", () => {
  it('the same partialFingerprint in two files is two findings; fixing one file closes only its finding', async () => {
    const app = await makeApplication(t, admin);
    const hit = (path: string): SarifResultSpec => ({
      ruleId: 'FF1001',
      path,
      line: 5,
      partialFingerprint: 'contextHash-same',
    });
    const first = await ingest(app.api_token, buildSarif({ results: [hit('a.c'), hit('b.c')] }));
    expect(first.new_findings_count).toBe(2);
    const second = await ingest(app.api_token, buildSarif({ results: [hit('b.c')] }));
    expect(second).toMatchObject({ new_findings_count: 0, fixed_findings_count: 1 });
    expect(await openLines(app.id)).toEqual(['b.c:5']);
  });
});

describe("a secret tool's own fingerprint never meets a text-only identity", () => {
  // A secret result with neither a value nor the tool's own id is known by its text, and such
  // results on several lines are twins; one with the tool's id is a single finding. A tool id that
  // reads like the text evidence (`text:<title>`) once gave both one identity, one twin-able and one
  // not, and the upload was refused with 409.
  const secretRun = (results: object[]) =>
    JSON.stringify({
      version: '2.1.0',
      runs: [
        {
          tool: {
            driver: { name: 'Vault scanner', rules: [{ id: 'HC1', properties: { tags: ['secret'] } }] },
          },
          results,
        },
      ],
    });
  const result = (line: number, partialFingerprints?: Record<string, string>) => ({
    ruleId: 'HC1',
    message: { text: 'Hardcoded credential' },
    locations: [
      { physicalLocation: { artifactLocation: { uri: 'src/app.py' }, region: { startLine: line } } },
    ],
    ...(partialFingerprints ? { partialFingerprints } : {}),
  });

  it('keeps them apart, and the next upload of the same report changes nothing', async () => {
    const app = await makeApplication(t, admin);
    const report = secretRun([result(3, { text: 'Hardcoded credential' }), result(8), result(12)]);
    const first = await ingest(app.api_token, report);
    expect(first).toMatchObject({ findings_count: 3, new_findings_count: 3 });
    const again = await ingest(app.api_token, report);
    expect(again).toMatchObject({
      new_findings_count: 0,
      existing_findings_count: 3,
      fixed_findings_count: 0,
    });
    expect(await openLines(app.id)).toEqual(['src/app.py:12', 'src/app.py:3', 'src/app.py:8']);
  });

  it('findings stored with the old spelling are moved to the new one, and the next upload matches them', async () => {
    const app = await makeApplication(t, admin);
    const report = secretRun([result(3, { text: 'Hardcoded credential' }), result(8)]);
    await ingest(app.api_token, report);
    // Spelled as before: the tool's id `text:Hardcoded credential` was the same evidence as the
    // text of a result without id, so its stored base was that result's.
    const stored = await findingsOf(app.id);
    const single = stored.find((finding) => finding.tool_fingerprint !== null);
    const twin = stored.find((finding) => finding.tool_fingerprint === null);
    if (!single || !twin) throw new Error('expected one finding with the tool id and one without');
    const oldBase = twin.identity_base;
    // The twin moves out of the way first (the old spelling could not store both in one version).
    await t.db.updateTable('findings').set({ fingerprint: 'elsewhere' }).where('id', '=', twin.id).execute();
    await t.db
      .updateTable('findings')
      .set({ fingerprint: oldBase, identity_base: oldBase })
      .where('id', '=', single.id)
      .execute();
    await secretEvidenceSpelling.up(t.db as unknown as Kysely<unknown>);
    const moved = await t.db
      .selectFrom('findings')
      .selectAll()
      .where('id', '=', single.id)
      .executeTakeFirstOrThrow();
    expect(moved.fingerprint).toBe(single.fingerprint);
    expect(moved.identity_base).toBe(single.identity_base);
    await t.db
      .updateTable('findings')
      .set({ fingerprint: twin.fingerprint })
      .where('id', '=', twin.id)
      .execute();
    const again = await ingest(app.api_token, report);
    expect(again).toMatchObject({
      new_findings_count: 0,
      existing_findings_count: 2,
      fixed_findings_count: 0,
    });
  });

  it('a tool id that reads like any text evidence is still one finding wherever it is reported', async () => {
    const app = await makeApplication(t, admin);
    const first = await ingest(
      app.api_token,
      secretRun([result(3, { tool: 'x' }), result(9, { tool: 'x' })]),
    );
    expect(first).toMatchObject({ new_findings_count: 1 });
    const moved = await ingest(app.api_token, secretRun([result(5, { tool: 'x' })]));
    expect(moved).toMatchObject({
      new_findings_count: 0,
      existing_findings_count: 1,
      fixed_findings_count: 0,
    });
  });
});

describe('scope: what an upload may close', () => {
  it('an empty SARIF run of a named tool closes that tool’s findings, not another tool’s', async () => {
    const app = await makeApplication(t, admin);
    await ingest(app.api_token, buildSarif({ tool: 'eslint', results: manyResults(3) }));
    await ingest(app.api_token, buildSarif({ tool: 'biome', results: manyResults(2) }));
    // Before issue 9 an empty SARIF fixed nothing.
    const empty = await ingest(app.api_token, buildSarif({ tool: 'eslint', results: [] }));
    expect(empty).toMatchObject({ findings_count: 0, fixed_findings_count: 3 });
    const findings = await findingsOf(app.id);
    expect(findings.filter((f) => f.status === 'fixed').map((f) => f.tool_name)).toEqual(
      Array(3).fill('eslint'),
    );
    expect(findings.filter((f) => f.status === 'open').map((f) => f.tool_name)).toEqual(
      Array(2).fill('biome'),
    );
  });

  it('a SARIF log without runs, or whose run failed, closes nothing', async () => {
    const app = await makeApplication(t, admin);
    await ingest(app.api_token, buildSarif({ tool: 'eslint', results: manyResults(2) }));
    const noRuns = JSON.stringify({ version: '2.1.0', runs: [] });
    expect((await ingest(app.api_token, noRuns, { scannerType: 'sarif' })).fixed_findings_count).toBe(0);
    const failed = JSON.parse(buildSarif({ tool: 'eslint', results: [] })) as {
      runs: Record<string, unknown>[];
    };
    failed.runs[0]!['invocations'] = [{ executionSuccessful: false }];
    expect((await ingest(app.api_token, JSON.stringify(failed))).fixed_findings_count).toBe(0);
    expect(await openLines(app.id)).toHaveLength(2);
  });

  it("a CycloneDX SBOM without vulnerabilities from cyclonedx-npm leaves retire.js's findings open", async () => {
    const app = await makeApplication(t, admin);
    const vulnerable = [
      { id: 'CVE-2021-1', purl: 'pkg:npm/jquery@1.8.1' },
      { id: 'CVE-2021-2', purl: 'pkg:npm/lodash@4.17.15' },
    ];
    await ingest(app.api_token, bom('retire.js', vulnerable));
    expect((await ingest(app.api_token, bom('cyclonedx-npm', []))).fixed_findings_count).toBe(0);
    expect(await openLines(app.id)).toHaveLength(2);
    // retire.js's own empty BOM does close them.
    expect((await ingest(app.api_token, bom('retire.js', []))).fixed_findings_count).toBe(2);
  });

  it('CycloneDX identity ignores the scanned directory (metadata.component.name)', async () => {
    const app = await makeApplication(t, admin);
    const vulnerable = [{ id: 'CVE-2021-1', purl: 'pkg:npm/jquery@1.8.1' }];
    await ingest(app.api_token, bom('retire.js', vulnerable, 'checkout-a'));
    const elsewhere = await ingest(app.api_token, bom('retire.js', vulnerable, 'checkout-b'));
    expect(elsewhere).toMatchObject({
      new_findings_count: 0,
      existing_findings_count: 1,
      fixed_findings_count: 0,
    });
    // Same name in another ecosystem is another package.
    const pypi = await ingest(
      app.api_token,
      bom('retire.js', [{ id: 'CVE-2021-1', purl: 'pkg:pypi/jquery@1.8.1' }]),
    );
    expect(pypi).toMatchObject({ new_findings_count: 1, fixed_findings_count: 1 });
  });

  it('the upload category is a scope of its own: per-file reports do not close each other', async () => {
    const app = await makeApplication(t, admin);
    const a = buildSarif({ tool: 'clang', results: [{ ruleId: 'r', path: 'a.c', line: 1 }] });
    // The upload's category replaces the report's own automationDetails.id.
    const b = buildSarif({
      tool: 'clang',
      category: 'from-report',
      results: [{ ruleId: 'r', path: 'b.c', line: 1 }],
    });
    await ingest(app.api_token, a, { category: 'a.c' });
    expect((await ingest(app.api_token, b, { category: 'b.c' })).fixed_findings_count).toBe(0);
    expect(await openLines(app.id)).toEqual(['a.c:1', 'b.c:1']);
    const categories = (await findingsOf(app.id)).map((finding) => finding.category).sort();
    expect(categories).toEqual(['a.c', 'b.c']);
    // Within its category, absence still closes.
    const emptyA = buildSarif({ tool: 'clang', results: [] });
    expect((await ingest(app.api_token, emptyA, { category: 'a.c' })).fixed_findings_count).toBe(1);
    expect(await openLines(app.id)).toEqual(['b.c:1']);
  });

  it('partial=true closes only findings in the files the upload covers (results and artifacts)', async () => {
    const app = await makeApplication(t, admin);
    const at = (path: string, line = 1): SarifResultSpec => ({ ruleId: 'r', path, line });
    await ingest(app.api_token, buildSarif({ results: [at('a.c'), at('a.c', 9), at('b.c'), at('c.c')] }));
    // Covers a.c (a result) and b.c (an artifact without results): c.c is not covered.
    const partial = await ingest(
      app.api_token,
      buildSarif({ results: [at('a.c')], artifacts: ['a.c', 'b.c'] }),
      { partial: 'true' },
    );
    expect(partial).toMatchObject({ new_findings_count: 0, fixed_findings_count: 2 });
    expect(await openLines(app.id)).toEqual(['a.c:1', 'c.c:1']);
    // Without partial, the same upload closes c.c too.
    const whole = await ingest(app.api_token, buildSarif({ results: [at('a.c')] }));
    expect(whole.fixed_findings_count).toBe(1);
  });

  it('a native empty list fixes what that scanner found in its scope', async () => {
    const app = await makeApplication(t, admin);
    const bandit = JSON.stringify({
      results: [
        {
          filename: './app.py',
          test_id: 'B307',
          test_name: 'eval',
          issue_text: 'Use of possibly insecure function',
          issue_severity: 'MEDIUM',
          issue_confidence: 'HIGH',
          line_number: 3,
          code: '3 eval(x)\n',
        },
      ],
      errors: [],
      metrics: {},
    });
    expect((await ingest(app.api_token, bandit, { scannerType: 'bandit' })).new_findings_count).toBe(1);
    const empty = JSON.stringify({ results: [], errors: [], metrics: {} });
    expect((await ingest(app.api_token, empty, { scannerType: 'bandit' })).fixed_findings_count).toBe(1);
  });
});

describe('paths are repository-relative', () => {
  it('the same tree at two absolute locations keeps every identity when the upload names its root', async () => {
    const app = await makeApplication(t, admin);
    const at = (root: string) =>
      buildSarif({
        results: [
          { ruleId: 'r', path: `file://${root}/src/a.ts`, line: 3, snippet: 'a()' },
          { ruleId: 'r', path: `${root}/src/b.ts`, line: 4, snippet: 'b()', partialFingerprint: 'x' },
        ],
      });
    await ingest(app.api_token, at('/home/runner/work/app'), { root: '/home/runner/work/app' });
    const moved = await ingest(app.api_token, at('/builds/ci/app'), { root: '/builds/ci/app/' });
    expect(moved).toMatchObject({
      new_findings_count: 0,
      existing_findings_count: 2,
      fixed_findings_count: 0,
    });
    expect((await findingsOf(app.id)).map((finding) => finding.file_path).sort()).toEqual([
      'src/a.ts',
      'src/b.ts',
    ]);
  });

  it('or when the SARIF run names its workingDirectory', async () => {
    const app = await makeApplication(t, admin);
    const at = (root: string) =>
      buildSarif({
        workingDirectory: `file://${root}/`,
        results: [{ ruleId: 'r', path: `file://${root}/src/a.ts`, line: 3, snippet: 'a()' }],
      });
    await ingest(app.api_token, at('/home/runner/work/app'));
    expect(await ingest(app.api_token, at('/tmp/other'))).toMatchObject({ new_findings_count: 0 });
    expect((await findingsOf(app.id))[0]?.file_path).toBe('src/a.ts');
  });
});

describe('the ingest form', () => {
  it('accepts category, partial and root on every route, in snake or camel spelling, and keeps them on the scan', async () => {
    const app = await makeApplication(t, admin);
    const sarif = buildSarif({ results: [{ ruleId: 'r', path: '/w/x/a.c', line: 1 }] });
    const response = await upload(t, `/api/applications/${app.id}/ingest?async=true`, admin.headers, {
      file: sarif,
      fields: { category: 'backend', partial: 'true', root_path: '/w/x' },
    });
    expect(response.statusCode, response.body).toBe(202);
    const scanId = (response.json() as IngestResult).scan.id;
    await expect
      .poll(
        async () =>
          (await t.db.selectFrom('scans').select('status').where('id', '=', scanId).executeTakeFirst())
            ?.status,
        { timeout: 10_000 },
      )
      .toBe('completed');
    const scan = await t.db
      .selectFrom('scans')
      .selectAll()
      .where('id', '=', scanId)
      .executeTakeFirstOrThrow();
    expect(scan).toMatchObject({ category: 'backend', partial: true, root: '/w/x' });
    expect(await findingsOf(app.id)).toMatchObject([{ category: 'backend', file_path: 'a.c' }]);
  });

  it('400 when partial is not a boolean', async () => {
    const app = await makeApplication(t, admin);
    const response = await upload(
      t,
      '/api/ingest',
      { 'x-api-token': app.api_token },
      {
        file: buildSarif({ results: [] }),
        fields: { partial: 'maybe' },
      },
    );
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'validation_failed', errors: [{ path: 'body.partial' }] });
  });

  it('documents the form fields in the OpenAPI document', async () => {
    const spec = (await t.app.inject({ url: '/api/openapi.json' })).json() as {
      paths: Record<string, { post?: { requestBody?: { content: Record<string, { schema: unknown }> } } }>;
    };
    for (const path of [
      '/api/ingest',
      '/api/applications/{id}/ingest',
      '/api/groups/{group_id}/applications/{slug}/ingest',
    ]) {
      const schema = spec.paths[path]?.post?.requestBody?.content['multipart/form-data']?.schema as {
        properties: Record<string, unknown>;
      };
      expect(Object.keys(schema.properties)).toEqual(
        expect.arrayContaining(['file', 'category', 'partial', 'root']),
      );
    }
  });
});
