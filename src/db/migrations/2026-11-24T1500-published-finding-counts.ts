import { sql, type Kysely } from 'kysely';

/**
 * A finding counts once the scan that created it has completed (issue 15, responsiveness on PGlite).
 *
 * On PGlite's one session a 100k upload's merge held the database for ~10 s, so the embedded
 * database merges a large upload in short transactions, chunk by chunk, and its new findings stay
 * out of sight until the last one (src/domain/findings/unpublished-scans.ts). The `finding_counts`
 * ledger must not count them in between, whoever writes them. The triggers now put the deltas of
 * findings whose first scan exists and has not completed into `finding_counts_unpublished`, by
 * scan, and `publish_finding_counts(scan)` moves the scan's rows into the ledger when it completes,
 * in the same transaction: a handful of grouped rows, whatever happened to the findings meanwhile.
 * A failed upload's findings are deleted before its scan completes, so their deltas sum to zero
 * there and are dropped with the scan's rows.
 *
 * A finding whose first scan was deleted (`first_scan_id` null) counts in the ledger, as before.
 */
const KEY = 'application_id, version_id, severity, status';
const SUMS = 'sum(findings), sum(risk), sum(fixed_timed), sum(fix_seconds)';
const NONZERO = 'sum(findings) <> 0 or sum(risk) <> 0 or sum(fixed_timed) <> 0 or sum(fix_seconds) <> 0';

/** One delta row per changed finding, with the unfinished scan it waits for (null: none). */
const delta = (rows: string, sign: string) => `select r.application_id, r.version_id, r.severity, r.status,
    ${sign} 1 as findings, ${sign} r.risk_score::bigint as risk,
    ${sign} (r.status = 'fixed' and r.fixed_at is not null)::int as fixed_timed,
    ${sign} coalesce(case when r.status = 'fixed' then extract(epoch from r.fixed_at - r.first_seen_at) end, 0)
      as fix_seconds,
    unfinished.id as unpublished_scan
  from ${rows} r
  left join scans unfinished on unfinished.id = r.first_scan_id and unfinished.status <> 'completed'`;

/** Appends the deltas of `source`, grouped: to the ledger, or apart by scan until it completes. */
const append = (source: string) => `with d as materialized (${source}),
    apart as (
      insert into finding_counts_unpublished
      select unpublished_scan, ${KEY}, ${SUMS} from d where unpublished_scan is not null
      group by unpublished_scan, ${KEY} having ${NONZERO})
    insert into finding_counts
    select ${KEY}, ${SUMS} from d where unpublished_scan is null
    group by ${KEY} having ${NONZERO}`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table finding_counts_unpublished (
    scan_id integer not null,
    application_id integer not null,
    version_id integer not null,
    severity text not null,
    status text not null,
    findings bigint not null,
    risk bigint not null,
    fixed_timed bigint not null,
    fix_seconds numeric not null
  )`.execute(db);
  await sql`create index finding_counts_unpublished_scan_idx on finding_counts_unpublished (scan_id)`.execute(
    db,
  );
  await sql
    .raw(
      `create or replace function finding_counts_after_insert() returns trigger language plpgsql as $$
      begin
        ${append(delta('new_rows', '+'))};
        return null;
      end $$`,
    )
    .execute(db);
  await sql
    .raw(
      `create or replace function finding_counts_after_delete() returns trigger language plpgsql as $$
      begin
        ${append(delta('old_rows', '-'))};
        return null;
      end $$`,
    )
    .execute(db);
  await sql
    .raw(
      `create or replace function finding_counts_after_update() returns trigger language plpgsql as $$
      begin
        ${append(`${delta('new_rows', '+')} union all ${delta('old_rows', '-')}`)};
        return null;
      end $$`,
    )
    .execute(db);
  await sql
    .raw(
      `create function publish_finding_counts(scan integer) returns void language sql as $$
      with moved as (delete from finding_counts_unpublished where scan_id = scan returning *)
      insert into finding_counts
      select ${KEY}, ${SUMS} from moved group by ${KEY} having ${NONZERO}
      $$`,
    )
    .execute(db);
  // A scan deleted before it completed (with its version or application) leaves its findings with
  // no first scan, which counts them: its counts join the ledger first, so deleting those findings
  // in the same cascade takes them out again.
  await sql`create function finding_counts_scan_deleted() returns trigger language plpgsql as $$
    begin
      if old.status <> 'completed' then
        perform publish_finding_counts(old.id);
      end if;
      return old;
    end $$`.execute(db);
  await sql`create trigger finding_counts_scan_deleted before delete on scans
    for each row execute function finding_counts_scan_deleted()`.execute(db);
  await sql`create or replace function finding_counts_after_truncate() returns trigger language plpgsql as $$
    begin
      delete from finding_counts;
      delete from finding_counts_unpublished;
      return null;
    end $$`.execute(db);
}
