import { AsyncLocalStorage } from 'node:async_hooks';
import type { PGlite } from '@electric-sql/pglite';
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';

const backgroundWork = new AsyncLocalStorage<true>();

/**
 * Runs `work` as background work (jobs, the outbox watcher, pg-boss's own upkeep): on PGlite's one
 * session it yields to requests waiting for the session. On PostgreSQL it changes nothing.
 */
export function asBackgroundWork<T>(work: () => T): T {
  return backgroundWork.run(true, work);
}

/**
 * After this many grants in a row to requests while background work waits, background work gets
 * one turn, so a steady stream of requests cannot starve jobs.
 */
const FOREGROUND_STREAK_LIMIT = 16;

/**
 * How long a released session stays free for requests before waiting background work takes it. A
 * request runs several statements (its key, a page, a count), each taking the session anew: handed
 * straight to background work, each would wait for a background transaction (a chunk of an upload's
 * merge) first. A request asks again within a millisecond or two of its last answer.
 */
const BACKGROUND_GRACE_MS = 3;

/**
 * Serializes access to the one PGlite session. PGlite is a single session: a transaction must own
 * it from BEGIN to COMMIT, or another caller's statements would run inside (and be rolled back with)
 * someone else's transaction. Every user of the instance goes through this lock.
 *
 * Waiters are served requests first: background work (see `asBackgroundWork`) takes the session
 * only when no request waits, or after a streak of requests. Otherwise a burst of background
 * transactions queued at a commit (an upload's webhook dispatch) would sit between a request and the
 * statements it still has to run before it can answer.
 */
export class SessionLock {
  private held = false;
  private readonly foreground: (() => void)[] = [];
  private readonly background: (() => void)[] = [];
  private foregroundStreak = 0;
  private graceTimer: NodeJS.Timeout | undefined;

  acquire(): Promise<() => void> {
    const isBackground = backgroundWork.getStore() === true;
    return new Promise((resolve) => {
      const grant = () => {
        this.held = true;
        let released = false;
        const hand = () =>
          resolve(() => {
            if (released) return;
            released = true;
            this.handOver();
          });
        // PGlite runs on this thread and its statements resolve as microtasks: background work that
        // took the session again at once could chain transactions for seconds without letting I/O
        // callbacks run (a request's socket write, a file removal). Background work therefore takes
        // its turn from the macrotask queue; requests take theirs at once.
        if (isBackground) setImmediate(hand);
        else hand();
      };
      // A free session goes to a request at once; background work queues behind background work
      // already waiting for it (the session is free during the grace before their turn).
      if (!this.held && !(isBackground && this.background.length > 0)) grant();
      else (isBackground ? this.background : this.foreground).push(grant);
    });
  }

  private handOver(graceElapsed = false): void {
    this.held = false;
    const streakDue = this.background.length > 0 && this.foregroundStreak >= FOREGROUND_STREAK_LIMIT;
    if (this.foreground.length > 0 && !streakDue) {
      // The streak counts only grants made while background work was kept waiting.
      this.foregroundStreak = this.background.length === 0 ? 0 : this.foregroundStreak + 1;
      this.foreground.shift()?.();
      return;
    }
    this.foregroundStreak = 0;
    if (this.background.length === 0) return;
    if (streakDue || graceElapsed) {
      this.background.shift()?.();
      return;
    }
    // No request waits yet: the session stays free for a moment, for the next statement of a
    // request that is between two of them (acquire grants a free session at once).
    this.graceTimer ??= setTimeout(() => {
      this.graceTimer = undefined;
      if (!this.held) this.handOver(true);
    }, BACKGROUND_GRACE_MS);
  }

  /** For the metrics: whether the session is held, and who waits for it. */
  stats(): { held: boolean; waitingRequests: number; waitingBackground: number } {
    return {
      held: this.held,
      waitingRequests: this.foreground.length,
      waitingBackground: this.background.length,
    };
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    const release = await this.acquire();
    try {
      return await work();
    } finally {
      release();
    }
  }
}

class PGliteConnection implements DatabaseConnection {
  constructor(private readonly pglite: PGlite) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const result = await this.pglite.query<R>(query.sql, query.parameters as unknown[]);
    return {
      rows: result.rows,
      ...(result.affectedRows === undefined ? {} : { numAffectedRows: BigInt(result.affectedRows) }),
    };
  }

  // eslint-disable-next-line require-yield -- streaming is not supported by this driver
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('PGlite dialect does not support streaming queries');
  }
}

class PGliteDriver implements Driver {
  private readonly connection: PGliteConnection;
  private readonly releases = new Map<DatabaseConnection, () => void>();

  constructor(
    pglite: PGlite,
    private readonly lock: SessionLock,
  ) {
    this.connection = new PGliteConnection(pglite);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const release = await this.lock.acquire();
    // One physical connection, so the lock (not the map key) is what serializes callers.
    this.releases.set(this.connection, release);
    return this.connection;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const isolation = settings.isolationLevel ? ` isolation level ${settings.isolationLevel}` : '';
    await connection.executeQuery(CompiledQuery.raw(`begin${isolation}`));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const release = this.releases.get(connection);
    this.releases.delete(connection);
    release?.();
  }

  async destroy(): Promise<void> {}
}

/** Kysely dialect over one PGlite instance, sharing `lock` with any other user of that instance. */
export class PGliteDialect implements Dialect {
  constructor(
    private readonly pglite: PGlite,
    private readonly lock: SessionLock,
  ) {}

  createAdapter() {
    return new PostgresAdapter();
  }

  createDriver(): Driver {
    return new PGliteDriver(this.pglite, this.lock);
  }

  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's introspector accepts any schema
  createIntrospector(db: Kysely<any>) {
    return new PostgresIntrospector(db);
  }
}
