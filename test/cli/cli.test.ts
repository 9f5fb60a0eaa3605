import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { breakingProxy } from '../support/breaking-proxy.ts';
import { makeApplication, makeUser, type TestUser } from '../support/factories.ts';
import { corpusPath } from '../support/parse-corpus.ts';
import { buildSarif, type SarifResultSpec } from '../support/sarif-builder.ts';
import { createTestApp, listenOnLoopback, type TestApp } from '../support/test-app.ts';

/**
 * The client commands end to end: `node bin/scanhub.js ...` as a child process against a real
 * server listening on 127.0.0.1 (the test app, with its job workers, so `--wait` is real).
 */

const REPO_ROOT = resolve(import.meta.dirname, '..', '..');
const CODEQL = corpusPath('sarif/codeQL-output.sarif'); // 72 findings, read in place
let t: TestApp;
let url: string;
let admin: TestUser;
let work: string;

beforeAll(async () => {
  t = await createTestApp();
  url = await listenOnLoopback(t);
  admin = await makeUser(t, { role: 'admin' });
  work = mkdtempSync(join(tmpdir(), 'scanhub-cli-'));
});
afterAll(async () => {
  await t.close();
  rmSync(work, { recursive: true, force: true });
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      ['bin/scanhub.js', ...args],
      {
        cwd: REPO_ROOT,
        env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', SCANHUB_URL: url, ...env },
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const json = (run: Run) => {
  expect(run.stderr).not.toMatch(/at .*\.ts:\d+/); // no stack trace
  return JSON.parse(run.stdout) as {
    uploads: {
      scan: { id: number; status: string; new_findings_count: number; version_id: number; file_name: string };
      new_by_severity: Record<string, number>;
      replayed: boolean;
      attempts: number;
      idempotency_key: string;
      link: string;
    }[];
    gate: { mode: string; passed: boolean; count: number; findings: { title: string }[] } | null;
    exit_code: number;
  };
};

function sarifFile(name: string, results: SarifResultSpec[]): string {
  const path = join(work, name);
  writeFileSync(path, buildSarif({ tool: 'GateTool', results }));
  return path;
}

async function scansOf(applicationId: number) {
  return t.db.selectFrom('scans').selectAll().where('application_id', '=', applicationId).execute();
}

describe('scanhub upload', () => {
  it('uploads a corpus SARIF gzipped with the application token and prints a JSON summary', async () => {
    const app = await makeApplication(t, admin);
    const run = await cli(['upload', CODEQL, '--version', '1.10', '--json'], {
      SCANHUB_TOKEN: app.api_token,
    });
    expect(run.code, run.stderr).toBe(0);
    const result = json(run);
    const [upload] = result.uploads;
    expect(upload?.scan.status).toBe('completed');
    expect(upload?.scan.new_findings_count).toBe(72);
    expect(Object.values(upload?.new_by_severity ?? {}).reduce((a, b) => a + b, 0)).toBe(72);
    expect(upload?.scan.file_name).toBe('codeQL-output.sarif');
    expect(upload?.link).toBe(`${url}/api/scans/${upload?.scan.id}`);
    expect(result.gate).toBeNull();
    const version = await t.db
      .selectFrom('application_versions')
      .select('name')
      .where('id', '=', upload?.scan.version_id ?? 0)
      .executeTakeFirstOrThrow();
    expect(version.name).toBe('1.10'); // not the number 1.1
    expect(await scansOf(app.id)).toHaveLength(1);
  }, 60_000);

  it('--fail-on fails on new open findings (exit 1), then passes when the same report adds nothing new', async () => {
    const app = await makeApplication(t, admin);
    const env = { SCANHUB_TOKEN: app.api_token };
    const first = await cli(['upload', CODEQL, '--fail-on', 'high'], env);
    expect(first.code, first.stderr).toBe(1);
    expect(first.stdout).toMatch(/Gate failed: \d+ new open findings at or above high/);
    const again = await cli(['upload', CODEQL, '--fail-on', 'high', '--json'], env);
    expect(again.code, again.stderr).toBe(0);
    expect(json(again).gate).toMatchObject({ mode: 'new', passed: true, count: 0 });
  }, 60_000);

  it('--fail-on ignores new findings a policy marked false positive during the ingest', async () => {
    const app = await makeApplication(t, admin);
    const policy = await t.app.inject({
      method: 'POST',
      url: '/api/policies',
      headers: admin.headers,
      payload: {
        name: 'vendored code is accepted',
        scope_type: 'application',
        scope_id: app.id,
        event_types: ['finding.created'],
        conditions: [{ field: 'file_path', op: 'regex', value: '^vendor/' }],
        actions: [{ type: 'change_status', target: 'false_positive' }],
      },
    });
    expect(policy.statusCode, policy.body).toBe(201);
    const env = { SCANHUB_TOKEN: app.api_token };
    const vendored = sarifFile('fp.sarif', [
      { ruleId: 'FP1', path: 'vendor/lib.js', line: 1, level: 'error' },
    ]);
    const passed = await cli(['upload', vendored, '--fail-on', 'low', '--json'], env);
    expect(passed.code, passed.stderr).toBe(0);
    expect(json(passed).uploads[0]?.scan.new_findings_count).toBe(1);
    expect(json(passed).gate).toMatchObject({ mode: 'new', passed: true, count: 0 });
    const own = sarifFile('own.sarif', [{ ruleId: 'FP1', path: 'src/lib.js', line: 1, level: 'note' }]);
    const failed = await cli(['upload', own, '--category', 'own', '--fail-on', 'low', '--json'], env);
    expect(failed.code, failed.stderr).toBe(1);
    expect(json(failed).gate).toMatchObject({ passed: false, count: 1 });
    const low = sarifFile('low.sarif', [{ ruleId: 'FP2', path: 'src/other.js', line: 1, level: 'note' }]);
    const belowThreshold = await cli(
      ['upload', low, '--category', 'low', '--fail-on', 'medium', '--json'],
      env,
    );
    expect(belowThreshold.code, belowThreshold.stderr).toBe(0);
    expect(json(belowThreshold).uploads[0]?.new_by_severity).toMatchObject({ low: 1 });
  }, 60_000);

  it('--baseline counts open findings absent from the baseline version; --fail-on-any counts all', async () => {
    const app = await makeApplication(t, admin);
    const env = { SCANHUB_TOKEN: app.api_token };
    const base = [
      { ruleId: 'B1', path: 'src/a.ts', line: 3, level: 'error' as const },
      { ruleId: 'B2', path: 'src/b.ts', line: 4, level: 'warning' as const },
    ];
    const main = await cli(['upload', sarifFile('main.sarif', base), '--version', 'main'], env);
    expect(main.code, main.stderr).toBe(0);
    const feature = sarifFile('feature.sarif', [
      ...base,
      { ruleId: 'B3', path: 'src/c.ts', line: 5, level: 'error' },
    ]);

    const gated = await cli(
      ['upload', feature, '--version', 'pr-1', '--baseline', 'main', '--fail-on', 'high', '--json'],
      env,
    );
    expect(gated.code, gated.stderr).toBe(1);
    expect(json(gated).gate).toMatchObject({ mode: 'baseline', passed: false, count: 1 });
    expect(json(gated).gate?.findings[0]?.title).toContain('B3');

    const medium = sarifFile('medium.sarif', [
      ...base,
      { ruleId: 'B4', path: 'src/d.ts', line: 6, level: 'warning' },
    ]);
    const passes = await cli(
      ['upload', medium, '--version', 'pr-2', '--baseline', 'main', '--fail-on', 'high', '--json'],
      env,
    );
    expect(passes.code, passes.stderr).toBe(0);
    expect(json(passes).gate).toMatchObject({ mode: 'baseline', passed: true, count: 0 });

    const scansBefore = (await scansOf(app.id)).length;
    const missing = await cli(['upload', feature, '--version', 'pr-3', '--baseline', 'nope'], env);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/--baseline version nope does not exist.*nothing was uploaded/);
    expect(missing.stderr).not.toMatch(/credentials/);
    // Resolved before the upload: no scan and no version pr-3.
    expect(await scansOf(app.id)).toHaveLength(scansBefore);
    const pr3 = await t.db
      .selectFrom('application_versions')
      .select('id')
      .where('application_id', '=', app.id)
      .where('name', '=', 'pr-3')
      .execute();
    expect(pr3).toEqual([]);

    const any = await cli(['upload', feature, '--version', 'pr-1', '--fail-on-any', '--json'], env);
    expect(any.code).toBe(1);
    expect(json(any).gate).toMatchObject({ mode: 'version', count: 3 });
    const anyHigh = await cli(
      ['upload', feature, '--version', 'pr-1', '--fail-on-any', '--fail-on', 'critical'],
      env,
    );
    expect(anyHigh.code, anyHigh.stderr).toBe(0);
  }, 90_000);

  it('--wait uploads asynchronously, follows the scan to completion and gates on it', async () => {
    const app = await makeApplication(t, admin);
    const env = { SCANHUB_TOKEN: app.api_token };
    // With quality results too: new_by_severity counts every concern (test/cli/cli-concern.test.ts
    // covers the security-only default).
    const run = await cli(
      ['upload', CODEQL, '--wait', '--json', '--fail-on', 'high', '--include-quality'],
      env,
    );
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toMatch(/scan \d+: (pending|processing)/);
    const result = json(run);
    expect(result.uploads[0]?.scan).toMatchObject({ status: 'completed', new_findings_count: 72 });
    expect(result.gate?.count).toBe(
      (result.uploads[0]?.new_by_severity.high ?? 0) + (result.uploads[0]?.new_by_severity.critical ?? 0),
    );
    expect(result.gate?.count).toBeGreaterThan(0);
    const again = await cli(['upload', CODEQL, '--wait', '--json', '--fail-on', 'high'], env);
    expect(again.code, again.stderr).toBe(0);
    expect(json(again).gate).toMatchObject({ passed: true, count: 0 });
  }, 60_000);

  it('uploads with a user API key to a named application', async () => {
    const app = await makeApplication(t, admin);
    const run = await cli(['upload', CODEQL, '--api-key', admin.key, '--application', app.slug, '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(json(run).uploads[0]?.scan.new_findings_count).toBe(72);
    const missing = await cli(['upload', CODEQL, '--api-key', admin.key]);
    expect(missing.code).toBe(2);
  }, 60_000);

  it('several files are one scan each; a file the server refuses exits 3 after saying what landed', async () => {
    const app = await makeApplication(t, admin);
    const env = { SCANHUB_TOKEN: app.api_token };
    const other = sarifFile('other.sarif', [{ ruleId: 'M1', path: 'src/m.ts', line: 2, level: 'error' }]);
    const both = await cli(
      ['upload', CODEQL, other, '--version', 'multi', '--fail-on', 'high', '--include-quality', '--json'],
      env,
    );
    expect(both.code, both.stderr).toBe(1);
    const result = json(both);
    expect(result.uploads.map((upload) => upload.scan.new_findings_count)).toEqual([72, 1]);
    const high = result.uploads.reduce((sum, upload) => sum + (upload.new_by_severity.high ?? 0), 0);
    expect(result.gate?.count).toBe(
      high + result.uploads.reduce((sum, u) => sum + (u.new_by_severity.critical ?? 0), 0),
    );

    const junk = join(work, 'notes.txt');
    writeFileSync(junk, 'not a scanner report');
    const refused = await cli(['upload', other, junk, '--version', 'multi-2'], env);
    expect(refused.code).toBe(3);
    expect(refused.stdout).toMatch(/other\.sarif: scan \d+ completed/);
    expect(refused.stderr).toMatch(/Upload of notes\.txt answered 400/);
    expect(await scansOf(app.id)).toHaveLength(3);
  }, 60_000);

  it('usage errors exit 2', async () => {
    const app = await makeApplication(t, admin);
    const env = { SCANHUB_TOKEN: app.api_token };
    for (const args of [
      ['upload'],
      ['upload', join(work, 'missing.sarif')],
      ['upload', CODEQL, '--fail-on', 'urgent'],
      ['upload', CODEQL, '--frobnicate'],
      ['upload', CODEQL, '--baseline', 'main', '--fail-on-any'],
      ['findings', 'export', '--format', 'xml'],
      ['findings', 'import'],
    ]) {
      const run = await cli(args, env);
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(2);
      expect(run.stderr).toMatch(/^scanhub: /);
    }
    expect((await cli(['upload', CODEQL], { SCANHUB_URL: '' })).code).toBe(2); // no URL
    expect(await scansOf(app.id)).toHaveLength(0);
  }, 90_000);

  it('server down or credentials refused exit 3', async () => {
    const closed = createServer();
    await new Promise<void>((done) => closed.listen(0, '127.0.0.1', done));
    const address = closed.address();
    await new Promise((done) => closed.close(done));
    const port = typeof address === 'object' && address ? address.port : 1;
    const down = await cli(['upload', CODEQL, '--retries', '1', '--token', 'sht_x'], {
      SCANHUB_URL: `http://127.0.0.1:${port}`,
    });
    expect(down.code).toBe(3);
    expect(down.stderr).toMatch(/Cannot reach .*ECONNREFUSED/);
    const refused = await cli(['upload', CODEQL, '--token', 'sht_not_a_token']);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/401/);
  }, 60_000);
});

describe('scanhub upload through a connection that breaks', () => {
  it.each([
    ['drop-answer', true, /after (ECONNRESET|UND_ERR_SOCKET|other side closed)/],
    ['answer-503', true, /after HTTP 503/],
    ['drop-request', false, /after /],
  ] as const)(
    '%s: retries with the same Idempotency-Key, and exactly one scan exists',
    async (mode, replayed, reason) => {
      const app = await makeApplication(t, admin);
      const proxy = await breakingProxy(url, mode);
      try {
        const run = await cli(['upload', CODEQL, '--json', '--fail-on', 'critical'], {
          SCANHUB_URL: proxy.url,
          SCANHUB_TOKEN: app.api_token,
        });
        expect(run.code, run.stderr).toBe(0);
        expect(run.stderr).toMatch(/try 2 in \d+ ms/);
        expect(run.stderr).toMatch(reason);
        const upload = json(run).uploads[0];
        expect(upload).toMatchObject({ replayed, attempts: 2 });
        expect(upload?.scan.new_findings_count).toBe(72);
        const uploads = proxy.keys.filter((key) => key === upload?.idempotency_key);
        expect(uploads).toHaveLength(2);
        expect(proxy.gzipped).toEqual([true, true]); // the file part is gzip, made on the fly
        const scans = await scansOf(app.id);
        expect(scans).toHaveLength(1);
        expect(scans[0]?.idempotency_key).toBe(upload?.idempotency_key);
        expect(scans[0]?.id).toBe(upload?.scan.id);
      } finally {
        await proxy.close();
      }
    },
    90_000,
  );
});

describe('scanhub findings export', () => {
  it('writes CSV, JSON and SARIF for an application and version', async () => {
    const app = await makeApplication(t, admin);
    const up = await cli(['upload', CODEQL, '--version', 'main'], { SCANHUB_TOKEN: app.api_token });
    expect(up.code, up.stderr).toBe(0);
    const csvPath = join(work, 'out.csv');
    const csv = await cli([
      'findings',
      'export',
      '--api-key',
      admin.key,
      '--application',
      app.slug,
      '--version',
      'main',
      '--format',
      'csv',
      '--output',
      csvPath,
    ]);
    expect(csv.code, csv.stderr).toBe(0);
    const lines = readFileSync(csvPath, 'utf8').trimEnd().split('\r\n');
    expect(lines[0]).toMatch(/^id,application_id,version_id,severity,status,title,/);
    expect(lines.length - 1).toBeGreaterThanOrEqual(72); // quoted titles may hold line breaks

    // The README's example: the application's slug with the application's own token.
    const bySlug = await cli(['findings', 'export', '--application', app.slug, '--format', 'csv'], {
      SCANHUB_TOKEN: app.api_token,
    });
    expect(bySlug.code, bySlug.stderr).toBe(0);
    expect(bySlug.stdout.trimEnd().split('\r\n').length - 1).toBeGreaterThanOrEqual(72);
    const other = await makeApplication(t, admin);
    const notIts = await cli(['findings', 'export', '--application', other.slug, '--format', 'csv'], {
      SCANHUB_TOKEN: app.api_token,
    });
    expect(notIts.code).toBe(2);
    expect(notIts.stderr).toContain(`--application ${other.slug} is not the application of this token`);

    const asJson = await cli(['findings', 'export', '--format', 'json'], { SCANHUB_TOKEN: app.api_token });
    expect(asJson.code, asJson.stderr).toBe(0);
    const records = JSON.parse(asJson.stdout) as { application_id: number }[];
    expect(records).toHaveLength(72);
    expect(new Set(records.map((record) => record.application_id))).toEqual(new Set([app.id]));

    const sarif = await cli(['findings', 'export', '--format', 'sarif', '--version', 'main'], {
      SCANHUB_TOKEN: app.api_token,
    });
    expect(sarif.code, sarif.stderr).toBe(0);
    const log = JSON.parse(sarif.stdout) as { version: string; runs: { results: unknown[] }[] };
    expect(log.version).toBe('2.1.0');
    expect(log.runs).toHaveLength(1);
    expect(log.runs[0]?.results).toHaveLength(72);

    // Like `is:open`: without --status, what needs work; `--status all`, every status.
    const fixedId = records[0] as { application_id: number; id?: number } as { id: number };
    await t.db.updateTable('findings').set({ status: 'fixed' }).where('id', '=', fixedId.id).execute();
    const open = await cli(['findings', 'export', '--format', 'json'], { SCANHUB_TOKEN: app.api_token });
    expect(open.code, open.stderr).toBe(0);
    const openIds = (JSON.parse(open.stdout) as { id: number }[]).map((record) => record.id);
    expect(openIds).toHaveLength(71);
    expect(openIds).not.toContain(fixedId.id);
    const every = await cli(['findings', 'export', '--format', 'json', '--status', 'all'], {
      SCANHUB_TOKEN: app.api_token,
    });
    expect(JSON.parse(every.stdout)).toHaveLength(72);
    const onlyFixed = await cli(['findings', 'export', '--format', 'json', '--status', 'fixed'], {
      SCANHUB_TOKEN: app.api_token,
    });
    expect((JSON.parse(onlyFixed.stdout) as { id: number }[]).map((record) => record.id)).toEqual([
      fixedId.id,
    ]);

    const outsider = await makeUser(t);
    const hidden = await cli([
      'findings',
      'export',
      '--format',
      'json',
      '--api-key',
      outsider.key,
      '--application',
      String(app.id),
    ]);
    expect(hidden.code, hidden.stderr).toBe(0);
    expect(JSON.parse(hidden.stdout)).toEqual([]);
  }, 90_000);
});

describe('scanhub sbom export', () => {
  it('writes a version’s CycloneDX 1.6 SBOM with the components an SBOM upload stored', async () => {
    const app = await makeApplication(t, admin);
    const bom = join(REPO_ROOT, 'test/fixtures/sbom/npm-cyclonedx.json');
    const up = await cli(['upload', bom, '--version', 'rel-1'], { SCANHUB_TOKEN: app.api_token });
    expect(up.code, up.stderr).toBe(0);
    const output = join(work, 'sbom.cdx.json');
    const run = await cli([
      'sbom',
      'export',
      '--api-key',
      admin.key,
      '--application',
      app.slug,
      '--version',
      'rel-1',
      '--output',
      output,
    ]);
    expect(run.code, run.stderr).toBe(0);
    const exported = JSON.parse(readFileSync(output, 'utf8')) as {
      specVersion: string;
      components: { purl: string }[];
    };
    expect(exported.specVersion).toBe('1.6');
    expect(exported.components.map((component) => component.purl)).toContain('pkg:npm/tiny-log@1.2.3');
    const missing = await cli(['sbom', 'export', '--api-key', admin.key, '--application', app.slug]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--version');
  });
});

describe('scanhub vex export and import', () => {
  it('exports a version’s VEX in both formats and imports a supplier’s, printing the match report', async () => {
    const app = await makeApplication(t, admin);
    const up = await cli(['upload', corpusPath('cyclonedx/log4j.json'), '--version', 'rel-1'], {
      SCANHUB_TOKEN: app.api_token,
    });
    expect(up.code, up.stderr).toBe(0);
    const connection = ['--api-key', admin.key, '--application', app.slug];
    for (const format of ['openvex', 'cyclonedx']) {
      const output = join(work, `vex.${format}.json`);
      const run = await cli([
        'vex',
        'export',
        ...connection,
        '--version',
        'rel-1',
        '--format',
        format,
        '--output',
        output,
      ]);
      expect(run.code, run.stderr).toBe(0);
      const document = JSON.parse(readFileSync(output, 'utf8')) as Record<string, unknown>;
      if (format === 'openvex') expect(document['@context']).toBe('https://openvex.dev/ns/v0.2.0');
      else expect(document.specVersion).toBe('1.6');
    }
    const supplier = join(work, 'supplier.openvex.json');
    writeFileSync(
      supplier,
      JSON.stringify({
        '@context': 'https://openvex.dev/ns/v0.2.0',
        '@id': 'https://supplier.example/vex/1',
        author: 'Supplier',
        timestamp: '2024-01-01T00:00:00Z',
        version: 1,
        statements: [
          {
            vulnerability: { name: 'CVE-2021-44228' },
            products: [{ '@id': 'pkg:maven/org.apache.logging.log4j/log4j-core@2.13.2' }],
            status: 'not_affected',
            justification: 'vulnerable_code_not_in_execute_path',
          },
          { vulnerability: { name: 'CVE-1999-0001' }, status: 'fixed' },
        ],
      }),
    );
    const imported = await cli(['vex', 'import', supplier, ...connection, '--json']);
    expect(imported.code, imported.stderr).toBe(0);
    const report = JSON.parse(imported.stdout) as {
      matched: { action: string }[];
      unmatched: { reason: string }[];
    };
    expect(report.matched.map((m) => m.action)).toEqual(['acceptance_created']);
    expect(report.unmatched.map((m) => m.reason)).toEqual(['no_finding_for_vulnerability']);
    const again = await cli(['vex', 'import', supplier, ...connection]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('nothing changed');
    const missing = await cli(['vex', 'import', ...connection]);
    expect(missing.code).toBe(2);
    const badFormat = await cli(['vex', 'export', ...connection, '--version', 'rel-1', '--format', 'csaf']);
    expect(badFormat.code).toBe(2);
  }, 90_000);
});
