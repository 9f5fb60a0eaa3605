import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// SIGTERM or Ctrl-C: the server closes step by step and says so; a step that never ends (here a
// request whose body never arrives) makes it give up at SHUTDOWN_TIMEOUT_SECONDS, naming the step,
// instead of hanging until SIGKILL.
const REPO_ROOT = join(import.meta.dirname, '..');
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function startServer(env: Record<string, string>) {
  const dataDir = mkdtempSync(join(tmpdir(), 'scanhub-shutdown-'));
  dirs.push(dataDir);
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve'], {
    cwd: REPO_ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  await expect.poll(() => output, { timeout: 60_000 }).toMatch(/listening on http:\/\/\S+/);
  const url = new URL(/listening on (http:\/\/\S+)/.exec(output)?.[1] ?? '');
  await expect.poll(async () => (await fetch(`${url.origin}/readyz`)).status, { timeout: 30_000 }).toBe(200);
  return { child, url, exited, output: () => output };
}

describe.skipIf(Boolean(process.env.TEST_DATABASE_URL))('shutting down on SIGTERM', () => {
  it('closes each part in turn, logs each step, and exits with 0', async () => {
    const server = await startServer({});
    const started = performance.now();
    server.child.kill('SIGTERM');
    const [code] = await server.exited;
    expect(code, server.output()).toBe(0);
    expect(performance.now() - started).toBeLessThan(20_000);
    const steps = [...server.output().matchAll(/"msg":"shutdown: (.+?) done"/g)].map((match) => match[1]);
    expect(steps).toEqual([
      'requests in flight',
      "the start's last step",
      'running jobs',
      'the staging thread',
      "this process's registration",
      'the database',
      'the data-dir lock',
    ]);
  }, 90_000);

  it('gives up past SHUTDOWN_TIMEOUT_SECONDS, names the step it waited for, and exits with 1', async () => {
    const server = await startServer({ SHUTDOWN_TIMEOUT_SECONDS: '2' });
    // A request whose body never comes: the HTTP server's close waits for it.
    const socket = connect(Number(server.url.port), server.url.hostname);
    await once(socket, 'connect');
    socket.write(
      'POST /api/auth/login HTTP/1.1\r\nHost: scanhub\r\nContent-Type: application/json\r\n' +
        'Content-Length: 1000\r\n\r\n{"email":',
    );
    socket.on('error', () => {}); // reset when the process exits
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = performance.now();
    server.child.kill('SIGTERM');
    const [code] = await server.exited;
    socket.destroy();
    expect(code, server.output()).toBe(1);
    expect(server.output()).toContain('shutdown: gave up after 2 s, still waiting for requests in flight');
    expect(performance.now() - started).toBeGreaterThan(1_900);
    expect(performance.now() - started).toBeLessThan(15_000);
  }, 90_000);
});
