import { sql, type Kysely } from 'kysely';

/**
 * Text columns that are keys, never prose: hex digests, the staging upload key and the finding
 * status, each in B-trees that every upload inserts into (100k entries each for a 100k upload). Under
 * a database's linguistic collation (en_US.UTF-8, even C.UTF-8) every comparison in those indexes
 * goes through the C library's strcoll; under "C" it is a memcmp. Nothing sorts them for people, and
 * for these values (ASCII, lowercase) both orders agree anyway. PGlite's databases are "C" already.
 * Changing a column's collation rebuilds its indexes, not the table.
 */
export const BYTE_ORDER_COLUMNS = {
  findings: ['fingerprint', 'identity_base', 'status'],
  ingest_staging: ['upload_key', 'fingerprint', 'base'],
} as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [table, columns] of Object.entries(BYTE_ORDER_COLUMNS)) {
    const changes = columns.map((column) => sql`alter column ${sql.ref(column)} type text collate "C"`);
    await sql`alter table ${sql.table(table)} ${sql.join(changes)}`.execute(db);
  }
}
