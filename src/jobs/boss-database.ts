import { CompiledQuery, type Kysely, type Transaction } from 'kysely';
import type PgBoss from 'pg-boss';
import type { Database } from '../db/database.ts';
import { asBackgroundWork } from '../db/pglite-dialect.ts';
import type { DB } from '../db/schema.ts';

/**
 * pg-boss's database adapter over scanhub's own connection. On PGlite every statement goes through
 * the session lock the Kysely dialect uses (one session: pg-boss must never run inside someone
 * else's transaction); parameter-less SQL may hold several statements (pg-boss's schema
 * migrations), which PGlite runs with `exec`. On PostgreSQL it shares Kysely's pool.
 */
export function bossDatabase(database: Database): PgBoss.Db {
  const pglite = database.pglite;
  if (pglite) {
    return {
      // pg-boss's own polling and upkeep yield to requests waiting for the session.
      executeSql: (text, values = []) =>
        asBackgroundWork(() =>
          pglite.lock.run(async () => {
            if (values.length > 0) return pglite.instance.query(text, values);
            const results = await pglite.instance.exec(text);
            return results.at(-1) ?? { rows: [] };
          }),
        ),
    };
  }
  return viaKysely(database.db);
}

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
