import { sql, type Kysely } from 'kysely';

/**
 * Columns of `findings` that are only shown, exported or copied from staging, never filtered,
 * joined, grouped or sorted on: the planner never reads their statistics, so ANALYZE no longer
 * computes them. Measured on a 100k-finding upload, `analyze findings` took 1.22–1.32 s on
 * PostgreSQL and 1.48–1.56 s on PGlite with every column, 0.71 s and 1.21–1.30 s without these
 * (PGlite runs it after every large upload, holding its one session; PostgreSQL's autovacuum does).
 * A query that starts to filter on one of them must give it statistics back (`set statistics -1`).
 */
export const DISPLAY_ONLY_COLUMNS = [
  'description',
  'remediation',
  'snippet',
  'references',
  'cvss_vector',
  'cvss_score',
  'tool_version',
  'tool_fingerprint',
  'fixed_version',
  'package_version',
  'end_line',
  'column',
  'severity_score',
  'risk_severity',
  'risk_exploitation',
  'risk_asset',
  'risk_formula_version',
  'reviewed_at',
  'reviewed_by',
  'epss',
  'in_kev',
  'cve_ids',
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const column of DISPLAY_ONLY_COLUMNS) {
    await sql`alter table findings alter column ${sql.ref(column)} set statistics 0`.execute(db);
  }
}
