import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL('..', import.meta.url));

describe('the scanhub command (package.json "bin")', () => {
  it('node bin/scanhub.js --help prints the usage and exits 0', async () => {
    const { stdout } = await run(process.execPath, ['bin/scanhub.js', '--help'], { cwd: repoRoot });
    expect(stdout).toMatch(/^Usage: scanhub <command>/);
    expect(stdout).toContain('migrate');
  }, 60_000);

  it('npx scanhub --help resolves the bin from the checkout', async () => {
    const { stdout } = await run('npx', ['--offline', '--no-install', 'scanhub', '--help'], {
      cwd: repoRoot,
    });
    expect(stdout).toMatch(/^Usage: scanhub <command>/);
  }, 120_000);

  it('an unknown command exits non-zero with the usage', async () => {
    const failure = await run(process.execPath, ['bin/scanhub.js', 'frobnicate'], { cwd: repoRoot }).catch(
      (error: unknown) => error as { code: number; stderr: string },
    );
    expect(failure).toMatchObject({ code: 1 });
    expect((failure as { stderr: string }).stderr).toContain('Usage: scanhub');
  }, 60_000);
});
