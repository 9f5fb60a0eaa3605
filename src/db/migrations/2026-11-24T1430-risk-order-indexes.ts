import { sql, type Kysely } from 'kysely';

/**
 * Lists sort by risk with ties broken by id in the same direction (`risk desc, id desc`), but the
 * risk indexes held ids ascending within a risk: neither direction could be read in page order, so
 * PostgreSQL sorted whole groups of equal risk (thousands of rows each at 1M findings) for every
 * page. With ids in the sort's direction, a page is the next rows of an index walked forwards (desc)
 * or backwards (asc). Same columns, so ingest writes the same amount.
 *
 * The assignee index gains the risk order and the application: "assigned to me" pages per status in
 * risk order, and counts them from the index alone (measured at 1M: count 83 → 3 ms).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`drop index findings_app_status_risk_idx`.execute(db);
  await sql`create index findings_app_status_risk_idx on findings (application_id, status, risk_score desc, id desc)`.execute(
    db,
  );
  await sql`drop index findings_status_risk_idx`.execute(db);
  await sql`create index findings_status_risk_idx on findings (status, risk_score desc, id desc)`.execute(db);
  await sql`drop index findings_assignee_idx`.execute(db);
  await sql`create index findings_assignee_risk_idx on findings (assignee_id, status, risk_score desc, id desc)
    include (application_id) where assignee_id is not null`.execute(db);
}
