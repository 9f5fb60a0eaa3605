import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { publishEvents, type DomainEvent } from '../../events/events.ts';
import { reactInTransaction } from '../../events/subscribers.ts';
import { OPEN_STATUSES } from './lifecycle.ts';
import { exploitationPartSql, RISK_FORMULA_VERSION, riskScoreSql } from './risk.ts';
import { effectiveConfigurationIdSql, kevDueDateSql, slaDaysColumnsSql, slaDueDateSql } from './sla.ts';
import { recordTimeline, type TimelineEntry } from './timeline.ts';

/**
 * Copies the current EPSS and KEV snapshots onto findings, set-wise (docs/architecture.md,
 * "Enrichment"): for each finding naming CVEs, the most likely exploited of them (highest EPSS and
 * percentile — the percentile ranks EPSS, so both maxima are the same CVE's), and whether any is in
 * KEV (earliest CISA due date). A snapshot's value wins over a report's: a finding keeps a value
 * from its report only while no snapshot knows any of its CVEs. Then, in the same statement, the
 * exploitation part X and the score. Findings whose values did not change are not written.
 *
 * In the same transaction, per batch of ids: KEV due dates (earlier than the SLA's, when the
 * setting is on) with a timeline entry; `finding.kev_listed` when a finding is listed for the first
 * time ever; `finding.epss_changed` when its percentile crosses the threshold, once per finding and
 * snapshot; the in-transaction reactions (policies). Batches of ids keep each transaction short
 * (PGlite has one session), so uploads interleave with a million-finding re-score.
 */

/** Which findings: every one, one version's (after an upload), or given ids (tests). */
export type EnrichmentScope = 'all' | { versionId: number } | { findingIds: readonly number[] };

const BATCH = 20_000;
const OPEN = sql.join(OPEN_STATUSES.map((status) => sql.lit(status)));

export interface EnrichmentResult {
  /** Findings whose enrichment or score changed. */
  updated: number;
  kevListed: number;
  epssChanged: number;
  dueDates: number;
}

interface ChangedRow {
  id: number;
  application_id: number;
  listed_now: boolean;
  crossed: boolean;
  epss: number | null;
  percentile: number | null;
  old_percentile: number | null;
  epss_snapshot_id: number | null;
  kev_snapshot_id: number | null;
  kev_date_added: string | null;
  kev_due_date: string | null;
  kev_ransomware: boolean | null;
  kev_changed: boolean;
}

function scopeSql(scope: EnrichmentScope) {
  if (scope === 'all') return sql`true`;
  if ('versionId' in scope) return sql`f.version_id = ${scope.versionId}`;
  return sql`f.id in (select json_array_elements_text(${JSON.stringify(scope.findingIds)}::json)::integer)`;
}

async function applyBatch(
  trx: Transaction<DB>,
  scope: EnrichmentScope,
  range: { from: number; to: number },
  now: Date,
): Promise<EnrichmentResult> {
  const x = exploitationPartSql({
    hasCve: sql<boolean>`true`,
    // The snapshot's EPSS when one knows a CVE of the finding, else the report's own (kept apart).
    epss: sql`coalesce(t.epss, f.report_epss)`,
    inKev: sql.ref('t.in_kev'),
  });
  // The statement's estimated cost passes PostgreSQL's JIT threshold; compiling it took ~0.3 s a
  // batch (15 s of a million findings' re-score) for a plan that runs once. PGlite has no JIT; the
  // setting exists in every build.
  await sql`set local jit = off`.execute(trx);
  const { rows } = await sql<ChangedRow>`
    with settings as (select coalesce((select epss_percentile_threshold from enrichment_settings), 0.9) as threshold),
    t as (
      select f.id,
        case when e.snapshot_id is not null then e.epss
             when f.epss_snapshot_id is not null then null else f.epss end as epss,
        case when e.snapshot_id is not null then e.percentile
             when f.epss_snapshot_id is not null then null else f.epss_percentile end as percentile,
        e.snapshot_id as epss_snapshot_id, k.snapshot_id is not null as in_kev, k.snapshot_id as kev_snapshot_id,
        k.date_added as kev_date_added, k.due_date as kev_due_date, k.ransomware as kev_ransomware,
        f.epss_percentile as old_percentile,
        k.snapshot_id is not null and f.kev_listed_at is null as listed_now,
        e.snapshot_id is not null
          and f.epss_event_snapshot_id is distinct from e.snapshot_id
          and coalesce(f.epss_percentile >= st.threshold, false) <> coalesce(e.percentile >= st.threshold, false)
          as crossed,
        (f.kev_due_date is distinct from k.due_date) as kev_changed
      from findings f
      cross join lateral (
        select max(s.epss) as epss, max(s.percentile) as percentile, max(s.snapshot_id) as snapshot_id
        from unnest(f.cve_ids) as c(cve) join epss_scores s on s.cve = upper(c.cve)) e
      cross join lateral (
        select max(k.snapshot_id) as snapshot_id, min(k.date_added::text) as date_added,
          min(k.due_date::text) as due_date, bool_or(k.ransomware) as ransomware
        from unnest(f.cve_ids) as c(cve) join kev_entries k on k.cve = upper(c.cve)) k
      cross join settings st
      where f.id >= ${range.from} and f.id < ${range.to} and cardinality(f.cve_ids) > 0 and ${scopeSql(scope)}
    )
    update findings f set
      epss = t.epss, epss_percentile = t.percentile, epss_snapshot_id = t.epss_snapshot_id,
      in_kev = t.in_kev, kev_snapshot_id = t.kev_snapshot_id, kev_date_added = t.kev_date_added,
      kev_due_date = t.kev_due_date, kev_ransomware = t.kev_ransomware,
      kev_listed_at = case when t.listed_now then ${now}::timestamptz else f.kev_listed_at end,
      epss_event_snapshot_id = case when t.crossed then t.epss_snapshot_id else f.epss_event_snapshot_id end,
      risk_exploitation = ${x},
      risk_score = ${riskScoreSql({
        severity: sql.ref('f.risk_severity'),
        exploitation: x,
        age: sql.ref('f.risk_age'),
        asset: sql.ref('f.risk_asset'),
      })},
      risk_formula_version = ${RISK_FORMULA_VERSION}
    from t
    where f.id = t.id and f.id >= ${range.from} and f.id < ${range.to}
      and (f.epss, f.epss_percentile, f.epss_snapshot_id, f.in_kev, f.kev_snapshot_id,
        f.kev_date_added, f.kev_due_date, f.kev_ransomware, f.risk_exploitation)
      is distinct from (t.epss, t.percentile, t.epss_snapshot_id, t.in_kev, t.kev_snapshot_id,
        t.kev_date_added, t.kev_due_date, t.kev_ransomware, ${x})
    returning f.id, f.application_id, t.listed_now, t.crossed, t.epss, t.percentile, t.old_percentile,
      t.epss_snapshot_id, t.kev_snapshot_id, t.kev_date_added, t.kev_due_date, t.kev_ransomware, t.kev_changed`.execute(
    trx,
  );
  if (rows.length === 0) return { updated: 0, kevListed: 0, epssChanged: 0, dueDates: 0 };

  const dueDates = await applyKevDueDates(
    trx,
    rows.filter((row) => row.kev_changed).map((row) => row.id),
    now,
  );
  const listed = rows.filter((row) => row.listed_now);
  const crossed = rows.filter((row) => row.crossed);
  await recordTimeline(
    trx,
    listed.map((row): TimelineEntry => ({
      findingId: row.id,
      type: 'kev_listed',
      actor: { system: 'enrichment' },
      detail: {
        date_added: row.kev_date_added,
        due_date: row.kev_due_date,
        ransomware: row.kev_ransomware,
        snapshot_id: row.kev_snapshot_id,
      },
    })),
  );
  const events: DomainEvent[] = [
    ...listed.map((row) => ({
      type: 'finding.kev_listed' as const,
      applicationId: row.application_id,
      findingId: row.id,
      data: {
        kev: { date_added: row.kev_date_added, due_date: row.kev_due_date, ransomware: row.kev_ransomware },
        snapshot_id: row.kev_snapshot_id,
      },
    })),
    ...crossed.map((row) => ({
      type: 'finding.epss_changed' as const,
      applicationId: row.application_id,
      findingId: row.id,
      data: {
        epss: row.epss,
        percentile: row.percentile,
        previous_percentile: row.old_percentile,
        direction: (row.percentile ?? 0) > (row.old_percentile ?? 0) ? 'up' : 'down',
        snapshot_id: row.epss_snapshot_id,
      },
    })),
  ];
  await publishEvents(trx, events);
  for (const [event, of] of [
    ['finding.kev_listed', listed],
    ['finding.epss_changed', crossed],
  ] as const) {
    if (of.length === 0) continue;
    await reactInTransaction(trx, {
      event,
      applicationIds: [...new Set(of.map((row) => row.application_id))],
      findings: { ids: of.map((row) => row.id) },
    });
  }
  return { updated: rows.length, kevListed: listed.length, epssChanged: crossed.length, dueDates };
}

/**
 * Recomputes the SLA due dates of the given open findings with the KEV rule (sla.ts,
 * `kevDueDateSql`), writing a timeline entry for each that moved.
 */
async function applyKevDueDates(trx: Transaction<DB>, ids: readonly number[], now: Date): Promise<number> {
  if (ids.length === 0) return 0;
  const sla = slaDueDateSql({
    severity: sql.ref('f.severity'),
    concern: sql.ref('f.concern'),
    firstSeenAt: sql.ref('f.first_seen_at'),
    pausedSeconds: sql.ref('f.sla_paused_seconds'),
    days: slaDaysColumnsSql('e'),
  });
  const due = kevDueDateSql(sla, sql.ref('f.kev_due_date'));
  const { rows } = await sql<{ id: number; before: Date | null; after: Date | null; by_kev: boolean }>`
    update findings f set due_date = ${due}, updated_at = ${now}
    from (select app.id as application_id, c.*
          from applications app
          join groups g on g.id = app.group_id
          join sla_configurations c on c.id = ${effectiveConfigurationIdSql}) e,
         (select p.id, p.due_date from findings p
          where p.id in (select json_array_elements_text(${JSON.stringify(ids)}::json)::integer)) o
    where f.application_id = e.application_id and o.id = f.id
      and f.status in (${OPEN}) and f.due_date_source = 'sla'
      and f.due_date is distinct from ${due}
    returning f.id, o.due_date as before, f.due_date as after,
      (f.kev_due_date is not null and f.due_date is not distinct from (f.kev_due_date || 'T23:59:59Z')::timestamptz) as by_kev`.execute(
    trx,
  );
  await recordTimeline(
    trx,
    rows.map((row) => ({
      findingId: row.id,
      type: 'due_date_changed' as const,
      actor: { system: 'enrichment' },
      detail: {
        from: row.before === null ? null : new Date(row.before).toISOString(),
        to: row.after === null ? null : new Date(row.after).toISOString(),
        reason: row.by_kev ? 'kev' : 'sla',
        ...(row.by_kev ? { note: "CISA KEV's due date is earlier than the SLA's" } : {}),
      },
    })),
  );
  return rows.length;
}

/**
 * Applies the current snapshots to the findings of `scope`, in batches of ids, each its own
 * transaction. Returns what changed.
 */
export async function applyEnrichment(
  db: Kysely<DB>,
  scope: EnrichmentScope,
  now: Date = new Date(),
  batch = BATCH,
): Promise<EnrichmentResult> {
  const total: EnrichmentResult = { updated: 0, kevListed: 0, epssChanged: 0, dueDates: 0 };
  const bounds = await sql<{ low: number | null; high: number | null }>`
    select min(f.id) as low, max(f.id) as high from findings f
    where cardinality(f.cve_ids) > 0 and ${scopeSql(scope)}`.execute(db);
  const { low, high } = bounds.rows[0] ?? { low: null, high: null };
  if (low === null || high === null) return total;
  for (let from = Number(low); from <= Number(high); from += batch) {
    const result = await db
      .transaction()
      .execute((trx) => applyBatch(trx, scope, { from, to: from + batch }, now));
    total.updated += result.updated;
    total.kevListed += result.kevListed;
    total.epssChanged += result.epssChanged;
    total.dueDates += result.dueDates;
  }
  return total;
}
