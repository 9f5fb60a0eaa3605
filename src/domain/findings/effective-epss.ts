import { sql } from 'kysely';

/**
 * The EPSS a finding is shown with (findings.presenter.ts), as SQL, so that the list's `epss_min` and
 * `sort_by=epss` and the policy conditions `epss` / `epss_percentile` read the same value the API
 * shows (issue 45 item 3): the finding's `finding_epss` row when it has one (an imported snapshot's
 * value, or one kept from before `report_epss` existed), else the report's own (`report_epss`,
 * Grype's `vulnerability.epss[]`). `finding_epss.epss` is never null, so the row's presence decides.
 *
 * `finding` and `row` are the aliases of `findings` and of a left-joined `finding_epss`.
 */
export function effectiveEpssSql(finding: string, row: string) {
  return sql<number | null>`coalesce(${sql.ref(`${row}.epss`)}, ${sql.ref(`${finding}.report_epss`)})`;
}

export function effectivePercentileSql(finding: string, row: string) {
  return sql<number | null>`case when ${sql.ref(`${row}.finding_id`)} is null
    then ${sql.ref(`${finding}.report_epss_percentile`)} else ${sql.ref(`${row}.percentile`)} end`;
}
