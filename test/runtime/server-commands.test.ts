import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { verify } from '@node-rs/argon2';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.ts';
import { loggedJob } from '../../src/jobs/job-log.ts';

/**
 * Issue 53, the server commands as a newcomer meets them: `users create`/`set-password` without the
 * password on the command line, a mistyped HOST named as such, and a worker that says what it does.
 * Each runs as `node bin/scanhub.js …`, the `scanhub` command, on an embedded database of its own.
 */

const REPO_ROOT = resolve(import.meta.dirname, '..', '..');
const dirs: string[] = [];

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'scanhub-commands-'));
  dirs.push(dir);
  return dir;
}

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `scanhub args…` with `input` on stdin (or none: stdin is then not a terminal, and empty). */
function scanhub(args: string[], env: Record<string, string>, input?: string): Promise<Exit> {
  return new Promise((done, reject) => {
    const child = spawn(process.execPath, ['bin/scanhub.js', ...args], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdin.end(input ?? '');
    child.once('error', reject);
    child.once('exit', (code) => done({ code, stdout, stderr }));
  });
}

async function passwordMatches(dir: string, email: string, password: string): Promise<boolean> {
  const database = await openDatabase({ dataDir: join(dir, 'pg') });
  try {
    const row = await database.db
      .selectFrom('users')
      .select('password_hash')
      .where('email', '=', email)
      .executeTakeFirstOrThrow();
    return await verify(row.password_hash, password);
  } finally {
    await database.close();
  }
}

describe('scanhub users', () => {
  it('takes the password from stdin, warns about one on the command line, and refuses to guess', async () => {
    const dir = dataDir();
    const env = { DATA_DIR: dir };
    const email = 'dev@example.test';

    const created = await scanhub(
      ['users', 'create', '--email', email, '--password-stdin'],
      env,
      'a password from stdin\n',
    );
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/Created member dev@example\.test/);
    expect(created.stderr).not.toMatch(/warning/);
    expect(await passwordMatches(dir, email, 'a password from stdin')).toBe(true);

    const argv = await scanhub(
      ['users', 'set-password', '--email', email, '--password', 'a password on argv'],
      env,
    );
    expect(argv.code, argv.stderr).toBe(0);
    expect(argv.stderr).toMatch(/warning: --password puts the password in the shell history/);
    expect(argv.stdout).not.toContain('a password on argv');
    expect(await passwordMatches(dir, email, 'a password on argv')).toBe(true);

    // No flag and no terminal to prompt on: said, and nothing changed.
    const none = await scanhub(['users', 'set-password', '--email', email], env);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/No password given: .*--password-stdin/);
    const short = await scanhub(
      ['users', 'set-password', '--email', email, '--password-stdin'],
      env,
      'short\n',
    );
    expect(short.code).toBe(1);
    expect(short.stderr).toMatch(/at least 12 characters/);
    expect(await passwordMatches(dir, email, 'a password on argv')).toBe(true);
  }, 180_000);
});

describe('scanhub serve', () => {
  it('stops on a HOST it cannot listen on, naming HOST, without a stack trace', async () => {
    const start = await scanhub(['serve'], { DATA_DIR: dataDir(), HOST: '0.0.0.0x', PORT: '0' });
    expect(start.code).toBe(1);
    expect(start.stderr).toMatch(/HOST: cannot listen on "0\.0\.0\.0x"/);
    expect(start.stderr).not.toMatch(/^\s+at /m);
  }, 120_000);
});

describe('scanhub worker', () => {
  it('logs its start stages, and each shutdown step on SIGTERM', async () => {
    const child = spawn(process.execPath, ['bin/scanhub.js', 'worker'], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', DATA_DIR: dataDir() },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    // 'close': every line the worker wrote has been read. The signal is kept: a worker killed by
    // one (seen once under load, not explained) must say which.
    const exited = new Promise<string>((done) =>
      child.once('close', (code, signal) => done(`${code} ${signal}`)),
    );
    await expect.poll(() => output, { timeout: 90_000 }).toMatch(/scanhub worker running background jobs/);
    child.kill('SIGTERM');
    expect(await exited, output).toBe('0 null');
    for (const line of [
      /start: database (created|opened)/,
      /start: migrations/,
      /start: job workers started/,
      /shutting down \{"signal":"SIGTERM"\}/,
      /shutdown: running jobs done \{"ms":\d+\}/,
      /shutdown: the database done \{"ms":\d+\}/,
    ])
      expect(output).toMatch(line);
  }, 120_000);

  it("each job's start and end are info lines; a failure is said at its end and still thrown", async () => {
    const lines: [unknown, string | undefined][] = [];
    const log = {
      info: (fields: unknown, message?: string) => lines.push([fields, message]),
      warn: (fields: unknown, message?: string) => lines.push([fields, message]),
      error: () => {},
    } as unknown as Parameters<typeof loggedJob>[0];
    expect(await loggedJob(log, { queue: 'q', job: 'a' }, async () => 42)).toBe(42);
    await expect(
      loggedJob(log, { queue: 'q', job: 'b' }, async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(lines.map(([, message]) => message)).toEqual([
      'job started',
      'job done',
      'job started',
      'job failed',
    ]);
    expect(lines[1]?.[0]).toMatchObject({ queue: 'q', job: 'a', ms: expect.any(Number) });
    expect(lines[3]?.[0]).toMatchObject({ queue: 'q', job: 'b', err: expect.any(Error) });
  });
});
