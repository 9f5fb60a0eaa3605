import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeApplication, makeUser, type TestUser } from '../support/factories.ts';
import { LIVE_DIR } from '../support/live-fixtures.ts';
import { createTestApp, listenOnLoopback, type TestApp } from '../support/test-app.ts';

/**
 * The CLI's gates count security findings only unless `--include-quality` (issue 45 item 7): `node
 * bin/scanhub.js upload …` as a child process against the test app listening on 127.0.0.1, with real
 * ShellCheck (all quality) and ESLint (quality and the eval family's security) reports.
 */

const REPO_ROOT = resolve(import.meta.dirname, '..', '..');
// ShellCheck 0.10 on test/fixtures/formats/shellcheck/src: 14 comments, 4 of them warnings (low), the rest info.
const SHELLCHECK = resolve(import.meta.dirname, '..', 'fixtures', 'formats', 'shellcheck', 'shellcheck.json');
const ESLINT = join(LIVE_DIR, 'reports/v1/eslint.sarif');
let t: TestApp;
let url: string;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  url = await listenOnLoopback(t);
  admin = await makeUser(t, { role: 'admin' });
});
afterAll(async () => {
  await t.close();
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      ['bin/scanhub.js', ...args],
      { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', SCANHUB_URL: url, ...env } },
      (error, stdout, stderr) => done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

interface Summary {
  uploads: { scan: { new_findings_count: number } }[];
  gate: { mode: string; passed: boolean; count: number } | null;
}
const summary = (run: Run): Summary => JSON.parse(run.stdout) as Summary;

/** The application's open findings per concern, as stored, at or above a severity rank (2: low). */
async function concerns(applicationId: number, minRank = 1): Promise<Record<string, number>> {
  const rows = await t.db
    .selectFrom('findings')
    .select(['concern', (eb) => eb.fn.countAll<number>().as('n')])
    .where('application_id', '=', applicationId)
    .where('status', '=', 'open')
    .where('severity_rank', '>=', minRank)
    .groupBy('concern')
    .execute();
  return Object.fromEntries(rows.map((row) => [row.concern, Number(row.n)]));
}

describe('scanhub upload gates and the concern', () => {
  it('--fail-on low passes on quality findings only, and fails with --include-quality (new and version gates)', async () => {
    const app = await makeApplication(t, admin);
    const env = { SCANHUB_TOKEN: app.api_token };
    const passed = await cli(['upload', SHELLCHECK, '--version', 'main', '--fail-on', 'low', '--json'], env);
    expect(passed.code, passed.stderr).toBe(0);
    const stored = await concerns(app.id);
    const low = await concerns(app.id, 2);
    expect(stored.security).toBeUndefined();
    expect(low.quality).toBeGreaterThan(0);
    expect(stored.quality).toBeGreaterThan(low.quality ?? 0);
    expect(summary(passed).uploads[0]?.scan.new_findings_count).toBe(stored.quality);
    expect(summary(passed).gate).toMatchObject({ mode: 'new', passed: true, count: 0 });

    const version = await cli(['upload', SHELLCHECK, '--version', 'main', '--fail-on-any', '--json'], env);
    expect(version.code, version.stderr).toBe(0);
    expect(summary(version).gate).toMatchObject({ mode: 'version', passed: true, count: 0 });
    const versionAll = await cli(
      ['upload', SHELLCHECK, '--version', 'main', '--fail-on-any', '--include-quality', '--json'],
      env,
    );
    expect(versionAll.code, versionAll.stderr).toBe(1);
    expect(summary(versionAll).gate).toMatchObject({ mode: 'version', passed: false, count: stored.quality });

    const other = await makeApplication(t, admin);
    const failed = await cli(['upload', SHELLCHECK, '--fail-on', 'low', '--include-quality', '--json'], {
      SCANHUB_TOKEN: other.api_token,
    });
    expect(failed.code, failed.stderr).toBe(1);
    expect(summary(failed).gate).toMatchObject({ mode: 'new', passed: false, count: low.quality });
  }, 90_000);

  it('a mixed report: the gate counts its security findings, and all of them with --include-quality', async () => {
    const app = await makeApplication(t, admin);
    const security = await cli(['upload', ESLINT, '--fail-on', 'low', '--json'], {
      SCANHUB_TOKEN: app.api_token,
    });
    expect(security.code, security.stderr).toBe(1);
    const stored = await concerns(app.id);
    expect(stored.security).toBeGreaterThan(0);
    expect(stored.quality).toBeGreaterThan(0);
    expect(summary(security).gate).toMatchObject({ passed: false, count: stored.security });
    expect(security.stdout).not.toContain('no-unused-vars');

    const other = await makeApplication(t, admin);
    const all = await cli(['upload', ESLINT, '--fail-on', 'low', '--include-quality', '--json'], {
      SCANHUB_TOKEN: other.api_token,
    });
    expect(all.code, all.stderr).toBe(1);
    expect(summary(all).gate).toMatchObject({
      passed: false,
      count: (stored.security ?? 0) + (stored.quality ?? 0),
    });
  }, 90_000);
});
