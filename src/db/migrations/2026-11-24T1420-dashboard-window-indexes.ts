import { sql, type Kysely } from 'kysely';

/**
 * The dashboard's matrix, risk and time to fix now come from `finding_counts`; what is left to read
 * from findings are the time windows (new, fixed in the last 7 / 30 days, overdue), which move with
 * the clock. Each gets a narrow index holding only its timestamp and the application (for the
 * caller's visibility), so each window reads only the findings inside it. The wide covering index
 * that served one pass over every finding (findings_dashboard_idx) has no reader left.
 * `fixed_at` and `due_date` are indexed only for the statuses their window counts: a new finding
 * is not fixed, so ingest writes no entry in the fixed index. Overdue is not a narrow window (at 1M
 * seeded findings, 430k are overdue), so its index leads with the application: a member's
 * dashboard reads only the ranges of the applications it may read (measured 65 → 22 ms at 1M).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index findings_first_seen_idx on findings (first_seen_at) include (application_id)`.execute(
    db,
  );
  await sql`create index findings_fixed_at_idx on findings (fixed_at) include (application_id)
    where status = 'fixed'`.execute(db);
  await sql`create index findings_overdue_idx on findings (application_id, due_date)
    where status in ('open', 'confirmed')`.execute(db);
  await sql`drop index findings_dashboard_idx`.execute(db);
}
