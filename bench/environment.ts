import { join } from 'node:path';
import type { Headers } from './http.ts';
import {
  ADMIN,
  Api,
  signIn,
  startFinished,
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
    const server = await startedServer(target, options);
    const admin = await signIn(server.url, ADMIN.email, ADMIN.password);
    return new Environment(target, server, admin.headers, options);
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
