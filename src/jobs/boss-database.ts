import { CompiledQuery, type Kysely, type Transaction } from 'kysely';
import type PgBoss from 'pg-boss';
import type { Database } from '../db/database.ts';
import { asBackgroundWork } from '../db/pglite-dialect.ts';
import type { DB } from '../db/schema.ts';

/** pg-boss's database adapter, closed after pg-boss stops. */
export interface BossDatabase extends PgBoss.Db {
  /**
   * Waits for every statement started so far; later ones are never run and never answered. pg-boss records a job's completion or failure without awaiting it, after its worker has
   * already counted the job done, and a poll or timer can still start a statement after its stop:
   * run on the closed database, each failed as an unhandled rejection (CI, twice). A completion
   * lost that way leaves the job to expire and run again, as after a crash.
   */
  close(): Promise<void>;
}

/**
 * pg-boss's database adapter over scanhub's own connection. On PGlite every statement goes through
 * the session lock the Kysely dialect uses (one session: pg-boss must never run inside someone
 * else's transaction); parameter-less SQL may hold several statements (pg-boss's schema
 * migrations), which PGlite runs with `exec`. On PostgreSQL it shares Kysely's pool. `rewrite` sees
 * every statement first (liveness.ts: a fetch also records which process holds the jobs).
 */
export function bossDatabase(database: Database, rewrite: (text: string) => string = same): BossDatabase {
  const pglite = database.pglite;
  const run: PgBoss.Db['executeSql'] = pglite
    ? (text, values = []) =>
        // pg-boss's own polling and upkeep yield to requests waiting for the session.
        asBackgroundWork(() =>
          pglite.lock.run(async () => {
            if (values.length > 0) return pglite.instance.query(text, values);
            const results = await pglite.instance.exec(text);
            return results.at(-1) ?? { rows: [] };
          }),
        )
    : viaKysely(database.db).executeSql;
  const running = new Set<Promise<unknown>>();
  let closed = false;
  return {
    executeSql: (text, values) => {
      // Never answered: any answer is a result pg-boss reads (no rows broke its count of a failed
      // job's update), and nothing awaits a statement started after the stop.
      if (closed) return new Promise<never>(() => {});
      const statement = run(rewrite(text), values);
      running.add(statement);
      const forget = () => running.delete(statement);
      statement.then(forget, forget);
      return statement;
    },
    close: async () => {
      closed = true;
      await Promise.allSettled([...running]);
    },
  };
}

const same = (text: string) => text;

/**
 * pg-boss statements run by `executor`: with a transaction, a job is sent in the same transaction as
 * the change that needs it, so it exists exactly when that change committed.
 */
export function viaKysely(executor: Kysely<DB> | Transaction<DB>): PgBoss.Db {
  return {
    executeSql: async (text, values = []) => {
      const result = await executor.executeQuery(CompiledQuery.raw(text, values));
      return { rows: [...result.rows] };
    },
  };
}
