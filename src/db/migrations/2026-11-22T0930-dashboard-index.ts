import { sql, type Kysely } from 'kysely';

/**
 * The dashboard sums every finding of the readable applications. Finding rows are wide (text), so
 * a full scan reads gigabytes at 1M findings; this narrow covering index lets PostgreSQL answer the
 * dashboard's one grouped query with an index-only scan.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index findings_dashboard_idx on findings (application_id, severity, status)
    include (risk_score, first_seen_at, fixed_at, due_date)`.execute(db);
}
