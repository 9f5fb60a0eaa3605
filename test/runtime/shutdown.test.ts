import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServerProcess } from '../support/server-process.ts';

// SIGTERM or Ctrl-C: the server closes step by step and says so. A request that never ends is cut
// after a third of SHUTDOWN_TIMEOUT_SECONDS; a step that still never ends makes the process give up
// at the deadline, naming the step, instead of hanging until SIGKILL.
const REPO_ROOT = join(import.meta.dirname, '..', '..');
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A server from the sources (test/support), ready, with the promise of its exit code and signal. */
async function startServer(env: Record<string, string>) {
  const dataDir = mkdtempSync(join(tmpdir(), 'scanhub-shutdown-'));
  dirs.push(dataDir);
  const server = await startServerProcess({ LOG_LEVEL: 'info', DATA_DIR: dataDir, ...env });
  // 'close', not 'exit': the exit can be seen before the last lines the process wrote are read.
  const exited = once(server.child, 'close') as Promise<[number | null, NodeJS.Signals | null]>;
  await expect.poll(async () => (await fetch(`${server.url}/readyz`)).status, { timeout: 30_000 }).toBe(200);
  return { ...server, url: new URL(server.url), exited };
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

  it('cuts a request that never ends after a third of SHUTDOWN_TIMEOUT_SECONDS, then closes the rest', async () => {
    const server = await startServer({ SHUTDOWN_TIMEOUT_SECONDS: '3' });
    // A request whose body never comes: the HTTP server's close would wait for it.
    const socket = connect(Number(server.url.port), server.url.hostname);
    await once(socket, 'connect');
    socket.write(
      'POST /api/auth/login HTTP/1.1\r\nHost: scanhub\r\nContent-Type: application/json\r\n' +
        'Content-Length: 1000\r\n\r\n{"email":',
    );
    const cut = once(socket, 'close');
    socket.on('error', () => {});
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = performance.now();
    server.child.kill('SIGTERM');
    const [code] = await server.exited;
    await cut;
    expect(code, server.output()).toBe(0);
    expect(server.output()).toContain('requests still in flight after 1 s, closing their connections');
    expect(server.output()).toContain('shutdown: the database done');
    expect(performance.now() - started).toBeGreaterThan(900);
  }, 90_000);

  it('past the deadline, names the step it is still waiting for and exits with 1', async () => {
    // A step that never ends, in a process of its own (the deadline exits the process).
    const script = `
      import { shutdownSteps } from './src/shutdown.ts';
      const steps = shutdownSteps(1, { info: (m) => console.log(m), error: (m) => console.error(m) });
      steps.next('a step that never ends');
      setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code, stderr).toBe(1);
    expect(stderr).toContain('shutdown: gave up after 1 s, still waiting for a step that never ends');
  }, 30_000);
});
