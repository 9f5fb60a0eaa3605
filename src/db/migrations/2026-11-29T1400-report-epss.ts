import { sql, type Kysely } from 'kysely';

/**
 * The report's own EPSS (issue 45 item 3: Grype's `vulnerability.epss[]`), on `findings` and on the
 * staging table, apart from the imported snapshot's `epss`: a snapshot that knows the CVE wins, the
 * report's value is used while none does (domain/findings/enrichment.ts).
 *
 * Online: nullable columns without a default are a catalogue change (no rewrite, a brief lock).
 * Existing findings have none until an upload that reports them writes the finding again.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['findings', 'ingest_staging']) {
    await sql`alter table ${sql.table(table)}
      add column if not exists report_epss double precision,
      add column if not exists report_epss_percentile double precision`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['findings', 'ingest_staging']) {
    await sql`alter table ${sql.table(table)}
      drop column if exists report_epss, drop column if exists report_epss_percentile`.execute(db);
  }
}
