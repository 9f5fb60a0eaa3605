import { join } from 'node:path';
import type { Headers } from './http.ts';
import {
  ADMIN,
  Api,
  jobsSettled,
  signIn,
  startFinished,
  untilIdle,
  startServer,
  type BenchServer,
  type ServerOptions,
} from './server.ts';
import { postgresExecutor, pgliteExecutor, type SqlExecutor } from './sql.ts';
import { createTarget, type BenchTarget, type Engine } from './targets.ts';

/** A running scanhub server on a database of its own, with an admin API key. */
export class Environment {
  private constructor(
    readonly target: BenchTarget,
    private current: BenchServer,
    private readonly adminHeaders: Headers,
    private readonly options: ServerOptions,
  ) {}

  get engine(): Engine {
    return this.target.engine;
  }

  get server(): BenchServer {
    return this.current;
  }

  /** A client with `headers` (an API key) against the current server. */
  api(headers: Headers = this.adminHeaders): Api {
    return new Api(this.current.url, headers);
  }

  static async open(engine: Engine, label: string, options: ServerOptions): Promise<Environment> {
    const target = await createTarget(
      engine,
      label,
      engine === 'pglite' ? await pgliteTemplate(options) : undefined,
    );
    return Environment.on(target, options);
  }

  /** A server started on `target` (a database that may already hold data: it migrates what is pending). */
  static async on(target: BenchTarget, options: ServerOptions): Promise<Environment> {
    const server = await startedServer(target, options);
    const admin = await signIn(server.url, ADMIN.email, ADMIN.password);
    return new Environment(target, server, admin.headers, options);
  }

  /**
   * Waits until nothing is left working after the server's last answer, so a limit measured next
   * has the machine's two cores to itself: PGlite's vacuum after a big upload (its job), PostgreSQL's
   * autovacuum in the server's database, and anything else the server does (its CPU under
   * 100 ms per second: `untilIdle`). Returns how long it waited and what for; gives up after `timeoutMs`.
   */
  async quiet(timeoutMs = 120_000): Promise<{ waitedMs: number; busy: string[] }> {
    const started = performance.now();
    await jobsSettled(this.current, 'vacuum-after-ingest', timeoutMs);
    // Settled at the first look: a few ms; pending: at least one more look, 250 ms later.
    const vacuumJob = performance.now() - started > 200 ? ['vacuum-after-ingest job'] : [];
    const database = this.target.databaseUrl ? postgresExecutor(this.target.databaseUrl, 1) : undefined;
    try {
      const autovacuum = async () => {
        if (!database) return [];
        const [running] = await database.query<{ workers: number }>(
          `select count(*)::int as workers from pg_stat_activity
           where backend_type = 'autovacuum worker' and datname = current_database()`,
        );
        return (running?.workers ?? 0) > 0 ? ['autovacuum'] : [];
      };
      const idle = await untilIdle(this.current.pid, autovacuum, timeoutMs - (performance.now() - started));
      return { waitedMs: performance.now() - started - idle.windowMs, busy: [...vacuumJob, ...idle.busy] };
    } finally {
      await database?.close();
    }
  }

  /** Stops the server and starts a fresh process on the same database (a new port). */
  async restart(): Promise<void> {
    await this.current.stop();
    this.current = await startedServer(this.target, this.options);
  }

  /**
   * Runs `work` with direct SQL access to the server's database. PostgreSQL: alongside the running
   * server. PGlite (one process per data dir): the server is stopped meanwhile and restarted after.
   */
  async withSql<T>(work: (sql: SqlExecutor) => Promise<T>): Promise<T> {
    if (this.target.databaseUrl) {
      const executor = postgresExecutor(this.target.databaseUrl);
      try {
        return await work(executor);
      } finally {
        await executor.close();
      }
    }
    await this.current.stop();
    const executor = await pgliteExecutor(join(this.target.dataDir, 'pg'));
    try {
      return await work(executor);
    } finally {
      await executor.close();
      this.current = await startedServer(this.target, this.options);
    }
  }

  async dispose(): Promise<void> {
    await this.current.stop();
    await this.target.dispose();
  }
}

/** A server that has finished starting: what the scenarios measure is its work, not its start. */
async function startedServer(target: BenchTarget, options: ServerOptions): Promise<BenchServer> {
  const server = await startServer(target, options);
  await startFinished(server);
  return server;
}

let template: Promise<string> | undefined;

/**
 * A PGlite data dir initialised and migrated once by a real server (with the bench admin), copied for
 * every PGlite environment: each then starts like a server restarting on existing data.
 */
function pgliteTemplate(options: ServerOptions): Promise<string> {
  template ??= (async () => {
    const target = await createTarget('pglite', 'pglite-template');
    const server = await startServer(target, options);
    await server.stop();
    return target.dataDir;
  })();
  return template;
}
