import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { distIsFresh } from '../bin/dist-freshness.js';
import { onCleanup } from './cleanup.ts';
import { request, requestJson, uploadMultipart, type Headers } from './http.ts';
import { CONFIG_VARIABLES, SECRET_CONFIG_VARIABLES } from '../src/config.ts';
import type { JobName } from '../src/jobs/job-map.ts';
import type { BenchTarget } from './targets.ts';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const ADMIN = { email: 'bench-admin@scanhub.local', password: 'bench-admin-password-1' };
const SECRET_KEY = 'scanhub-bench-secret-key-0123456789abcdef';
const START_TIMEOUT_MS = 180_000;
const STOP_TIMEOUT_MS = 60_000;

export interface ServerOptions {
  logLevel: string;
  /** UPLOAD_LIMIT_BYTES of the server; 8 GiB (out of the way) unless a scenario measures the limit. */
  uploadLimitBytes?: number;
  /** OUTBOUND_ALLOW_PRIVATE: webhooks to a receiver the bench runs on 127.0.0.1. */
  allowPrivateOutbound?: boolean;
  /** false: JOBS_IN_SERVER=false, so no job runs (nothing analyzes the tables after an upload). */
  jobsInServer?: boolean;
}

export interface BenchServer {
  pid: number;
  url: string;
  target: BenchTarget;
  /** Peak (VmHWM) and current (VmRSS) resident set of the server process, in MiB. */
  memory(): { peakMb: number; rssMb: number };
  /** The last lines the server printed (for error messages). */
  output(): string;
  /** Distinct messages of the errors the server logged (pino level ≥ 50), with how often each came. */
  errors(): Map<string, number>;
  stop(): Promise<void>;
}

/** CPU time (user + system, every thread) `pid` has used, in ms: /proc counts it in 1/100 s (USER_HZ). */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * CPU time (ms) every process named `postgres` on this machine has used: a local PostgreSQL
 * server's backends, autovacuum and background writers. Undefined when there is none (PGlite runs
 * inside the server process; a remote server's CPU is not visible here). Processes that end between
 * two readings take their time with them, so a difference is at least what the server spent.
 */
export function localPostgresCpuMs(): number | undefined {
  let total = 0;
  let seen = false;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== 'postgres') continue;
      total += cpuMs(Number(entry));
      seen = true;
    } catch {
      // The process ended while it was read.
    }
  }
  return seen ? total : undefined;
}

/** The window `untilIdle` samples a process's CPU over; /proc counts CPU in 10 ms ticks. */
const IDLE_WINDOW_MS = 500;
/** CPU, in ms per second, under which a server counts as idle (its idle polls use ~15–40). */
const IDLE_CPU_MS_PER_S = 100;

/**
 * Waits until process `pid` uses under `IDLE_CPU_MS_PER_S` over an `IDLE_WINDOW_MS` window and
 * `othersBusy` (asked at each window) names nothing; gives up after `timeoutMs`. Returns what it
 * waited for (`server CPU` and whatever `othersBusy` named) and the last window's length, which a
 * caller takes off its wait: that window found the process idle.
 */
export async function untilIdle(
  pid: number,
  othersBusy: () => Promise<string[]>,
  timeoutMs: number,
): Promise<{ busy: string[]; windowMs: number }> {
  const started = performance.now();
  const busy = new Set<string>();
  while (performance.now() - started < timeoutMs) {
    const now = await othersBusy();
    const before = cpuMs(pid);
    await new Promise((resolve) => setTimeout(resolve, IDLE_WINDOW_MS));
    if (((cpuMs(pid) - before) * 1000) / IDLE_WINDOW_MS > IDLE_CPU_MS_PER_S) now.push('server CPU');
    if (now.length === 0) break;
    for (const reason of now) busy.add(reason);
  }
  return { busy: [...busy], windowMs: IDLE_WINDOW_MS };
}

/**
 * The server settings a bench run takes from its caller's environment (`PGLITE_SHARED_BUFFERS=128MB
 * npm run bench`): every variable the server reads that is set there and that `serverEnv` neither
 * sets nor drops, secrets as `(set)`. Recorded with the run, as two runs that differ only by one of
 * them otherwise leave result files that cannot be told apart.
 */
export function inheritedServerSettings(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const anyTarget: BenchTarget = {
    engine: 'pglite',
    dataDir: '',
    databaseUrl: undefined,
    dispose: async () => {},
  };
  const bench = serverEnv(anyTarget, { logLevel: 'warn' }, env);
  const settings: Record<string, string> = {};
  for (const name of CONFIG_VARIABLES) {
    const value = env[name];
    if (value === undefined || bench[name] !== value) continue;
    settings[name] = SECRET_CONFIG_VARIABLES.has(name) ? '(set)' : value;
  }
  return settings;
}

/** The environment of a server on `target`: only what the bench means to set, over the caller's. */
export function serverEnv(
  target: BenchTarget,
  options: ServerOptions,
  inherited: NodeJS.ProcessEnv = process.env,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...inherited };
  for (const key of Object.keys(env)) {
    if (key === 'DATABASE_URL' || key.startsWith('SCANHUB_')) delete env[key];
  }
  return {
    ...env,
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: target.dataDir,
    ...(target.databaseUrl ? { DATABASE_URL: target.databaseUrl } : {}),
    SCANHUB_ADMIN_EMAIL: ADMIN.email,
    SCANHUB_ADMIN_PASSWORD: ADMIN.password,
    SCANHUB_SECRET_KEY: SECRET_KEY,
    LOG_LEVEL: options.logLevel,
    // The bench sends thousands of requests a minute with one credential: lift the limits out of the way.
    RATE_LIMIT_PER_MINUTE: '100000000',
    LOGIN_RATE_LIMIT_PER_MINUTE: '10000',
    LOGIN_ADDRESS_LIMIT_PER_MINUTE: '10000',
    LOGIN_ACCOUNT_LIMIT_PER_HOUR: '10000',
    UPLOAD_LIMIT_BYTES: String(options.uploadLimitBytes ?? 8 * 1024 ** 3),
    OUTBOUND_ALLOW_PRIVATE: String(options.allowPrivateOutbound ?? false),
    JOBS_IN_SERVER: String(options.jobsInServer ?? true),
  };
}

function readStatusKb(pid: number, field: string): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    return match ? Number(match[1]) : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** The error message of a pino JSON log line at level error or fatal, if it is one. */
function loggedError(line: string): string | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const entry = JSON.parse(line) as { level?: number; msg?: string; err?: { message?: string } };
    if ((entry.level ?? 0) < 50) return undefined;
    return (entry.err?.message ?? entry.msg ?? 'unknown error').slice(0, 300);
  } catch {
    return undefined;
  }
}

function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/**
 * Builds the compiled runtime when src/ is newer than it: the bench measures what `npm start` runs.
 * Called once per bench run, before any server starts.
 */
export function ensureFreshBuild(): void {
  if (distIsFresh(REPO_ROOT)) return;
  console.log('dist/ is older than src/: npm run build');
  const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: REPO_ROOT, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('npm run build failed');
}

/**
 * BENCH_SERVER_NODE_ARGS: flags for the servers' node only, e.g. `--cpu-prof --cpu-prof-dir=/tmp/p`
 * (NODE_OPTIONS refuses --cpu-prof, and would profile the bench process too).
 */
export const serverNodeArgs = (): string[] =>
  process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? [];

/**
 * Starts `node dist/main.js serve` on `target` as a child process (what `npm start` runs, without
 * its freshness check, so the pid is the server's own and /proc/<pid>/status measures it) and waits
 * until it listens. `ensureFreshBuild` must have run.
 */
export async function startServer(target: BenchTarget, options: ServerOptions): Promise<BenchServer> {
  const child = spawn(process.execPath, [...serverNodeArgs(), 'dist/main.js', 'serve'], {
    cwd: REPO_ROOT,
    env: serverEnv(target, options),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error('could not start the scanhub server');
  const lines: string[] = [];
  const errors = new Map<string, number>();
  /** A line splitter per stream (stdout and stderr chunks must not be glued together). */
  const lineReader = () => {
    let partial = '';
    return (chunk: Buffer) => {
      const complete = (partial + chunk.toString('utf8')).split('\n');
      partial = complete.pop() ?? '';
      for (const line of complete.filter(Boolean)) {
        lines.push(line);
        const message = loggedError(line);
        if (message !== undefined && (errors.size < 50 || errors.has(message))) {
          errors.set(message, (errors.get(message) ?? 0) + 1);
        }
      }
      if (lines.length > 100) lines.splice(0, lines.length - 100);
    };
  };
  child.stderr?.on('data', lineReader());
  const rememberStdout = lineReader();

  const stop = async () => {
    child.kill('SIGTERM');
    if (!(await waitForExit(child, STOP_TIMEOUT_MS))) {
      child.kill('SIGKILL');
      await waitForExit(child, 5_000);
    }
  };
  const forget = onCleanup(`stop server ${pid}`, stop);

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('server did not start in time')), START_TIMEOUT_MS);
    let listening = false;
    child.stdout?.on('data', (chunk: Buffer) => {
      rememberStdout(chunk);
      if (listening) return;
      const match = /scanhub listening on (http:\/\/\S+)/.exec(lines.join('\n'));
      if (match?.[1]) {
        listening = true;
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      const cause = lines.findLast((line) => /Error|error:/.test(line)) ?? lines.at(-1) ?? '';
      reject(new Error(`server exited (${code}) before listening: ${cause.trim()}\n${lines.join('\n')}`));
    });
  }).catch(async (error: unknown) => {
    await forget();
    throw error;
  });

  return {
    pid,
    url,
    target,
    memory: () => ({
      peakMb: readStatusKb(pid, 'VmHWM') / 1024,
      rssMb: readStatusKb(pid, 'VmRSS') / 1024,
    }),
    output: () => lines.join('\n'),
    errors: () => errors,
    stop: forget,
  };
}

/** An API client authenticated by an API key (no CSRF needed). */
export class Api {
  constructor(
    readonly baseUrl: string,
    readonly headers: Headers,
  ) {}

  get<T>(path: string): Promise<T> {
    return requestJson<T>(this.baseUrl + path, { headers: this.headers });
  }

  post<T>(path: string, body: unknown): Promise<T> {
    return requestJson<T>(this.baseUrl + path, { method: 'POST', headers: this.headers, body });
  }

  delete<T>(path: string): Promise<T> {
    return requestJson<T>(this.baseUrl + path, { method: 'DELETE', headers: this.headers });
  }

  /** Status of a GET, for probing whether a route exists (404) without throwing. */
  async status(path: string): Promise<number> {
    return (await request(this.baseUrl + path, { headers: this.headers })).status;
  }
}

/** Signs in with a password, creates an API key and returns a client that uses it. */
export async function signIn(baseUrl: string, email: string, password: string): Promise<Api> {
  const login = await request(`${baseUrl}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  if (login.status !== 200) throw new Error(`login ${email} → ${login.status}: ${login.text}`);
  const { csrfToken } = JSON.parse(login.text) as { csrfToken: string };
  const setCookie = login.headers['set-cookie'] ?? [];
  const cookie = setCookie.map((value) => value.split(';')[0]).join('; ');
  const created = await requestJson<{ key: string }>(`${baseUrl}/api/api-keys`, {
    method: 'POST',
    headers: { cookie, 'x-csrf-token': csrfToken },
    body: { name: 'bench' },
  });
  return new Api(baseUrl, { 'x-api-key': created.key });
}

export interface BenchApplication {
  id: number;
  slug: string;
  token: string;
  defaultVersionId: number;
}

export async function createGroup(api: Api, path: string): Promise<number> {
  return (await api.post<{ id: number }>('/api/groups', { name: path, path })).id;
}

export async function createApplication(
  api: Api,
  groupId: number,
  slug: string,
  criticality: 'low' | 'medium' | 'high' | 'critical' = 'high',
): Promise<BenchApplication> {
  const created = await api.post<{ id: number; api_token: string; default_version: { id: number } }>(
    '/api/applications',
    { name: slug, slug, group_id: groupId, asset_criticality: criticality },
  );
  return { id: created.id, slug, token: created.api_token, defaultVersionId: created.default_version.id };
}

export interface IngestBody {
  scan: { id: number; status: string };
  findings_count: number;
  new_findings_count: number;
  existing_findings_count: number;
  fixed_findings_count: number;
}

export interface UploadResult {
  ms: number;
  status: number;
  body: IngestBody | undefined;
  error: string | undefined;
}

/** `POST /api/ingest` of `file` with the application token, timed from first byte sent to answer. */
export async function upload(
  server: BenchServer,
  token: string,
  file: string,
  version: string,
): Promise<UploadResult> {
  const started = performance.now();
  const response = await uploadMultipart(
    `${server.url}/api/ingest`,
    { 'x-api-token': token },
    { version },
    file,
  );
  const ms = performance.now() - started;
  if (response.status !== 201) {
    return { ms, status: response.status, body: undefined, error: response.text.slice(0, 500) };
  }
  return { ms, status: response.status, body: JSON.parse(response.text) as IngestBody, error: undefined };
}

/**
 * Resolves once the server has finished starting: `/readyz` answers 200 once its job workers and
 * schedules run (main.ts `finishStartWhileServing`). The server answers requests before that, and on
 * PGlite those last start-up statements share the one session with them: the first requests of a
 * scenario measured a server still starting (scenario 12 measures starts).
 */
export async function startFinished(server: BenchServer, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await request(`${server.url}/readyz`)).status !== 200) {
    if (Date.now() > deadline) throw new Error(`/readyz not 200 after ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * Resolves once no job of `queue` waits or runs, as the server's `/metrics` reports them (`scanhub_jobs`
 * by queue and state): the bench cannot open a PGlite data dir while the server holds it.
 */
export async function jobsSettled(server: BenchServer, queue: JobName, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const pending = new RegExp(
    `^scanhub_jobs\\{name="${queue}",state="(?:created|retry|active)"\\} (\\S+)$`,
    'gm',
  );
  for (;;) {
    const response = await request(`${server.url}/metrics`);
    if (response.status !== 200) throw new Error(`GET /metrics → ${response.status}`);
    const waiting = [...response.text.matchAll(pending)].some((match) => Number(match[1]) > 0);
    if (!waiting) return;
    if (Date.now() > deadline) throw new Error(`${queue} jobs still pending after ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export interface BenchWorker {
  pid: number;
  stop(): Promise<void>;
}

/**
 * Starts `node dist/main.js worker` on `target` (a PostgreSQL database a server has migrated) and
 * waits until it says it runs background jobs.
 */
export async function startWorker(target: BenchTarget, options: ServerOptions): Promise<BenchWorker> {
  const child = spawn(process.execPath, [...serverNodeArgs(), 'dist/main.js', 'worker'], {
    cwd: REPO_ROOT,
    env: serverEnv(target, options),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error('could not start a scanhub worker');
  const stop = onCleanup(`stop worker ${pid}`, async () => {
    child.kill('SIGTERM');
    if (!(await waitForExit(child, STOP_TIMEOUT_MS))) {
      child.kill('SIGKILL');
      await waitForExit(child, 5_000);
    }
  });
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-4000);
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('worker did not start in time')), START_TIMEOUT_MS);
    child.stdout?.on('data', (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-4000);
      if (output.includes('scanhub worker running background jobs')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited (${code}) before it ran: ${output.slice(-1000)}`));
    });
  }).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  return { pid, stop };
}
