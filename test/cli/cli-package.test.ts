import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeApplication, makeUser } from '../support/factories.ts';
import { corpusPath } from '../support/parse-corpus.ts';
import { createTestApp, listenOnLoopback, type TestApp } from '../support/test-app.ts';

/**
 * Issue 53: the client a CI job installs is its own package (packages/cli, `scanhub-cli`): built,
 * packed and installed here as a CI job would (offline: it has no dependencies to fetch), then its
 * `scanhub upload` run against a server on 127.0.0.1.
 */

const run = promisify(execFile);
const REPO_ROOT = resolve(import.meta.dirname, '..', '..');
const MB = 1024 * 1024;
let work: string;
let t: TestApp;
let url: string;

function treeBytes(path: string): number {
  const info = statSync(path);
  if (!info.isDirectory()) return info.size;
  return readdirSync(path).reduce((sum, entry) => sum + treeBytes(join(path, entry)), 0);
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'scanhub-cli-package-'));
  t = await createTestApp();
  url = await listenOnLoopback(t);
});

afterAll(async () => {
  await t?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('the scanhub-cli package', () => {
  it('packs under 1 MB with only its compiled file, installs offline under 10 MB, and uploads', async () => {
    await run(process.execPath, ['--import', 'tsx', 'scripts/build-cli-package.ts'], { cwd: REPO_ROOT });
    const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'packages/cli/package.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(manifest.scripts ?? {}).toEqual({}); // nothing runs at install

    const packed = await run('npm', ['pack', './packages/cli', '--pack-destination', work, '--json'], {
      cwd: REPO_ROOT,
    });
    const [tarball] = JSON.parse(packed.stdout) as {
      filename: string;
      size: number;
      files: { path: string }[];
    }[];
    expect(tarball?.size).toBeLessThan(1 * MB);
    expect(tarball?.files.map((file) => file.path).sort()).toEqual([
      'README.md',
      'dist/scanhub.js',
      'package.json',
    ]);

    const job = join(work, 'ci-job');
    await run('mkdir', ['-p', job]);
    writeFileSync(join(job, 'package.json'), '{"name":"ci-job","private":true}');
    await run(
      'npm',
      ['install', '--no-save', '--offline', '--no-audit', '--no-fund', join(work, tarball?.filename ?? '')],
      { cwd: job },
    );
    expect(treeBytes(join(job, 'node_modules'))).toBeLessThan(10 * MB);

    const admin = await makeUser(t, { role: 'admin' });
    const app = await makeApplication(t, admin);
    const upload = await run(
      join(job, 'node_modules/.bin/scanhub'),
      ['upload', corpusPath('sarif/codeQL-output.sarif'), '--version', 'ci', '--json'],
      { cwd: job, env: { PATH: process.env.PATH ?? '', SCANHUB_URL: url, SCANHUB_TOKEN: app.api_token } },
    );
    const result = JSON.parse(upload.stdout) as {
      uploads: { scan: { findings_count: number; file_name: string } }[];
    };
    expect(result.uploads[0]?.scan).toMatchObject({ findings_count: 72, file_name: 'codeQL-output.sarif' });
  }, 300_000);
});
