import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';

/**
 * Folds the `finding_counts` ledger into one row per (version, severity, status) and drops keys
 * that sum to zero (deleted versions). Totals read from the ledger are the same before and after;
 * folding only keeps the number of rows they sum small. Returns the rows left. Folds the
 * `finding_day_counts` ledger too (and drops the days no dashboard window reads any more).
 */
export async function compactFindingCounts(db: Kysely<DB>): Promise<number> {
  await sql`select compact_finding_counts()`.execute(db);
  await sql`select compact_finding_day_counts()`.execute(db);
  const row = await db
    .selectFrom('finding_counts')
    .select((eb) => eb.fn.countAll<number>().as('rows'))
    .executeTakeFirstOrThrow();
  return Number(row.rows);
}
