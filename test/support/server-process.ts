import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';

const REPO_ROOT = resolve(import.meta.dirname, '../..');

/** A real `scanhub serve` child process, for tests that need processes (crash, scale-out). */
export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** Everything the process printed so far (for failure messages). */
  output(): string;
  /** SIGKILL: no shutdown, no cleanup — as a crash or an OOM kill would leave things. */
  kill(): Promise<void>;
  /** SIGTERM and wait for the graceful shutdown. */
  stop(): Promise<void>;
}

/**
 * Starts `scanhub serve` with `env` over this process's environment; resolves once it listens.
 * From the sources through tsx, or with `build` what `npm start` runs: the bundle in `dist/`.
 */
export async function startServerProcess(
  env: Record<string, string>,
  { build = false }: { build?: boolean } = {},
): Promise<ServerProcess> {
  const entry = build ? ['dist/main.js'] : ['--import', 'tsx', 'src/main.ts'];
  const child = spawn(process.execPath, [...entry, 'serve'], {
    cwd: REPO_ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let printed = '';
  const url = await new Promise<string>((resolveUrl, reject) => {
    const onData = (chunk: Buffer) => {
      printed += chunk.toString();
      const match = /listening on (http:\/\/[^\s]+)/.exec(printed);
      if (match?.[1]) resolveUrl(match[1]);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    child.once('exit', (code) =>
      reject(new Error(`server exited with ${code} before listening:\n${printed}`)),
    );
  });
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  return {
    url,
    child,
    output: () => printed,
    kill: async () => {
      if (exited()) return;
      child.kill('SIGKILL');
      await once(child, 'exit');
    },
    stop: async () => {
      if (exited()) return;
      child.kill('SIGTERM');
      // Below vitest's 60 s hook timeout, so that a shutdown that hangs fails with what the server
      // said (its shutdown steps at LOG_LEVEL=info) instead of a bare "Hook timed out".
      const stopped = await Promise.race([
        once(child, 'exit').then(() => true),
        new Promise<false>((resolve) => setTimeout(() => resolve(false), 50_000).unref()),
      ]);
      if (!stopped) {
        child.kill('SIGKILL');
        throw new Error(`server still running 50 s after SIGTERM:\n${printed.slice(-4000)}`);
      }
    },
  };
}
