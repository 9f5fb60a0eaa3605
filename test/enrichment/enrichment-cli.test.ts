import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeUser, type TestUser } from '../support/factories.ts';
import { createTestApp, listenOnLoopback, type TestApp } from '../support/test-app.ts';

/** `scanhub enrichment import` as a child process against the test app on 127.0.0.1. */
const REPO_ROOT = resolve(import.meta.dirname, '..', '..');
const FIXTURES = resolve(REPO_ROOT, 'test/fixtures/enrichment');
let t: TestApp;
let url: string;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  url = await listenOnLoopback(t);
  admin = await makeUser(t, { role: 'admin' });
});
afterAll(() => t.close());

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      ['bin/scanhub.js', ...args],
      { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', SCANHUB_URL: url } },
      (error, stdout, stderr) => done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('scanhub enrichment import', () => {
  it('imports EPSS (gzip) and KEV files in order; again: unchanged; a member is refused (exit 3)', async () => {
    const files = [
      `${FIXTURES}/epss_scores-2026-11-27.csv.gz`,
      `${FIXTURES}/known_exploited_vulnerabilities.json`,
    ];
    const run = await cli(['enrichment', 'import', ...files, '--api-key', admin.key, '--json']);
    expect(run.code, run.stderr).toBe(0);
    const results = JSON.parse(run.stdout) as {
      outcome: string;
      snapshot: { source: string; row_count: number };
    }[];
    expect(
      results.map((result) => [result.outcome, result.snapshot.source, result.snapshot.row_count]),
    ).toEqual([
      ['imported', 'epss', 400],
      ['imported', 'kev', 6],
    ]);
    expect(run.stderr).toContain('EPSS v2025.03.14 of 2026-11-27, 400 rows');
    const again = await cli(['enrichment', 'import', files[1]!, '--api-key', admin.key]);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('unchanged');

    const member = await makeUser(t);
    const refused = await cli(['enrichment', 'import', files[0]!, '--api-key', member.key]);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('403');
    const missing = await cli(['enrichment', 'import', `${FIXTURES}/nothing.csv`, '--api-key', admin.key]);
    expect(missing.code).toBe(2);
  }, 180_000);
});
