import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { usableTemplate } from '../../src/db/pglite-template.ts';

// Scenario 12 divides each start by the floor's: a floor that skipped the template copy, opened
// PGlite with another cache than the server's, or left the data dir to recover at the next start
// would make that ratio about another database.
const REPO_ROOT = join(import.meta.dirname, '../..');
const template = usableTemplate();
const dataDir = mkdtempSync(join(tmpdir(), 'scanhub-floor-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Starts the floor, asks /healthz, stops it with SIGTERM; what it printed and its exit code. */
async function startFloor(
  env: NodeJS.ProcessEnv,
): Promise<{ line: string; body: string; code: number | null }> {
  const child = spawn(process.execPath, ['bench/start-floor.js'], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    await expect.poll(() => output, { timeout: 30_000 }).toMatch(/listening on http:\/\/\S+/);
    const url = /listening on (http:\/\/\S+)/.exec(output)?.[1] ?? '';
    const body = await (await fetch(`${url}/healthz`)).text();
    child.kill('SIGTERM');
    return { line: output.trim(), body, code: await exited };
  } finally {
    child.kill('SIGKILL');
  }
}

describe("the bench's start floor (bench/start-floor.js)", () => {
  it.skipIf(template === undefined)(
    'copies the template into an empty data dir, opens PGlite as the server does, answers and closes cleanly',
    async () => {
      const env = { DATA_DIR: dataDir, TEMPLATE_DIR: template, PGLITE_SHARED_BUFFERS: '48MB' };
      const first = await startFloor(env);
      expect(first.body).toBe('ok');
      expect(first.line).toContain('(shared_buffers 48MB)');
      expect(first.code).toBe(0);
      expect(existsSync(join(dataDir, 'PG_VERSION'))).toBe(true);
      // The later start opens the same data dir, without copying again (this template does not exist).
      const later = await startFloor({ ...env, TEMPLATE_DIR: join(dataDir, 'no-such-template') });
      expect(later.body).toBe('ok');
      expect(later.code).toBe(0);
    },
    60_000,
  );

  it.skipIf(!process.env.TEST_DATABASE_URL)(
    'connects to PostgreSQL when given DATABASE_URL',
    async () => {
      const started = await startFloor({ DATABASE_URL: process.env.TEST_DATABASE_URL });
      expect(started.body).toBe('ok');
      expect(started.line).toMatch(/\(shared_buffers \d+[kMG]B\)/);
      expect(started.code).toBe(0);
    },
    60_000,
  );
});
