import { sql, type Kysely } from 'kysely';

/**
 * The list by EPSS reads the value the API shows (issue 45 item 3): the finding's `finding_epss` row,
 * else the report's own `report_epss` (migration 2026-11-29T1400). The second part is read per
 * application in EPSS order from this index, as the first from `finding_epss_order`. Partial: only
 * findings whose report states an EPSS enter it, so an upload of findings without one does not
 * write it.
 *
 * Online: a brief lock while it is built; findings with a report EPSS are few (Grype reports that
 * carry `vulnerability.epss[]`).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index findings_report_epss on findings (application_id, report_epss, id)
    where report_epss is not null`.execute(db);
}
