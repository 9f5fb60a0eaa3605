import { sql, type Kysely } from 'kysely';

/**
 * What an import changed, for the re-score to read (issue 45 item 4; docs/architecture.md,
 * "Enrichment"): the CVEs whose EPSS row (score or percentile) or KEV entry an import wrote, added or
 * dropped since the last re-score. The `enrichment-apply` job re-scores only the findings naming one
 * of them, then forgets the changes it saw (`seq` up to where it started: a change recorded while it
 * runs stays for the next run). A CVE changed twice before a re-score is one row.
 *
 * Online: a new table; nothing to copy (the findings are as the last full re-score left them).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create sequence enrichment_changes_seq`.execute(db);
  await sql`create table enrichment_changes (
    cve text primary key,
    seq bigint not null default nextval('enrichment_changes_seq')
  )`.execute(db);
}
