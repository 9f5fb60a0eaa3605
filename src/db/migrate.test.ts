import { randomBytes } from 'node:crypto';
import { Migrator, sql } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { emptyDatabase } from '../../test/support/migration-database.ts';
import { migrateToLatest } from './database.ts';
import { migrations } from './migrations/index.ts';

describe('migrateToLatest', () => {
  it('applies what is pending, skips the Migrator when nothing is, and still refuses an unknown applied migration', async () => {
    const { database, schema, drop } = await emptyDatabase('scanhub_migrate');
    try {
      const names = Object.keys(migrations);
      const first = names[0] as string;
      const migrator = new Migrator({
        db: database.db,
        provider: { getMigrations: async () => migrations },
        ...(schema ? { migrationTableSchema: schema } : {}),
      });
      expect((await migrator.migrateTo(first)).error).toBeUndefined();

      expect(await migrateToLatest(database.db, schema)).toEqual(names.slice(1));
      expect(await migrateToLatest(database.db, schema)).toEqual([]);

      // Applied by a newer build: the Migrator's refusal, not the fast path's "up to date".
      const table = sql.table(schema ? `${schema}.kysely_migration` : 'kysely_migration');
      await sql`insert into ${table} (name, timestamp) values ('2999-01-01T0000-newer', '2999-01-01')`.execute(
        database.db,
      );
      await expect(migrateToLatest(database.db, schema)).rejects.toThrow(/2999-01-01T0000-newer/);
    } finally {
      await drop();
    }
  }, 60_000);

  it('is not failed by schemas other connections drop meanwhile (PostgreSQL)', async () => {
    const url = process.env.TEST_DATABASE_URL;
    if (!url) return; // one connection on PGlite: nothing drops a schema during a migration
    const churn = new pg.Client({ connectionString: url });
    await churn.connect();
    let churning = true;
    const prefix = `scanhub_churn_${randomBytes(4).toString('hex')}`;
    const churned = (async () => {
      for (let round = 0; churning; round++) {
        const schema = `${prefix}_${round}`;
        await churn.query(`create schema ${schema}; create table ${schema}.t (id serial primary key)`);
        await churn.query(`drop schema ${schema} cascade`);
      }
    })();
    try {
      for (let attempt = 0; attempt < 6; attempt++) {
        const { database, schema, drop } = await emptyDatabase('scanhub_migrate');
        try {
          expect(await migrateToLatest(database.db, schema)).toEqual(Object.keys(migrations));
        } finally {
          await drop();
        }
      }
    } finally {
      churning = false;
      await churned;
      await churn.end();
    }
  }, 120_000);
});
