import { randomBytes } from 'node:crypto';
import { Migrator, type Kysely } from 'kysely';
import pg from 'pg';
import { openDatabase, type Database } from '../../src/db/database.ts';
import { migrations } from '../../src/db/migrations/index.ts';

export interface MigrationDatabase {
  database: Database;
  /** The schema of its own on TEST_DATABASE_URL; undefined on PGlite. */
  schema?: string;
  /** Every migration scanhub has, to run one by one (`migrateTo`) before seeding what a migration must carry over. */
  migrator: Migrator;
  drop(): Promise<void>;
}

/**
 * A new, empty, unmigrated database for a migration's test: PGlite in memory, or a schema of its own
 * (named `<prefix>_<random>`) on TEST_DATABASE_URL, dropped by `drop`.
 */
export async function emptyDatabase(prefix: string): Promise<MigrationDatabase> {
  const migratorOf = (database: Database, schema?: string) =>
    new Migrator({
      db: database.db as unknown as Kysely<unknown>,
      provider: { getMigrations: async () => migrations },
      ...(schema ? { migrationTableSchema: schema } : {}),
    });
  const url = process.env.TEST_DATABASE_URL;
  if (!url) {
    const database = await openDatabase({});
    return { database, migrator: migratorOf(database), drop: () => database.close() };
  }
  const schema = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  const database = await openDatabase({ url, schema });
  return {
    database,
    schema,
    migrator: migratorOf(database, schema),
    drop: async () => {
      await database.close();
      await admin.query(`drop schema ${schema} cascade`);
      await admin.end();
    },
  };
}
