import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeApplication, makeUser, type TestUser } from '../support/factories.ts';
import { LIVE_DIR, liveReport, liveScanRoot, type LiveState } from '../support/live-fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { upload } from '../support/upload.ts';

/**
 * Issue 9, "How to prove it": each tool's real reports of the live tree (test/fixtures/live) are
 * uploaded as v1 then v2 into one application version, and the findings that are new, fixed and still
 * present are exactly the ones a person reading the two trees and reports expects. The expectations
 * below were written by hand from tree/v1 → tree/v2 (code moved down 3 lines; render.js, copy.c,
 * app.py and deploy.sh fix the first of two identical twins; legacy.js, legacy.c, old_jobs.py and
 * restore.sh fix a call that handler.js, name.c, jobs.py and backup.sh keep; the second GitHub token
 * is removed; lodash 4.17.15 → 4.17.21 and the vendored jQuery 1.8.1 → 3.4.1), never computed.
 */

let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await makeUser(t, { role: 'admin' });
});
afterAll(() => t.close());

/** Reports that name files by absolute path (reports/ABSOLUTE.txt): the upload names the root. */
const absolute = new Set(
  readFileSync(`${LIVE_DIR}reports/ABSOLUTE.txt`, 'utf8')
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#')),
);

interface Upload {
  report: string;
  /** An upload category, for tools that write one report per translation unit. */
  category?: string;
}

/** `rule file line`, or for dependencies `id file package@version`. */
type Place = string;
interface Expectation {
  v1: Place[];
  /** v1 place → v2 place of the same finding. */
  present: [Place, Place][];
  fixed: Place[];
  new: Place[];
}

interface Listed {
  id: number;
  status: string;
  kind: string;
  rule_id: string | null;
  file_path: string | null;
  line: number | null;
  cve_ids: string[];
  package_name: string | null;
  package_version: string | null;
}

const codePlace = (f: Listed): Place => `${f.rule_id} ${f.file_path} ${f.line}`;
/** Dependency findings: the advisory (CVE, else "-"), the file, and the package as installed. */
const dependencyPlace = (f: Listed): Place =>
  `${f.cve_ids[0] ?? '-'} ${f.file_path ?? '-'} ${f.package_name}@${f.package_version}`;

async function ingest(appToken: string, state: LiveState, item: Upload) {
  const fields: Record<string, string> = { version: 'main' };
  if (absolute.has(item.report)) fields['root'] = liveScanRoot(state);
  if (item.category !== undefined) fields['category'] = item.category;
  const response = await upload(
    t,
    '/api/ingest',
    { 'x-api-token': appToken },
    { file: liveReport(state, item.report), fileName: item.report, fields },
  );
  expect(response.statusCode, `${state}/${item.report}: ${response.body}`).toBe(201);
  return response.json() as {
    scan: { id: number };
    findings_count: number;
    new_findings_count: number;
    existing_findings_count: number;
    fixed_findings_count: number;
  };
}

async function listFindings(applicationId: number): Promise<Listed[]> {
  const response = await t.app.inject({
    url: `/api/findings?applicationId=${applicationId}&perPage=200`,
    headers: admin.headers,
  });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { findings: Listed[] }).findings;
}

/**
 * A scan's counts equal the rows stored (issue 9 item 4): after one state's uploads (one per category
 * at most), the application's present findings are exactly the findings those uploads counted.
 */
async function expectCountsMatchRows(applicationId: number, bodies: Awaited<ReturnType<typeof ingest>>[]) {
  for (const body of bodies) {
    expect.soft(body.findings_count).toBe(body.new_findings_count + body.existing_findings_count);
  }
  const present = (await listFindings(applicationId)).filter((f) => f.status !== 'fixed');
  // Soft, so one run also shows the new/fixed/present sets below when a count is off.
  expect
    .soft(present.length, 'present findings vs counted')
    .toBe(bodies.reduce((sum, body) => sum + body.findings_count, 0));
}

async function runTool(uploads: Upload[], expected: Expectation, place = codePlace) {
  const app = await makeApplication(t, admin);
  const v1Bodies = [];
  for (const item of uploads) v1Bodies.push(await ingest(app.api_token, 'v1', item));
  await expectCountsMatchRows(app.id, v1Bodies);
  const before = await listFindings(app.id);
  expect.soft(before.map(place).sort()).toEqual([...expected.v1].sort());
  const placeBefore = new Map(before.map((f) => [f.id, place(f)]));

  let v2Totals = { new: 0, existing: 0, fixed: 0 };
  const v2Bodies = [];
  for (const item of uploads) {
    const body = await ingest(app.api_token, 'v2', item);
    v2Bodies.push(body);
    v2Totals = {
      new: v2Totals.new + body.new_findings_count,
      existing: v2Totals.existing + body.existing_findings_count,
      fixed: v2Totals.fixed + body.fixed_findings_count,
    };
  }
  await expectCountsMatchRows(app.id, v2Bodies);
  const after = await listFindings(app.id);
  const fixed = after
    .filter((f) => f.status === 'fixed')
    .map((f) => placeBefore.get(f.id) ?? `new?${place(f)}`);
  const present = after
    .filter((f) => placeBefore.has(f.id) && f.status !== 'fixed')
    .map((f): [Place, Place] => [placeBefore.get(f.id) ?? '', place(f)]);
  const created = after.filter((f) => !placeBefore.has(f.id)).map(place);
  expect({ present: present.sort(), fixed: fixed.sort(), new: created.sort() }).toEqual({
    present: [...expected.present].sort(),
    fixed: [...expected.fixed].sort(),
    new: [...expected.new].sort(),
  });
  expect(v2Totals).toEqual({
    new: expected.new.length,
    existing: expected.present.length,
    fixed: expected.fixed.length,
  });
}

/** Builds an expectation from present pairs, fixed and new places; v1 is present + fixed. */
const expectation = (present: [Place, Place][], fixed: Place[], created: Place[] = []): Expectation => ({
  v1: [...present.map(([from]) => from), ...fixed],
  present,
  fixed,
  new: created,
});

// ESLint (-f json and the SARIF formatter): the same eight messages.
const eslintExpectation = expectation(
  [
    ['eqeqeq src/js/handler.js 3', 'eqeqeq src/js/handler.js 6'],
    ['eqeqeq src/js/legacy.js 3', 'eqeqeq src/js/legacy.js 6'],
    ['eqeqeq src/js/render.js 4', 'eqeqeq src/js/render.js 7'],
    ['no-eval src/js/handler.js 4', 'no-eval src/js/handler.js 7'],
    // Twins: line 8 was fixed, so the finding of line 10 is the one still present.
    ['no-eval src/js/render.js 10', 'no-eval src/js/render.js 13'],
    ['no-unused-vars src/js/render.js 3', 'no-unused-vars src/js/render.js 6'],
  ],
  // Same call in legacy.js and handler.js: only legacy.js's is fixed.
  ['no-eval src/js/legacy.js 4', 'no-eval src/js/render.js 8'],
);

const SECRETLINT = '@secretlint/secretlint-rule-preset-recommend > @secretlint/secretlint-rule-';

describe('real scanner output of the live tree, v1 then v2 (issue 9)', () => {
  it('ESLint JSON', () => runTool([{ report: 'eslint.json' }], eslintExpectation));

  it('ESLint SARIF', () => runTool([{ report: 'eslint.sarif' }], eslintExpectation));

  it('Biome SARIF', () =>
    runTool(
      [{ report: 'biome.sarif' }],
      expectation(
        [
          [
            'lint/correctness/noUnusedVariables src/js/render.js 3',
            'lint/correctness/noUnusedVariables src/js/render.js 6',
          ],
          [
            'lint/security/noGlobalEval src/js/handler.js 4',
            'lint/security/noGlobalEval src/js/handler.js 7',
          ],
          [
            'lint/security/noGlobalEval src/js/render.js 10',
            'lint/security/noGlobalEval src/js/render.js 13',
          ],
          [
            'lint/suspicious/noDoubleEquals src/js/handler.js 3',
            'lint/suspicious/noDoubleEquals src/js/handler.js 6',
          ],
          [
            'lint/suspicious/noDoubleEquals src/js/legacy.js 3',
            'lint/suspicious/noDoubleEquals src/js/legacy.js 6',
          ],
        ],
        ['lint/security/noGlobalEval src/js/legacy.js 4', 'lint/security/noGlobalEval src/js/render.js 8'],
      ),
    ));

  it('oxlint SARIF', () =>
    runTool(
      [{ report: 'oxlint.sarif' }],
      expectation(
        [
          ['eslint(no-eval) src/js/handler.js 4', 'eslint(no-eval) src/js/handler.js 7'],
          ['eslint(no-eval) src/js/render.js 10', 'eslint(no-eval) src/js/render.js 13'],
          ['eslint(no-unused-vars) src/js/render.js 3', 'eslint(no-unused-vars) src/js/render.js 6'],
        ],
        ['eslint(no-eval) src/js/legacy.js 4', 'eslint(no-eval) src/js/render.js 8'],
      ),
    ));

  // Secrets: the removed token is the second GitHub token (v1 line 5). The one kept moved from line 4 to
  // line 7, nearer to 5 than to 4: only the secret's hash, not the line, can tell which one left.
  const gitleaksExpectation = expectation(
    [
      ['aws-access-token config/credentials.env 2', 'aws-access-token config/credentials.env 5'],
      ['generic-api-key config/credentials.env 3', 'generic-api-key config/credentials.env 6'],
      ['github-pat config/credentials.env 4', 'github-pat config/credentials.env 7'],
      ['private-key config/deploy-key.pem 1', 'private-key config/deploy-key.pem 1'],
      ['slack-bot-token config/notify.js 2', 'slack-bot-token config/notify.js 5'],
    ],
    ['github-pat config/credentials.env 5'],
  );

  it('gitleaks JSON', () => runTool([{ report: 'gitleaks.json' }], gitleaksExpectation));

  it('gitleaks SARIF', () => runTool([{ report: 'gitleaks.sarif' }], gitleaksExpectation));

  it('secretlint SARIF (--no-maskSecrets)', () =>
    runTool(
      [{ report: 'secretlint-unmasked.sarif' }],
      expectation(
        [
          [`${SECRETLINT}aws config/credentials.env 3`, `${SECRETLINT}aws config/credentials.env 6`],
          [`${SECRETLINT}github config/credentials.env 4`, `${SECRETLINT}github config/credentials.env 7`],
          [
            `${SECRETLINT}privatekey config/deploy-key.pem 1`,
            `${SECRETLINT}privatekey config/deploy-key.pem 1`,
          ],
          [`${SECRETLINT}slack config/notify.js 2`, `${SECRETLINT}slack config/notify.js 5`],
        ],
        [`${SECRETLINT}github config/credentials.env 5`],
      ),
    ));

  it('Spectral SARIF', () =>
    runTool(
      [{ report: 'spectral.sarif' }],
      expectation(
        [
          ['info-contact api/openapi.yaml 2', 'info-contact api/openapi.yaml 5'],
          ['oas3-api-servers api/openapi.yaml 1', 'oas3-api-servers api/openapi.yaml 4'],
          // v2 added a line (info.description) above the operations: they moved by 4.
          ['operation-description api/openapi.yaml 7', 'operation-description api/openapi.yaml 11'],
          ['operation-description api/openapi.yaml 12', 'operation-description api/openapi.yaml 16'],
          ['operation-operationId api/openapi.yaml 7', 'operation-operationId api/openapi.yaml 11'],
          ['operation-operationId api/openapi.yaml 12', 'operation-operationId api/openapi.yaml 16'],
          ['operation-tags api/openapi.yaml 7', 'operation-tags api/openapi.yaml 11'],
          ['operation-tags api/openapi.yaml 12', 'operation-tags api/openapi.yaml 16'],
        ],
        ['info-description api/openapi.yaml 2'],
      ),
    ));

  it('Flawfinder SARIF', () =>
    runTool(
      [{ report: 'flawfinder.sarif' }],
      expectation(
        [
          // Twins (strcpy(buf, src) twice): line 7 was fixed, line 9 stays.
          ['FF1001 src/c/copy.c 9', 'FF1001 src/c/copy.c 12'],
          // The same call (and contextHash) as legacy.c's, which was fixed: this one stays.
          ['FF1001 src/c/name.c 6', 'FF1001 src/c/name.c 9'],
          ['FF1013 src/c/copy.c 5', 'FF1013 src/c/copy.c 8'],
          ['FF1013 src/c/copy.c 6', 'FF1013 src/c/copy.c 9'],
          ['FF1013 src/c/legacy.c 5', 'FF1013 src/c/legacy.c 8'],
          ['FF1013 src/c/name.c 5', 'FF1013 src/c/name.c 8'],
          ['FF1015 src/c/copy.c 11', 'FF1015 src/c/copy.c 14'],
        ],
        ['FF1001 src/c/copy.c 7', 'FF1001 src/c/legacy.c 6'],
      ),
    ));

  it('clang static analyzer, one SARIF per translation unit, each its own category', () =>
    runTool(
      ['copy', 'legacy', 'name'].map((unit) => ({
        report: `clang-${unit}.sarif`,
        category: `clang/${unit}.c`,
      })),
      expectation(
        [
          ['core.DivideZero src/c/copy.c 17', 'core.DivideZero src/c/copy.c 20'],
          ['core.NullDereference src/c/copy.c 23', 'core.NullDereference src/c/copy.c 26'],
          ['deadcode.DeadStores src/c/name.c 11', 'deadcode.DeadStores src/c/name.c 14'],
          ['deadcode.DeadStores src/c/name.c 12', 'deadcode.DeadStores src/c/name.c 15'],
        ],
        // legacy.c's v2 SARIF has no results: an empty report closes its category.
        ['core.uninitialized.UndefReturn src/c/legacy.c 12'],
      ),
    ));

  it('Cppcheck XML', () =>
    runTool(
      [{ report: 'cppcheck.xml' }],
      expectation(
        [
          ['constVariable src/c/legacy.c 11', 'constVariable src/c/legacy.c 14'],
          ['nullPointer src/c/copy.c 23', 'nullPointer src/c/copy.c 26'],
          ['redundantInitialization src/c/name.c 12', 'redundantInitialization src/c/name.c 15'],
          ['unreadVariable src/c/name.c 12', 'unreadVariable src/c/name.c 15'],
          ['zerodiv src/c/copy.c 17', 'zerodiv src/c/copy.c 20'],
        ],
        ['arrayIndexOutOfBounds src/c/legacy.c 12'],
      ),
    ));

  it('Bandit JSON', () =>
    runTool(
      [{ report: 'bandit.json' }],
      expectation(
        [
          ['B301 src/py/app.py 21', 'B301 src/py/app.py 24'],
          // Twins (eval twice): `first = eval` (14) was fixed, `second = eval` (15) stays.
          ['B307 src/py/app.py 15', 'B307 src/py/app.py 18'],
          ['B403 src/py/app.py 3', 'B403 src/py/app.py 6'],
          ['B404 src/py/app.py 4', 'B404 src/py/app.py 7'],
          ['B404 src/py/jobs.py 2', 'B404 src/py/jobs.py 5'],
          ['B404 src/py/old_jobs.py 2', 'B404 src/py/old_jobs.py 5'],
          ['B602 src/py/app.py 9', 'B602 src/py/app.py 12'],
          // The same call as old_jobs.py's, which was fixed: this one stays.
          ['B602 src/py/jobs.py 7', 'B602 src/py/jobs.py 10'],
        ],
        ['B307 src/py/app.py 14', 'B602 src/py/old_jobs.py 7'],
        // The fix in old_jobs.py (a list instead of a shell) brings two low-severity results.
        ['B603 src/py/old_jobs.py 10', 'B607 src/py/old_jobs.py 10'],
      ),
    ));

  it('Pylint JSON', () =>
    runTool(
      [{ report: 'pylint.json' }],
      expectation(
        [
          ['eval-used src/py/app.py 15', 'eval-used src/py/app.py 18'],
          ['unused-import src/py/app.py 2', 'unused-import src/py/app.py 5'],
        ],
        ['eval-used src/py/app.py 14'],
      ),
    ));

  it('ShellCheck JSON', () =>
    runTool(
      [{ report: 'shellcheck.json' }],
      expectation(
        [
          // The same call as restore.sh's, which was fixed: this one stays.
          ['SC2086 scripts/backup.sh 4', 'SC2086 scripts/backup.sh 7'],
          // Three identical results in deploy.sh (4, 6, 7); line 4 was fixed. Nearest lines, in order.
          ['SC2086 scripts/deploy.sh 6', 'SC2086 scripts/deploy.sh 9'],
          ['SC2086 scripts/deploy.sh 7', 'SC2086 scripts/deploy.sh 10'],
        ],
        ['SC2086 scripts/deploy.sh 4', 'SC2086 scripts/restore.sh 4'],
      ),
    ));

  // Dependencies: an upgrade that still has an advisory is the same finding with the new version.
  it('retire.js JSON', () =>
    runTool(
      [{ report: 'retire.json' }],
      expectation(
        [
          [
            'CVE-2020-11022 vendor/jquery.min.js jquery@1.8.1',
            'CVE-2020-11022 vendor/jquery.min.js jquery@3.4.1',
          ],
          [
            'CVE-2020-11023 vendor/jquery.min.js jquery@1.8.1',
            'CVE-2020-11023 vendor/jquery.min.js jquery@3.4.1',
          ],
          [
            'CVE-2025-13465 node_modules/lodash/lodash.js lodash@4.17.15',
            'CVE-2025-13465 node_modules/lodash/lodash.js lodash@4.17.21',
          ],
        ],
        [
          'CVE-2012-6708 vendor/jquery.min.js jquery@1.8.1',
          'CVE-2015-9251 vendor/jquery.min.js jquery@1.8.1',
          'CVE-2019-11358 vendor/jquery.min.js jquery@1.8.1',
          'CVE-2020-7656 vendor/jquery.min.js jquery@1.8.1',
          // parseHTML() executing event handlers, and jQuery 1.x end of life: advisories without a CVE.
          '- vendor/jquery.min.js jquery@1.8.1',
          '- vendor/jquery.min.js jquery@1.8.1',
          'CVE-2020-28500 node_modules/lodash/lodash.js lodash@4.17.15',
          'CVE-2020-8203 node_modules/lodash/lodash.js lodash@4.17.15',
          'CVE-2021-23337 node_modules/lodash/lodash.js lodash@4.17.15',
        ],
        // retire.js 5.7 also recognises lodash.min.js of 4.17.21.
        ['CVE-2025-13465 node_modules/lodash/lodash.min.js lodash@4.17.21'],
      ),
      dependencyPlace,
    ));

  /** CycloneDX findings: the advisory and the package as installed (the BOM names no files). */
  const bomPlace = (f: Listed): Place =>
    `${f.cve_ids[0] ?? f.rule_id} ${f.package_name}@${f.package_version}`;

  it('retire.js CycloneDX 1.6 (VEX)', () =>
    runTool(
      [{ report: 'retire.cdx.json' }],
      expectation(
        [
          ['CVE-2020-11022 jquery@1.8.1', 'CVE-2020-11022 jquery@3.4.1'],
          ['CVE-2020-11023 jquery@1.8.1', 'CVE-2020-11023 jquery@3.4.1'],
          ['CVE-2025-13465 lodash@4.17.15', 'CVE-2025-13465 lodash@4.17.21'],
        ],
        [
          'CVE-2012-6708 jquery@1.8.1',
          'CVE-2015-9251 jquery@1.8.1',
          'CVE-2019-11358 jquery@1.8.1',
          'CVE-2020-7656 jquery@1.8.1',
          'CVE-2020-28500 lodash@4.17.15',
          'CVE-2020-8203 lodash@4.17.15',
          'CVE-2021-23337 lodash@4.17.15',
        ],
      ),
      bomPlace,
    ));

  it('a cyclonedx-npm SBOM (no vulnerabilities) leaves retire.js CycloneDX findings open', async () => {
    const app = await makeApplication(t, admin);
    const retire = await ingest(app.api_token, 'v1', { report: 'retire.cdx.json' });
    expect(retire.findings_count).toBe(10);
    const sbom = await ingest(app.api_token, 'v1', { report: 'sbom.cdx.json' });
    expect(sbom).toMatchObject({ findings_count: 0, fixed_findings_count: 0 });
    const open = (await listFindings(app.id)).filter((f) => f.status === 'open');
    expect(open).toHaveLength(10);
  });
});
