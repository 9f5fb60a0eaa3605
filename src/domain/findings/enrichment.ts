import { sql, type Kysely, type Transaction } from 'kysely';
import { inIdRanges, inLanes } from '../../db/lanes.ts';
import type { DB } from '../../db/schema.ts';
import { publishEvents, type DomainEvent } from '../../events/events.ts';
import { reactInTransaction } from '../../events/subscribers.ts';
import { OPEN_STATUSES } from './lifecycle.ts';
import { exploitationPartSql, RISK_FORMULA_VERSION, riskScoreSql } from './risk.ts';
import {
  effectiveConfigurationIdSql,
  effectiveDueDateSql,
  joinSlaDueSql,
  kevDueDateSql,
  slaDaysColumnsSql,
  slaDueDateSql,
} from './sla.ts';
import { recordTimeline, type TimelineEntry } from './timeline.ts';

/**
 * Applies the current EPSS and KEV snapshots to findings, set-wise (docs/architecture.md,
 * "Enrichment"): for each finding naming CVEs, the most likely exploited of them (highest EPSS and
 * percentile — the percentile ranks EPSS, so both maxima are the same CVE's), kept in the narrow
 * `finding_epss` (migration 2026-11-29T1600), and whether any is in KEV (earliest CISA due date),
 * kept on the finding. A snapshot's value wins over a report's: a finding keeps a value from its
 * report only while no snapshot knows any of its CVEs. Then, in the same statement, the
 * exploitation part X and the score. Nothing is written whose value did not change, and a
 * finding's own (wide, much-indexed) row only when its KEV fields, X or event stamps do — a daily
 * EPSS file moves nearly every score a little but few across X's edges.
 *
 * In the same transaction, per batch of ids: KEV due dates (earlier than the SLA's, when the
 * setting is on) with a timeline entry; `finding.kev_listed` when a finding is listed for the first
 * time ever; `finding.epss_changed` when its percentile crosses the threshold, once per finding and
 * snapshot; the in-transaction reactions (policies). Batches of ids keep each transaction short
 * (PGlite has one session), so uploads interleave with a million-finding re-score.
 */

/**
 * Which findings: every one (a from-scratch computation), one version's (after an upload), those
 * naming a CVE an import changed (`enrichment_changes` up to `seq`, after an import), or given ids
 * (tests).
 */
export type EnrichmentScope =
  'all' | { versionId: number } | { changesUpTo: string } | { findingIds: readonly number[] };

const BATCH = 20_000;

/**
 * A finding's CVEs, upper-cased, as one array: `cve = any (…)` is a probe of the table's key per
 * CVE. Joined to `unnest(f.cve_ids)` instead, a small table (a KEV catalog's ~1,500 rows,
 * `enrichment_changes` with the dead rows of an earlier run) was planned as a hash of all its rows
 * for every finding: 3.7 s a batch of 20,000 findings with a KEV catalog loaded, against 0.05 s.
 */
const CVES = sql`array(select upper(c.cve) from unnest(f.cve_ids) as c(cve))`;
const OPEN = sql.join(OPEN_STATUSES.map((status) => sql.lit(status)));

export interface EnrichmentResult {
  /** Findings whose enrichment or score changed. */
  updated: number;
  /** Of those, the findings whose own row was written (KEV fields, exploitation part, score, event stamps); the rest changed only in `finding_epss`. */
  findingRows: number;
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
  if ('changesUpTo' in scope) {
    return sql`exists (select 1 from enrichment_changes ch
      where ch.cve = any (${CVES}) and ch.seq <= ${scope.changesUpTo}::bigint)`;
  }
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
  // One statement: `t` reads each finding's values from the snapshots and its present EPSS row;
  // `epss_written` and `epss_removed` bring `finding_epss` to them (a narrow row per finding: the
  // part a daily EPSS file changes for nearly every finding); `scored` writes the finding's own
  // wide row only where what it keeps changes — the KEV fields, the exploitation part and score
  // (which move only when EPSS crosses a bucket edge or KEV lists the CVE), the event stamps.
  // Every part reads the statement's one snapshot, so `t` sees the rows before they are written.
  const { rows: touched } = await sql<ChangedRow & { scored: boolean; epss_only: number }>`
    with settings as (select coalesce((select epss_percentile_threshold from enrichment_settings), 0.9) as threshold),
    t as (
      select f.id, f.application_id,
        case when e.snapshot_id is not null then e.epss
             when o.snapshot_id is not null then null else o.epss end as epss,
        case when e.snapshot_id is not null then e.percentile
             when o.snapshot_id is not null then null else o.percentile end as percentile,
        e.snapshot_id as epss_snapshot_id, k.snapshot_id is not null as in_kev, k.snapshot_id as kev_snapshot_id,
        k.date_added as kev_date_added, k.due_date as kev_due_date, k.ransomware as kev_ransomware,
        o.epss as old_epss, o.percentile as old_percentile, o.snapshot_id as old_snapshot_id,
        k.snapshot_id is not null and f.kev_listed_at is null as listed_now,
        e.snapshot_id is not null
          and f.epss_event_snapshot_id is distinct from e.snapshot_id
          and coalesce(o.percentile >= st.threshold, false) <> coalesce(e.percentile >= st.threshold, false)
          as crossed,
        (f.kev_due_date is distinct from k.due_date) as kev_changed
      from findings f
      -- Bounded to the batch's range, so its rows are read by key: the planner, expecting few
      -- findings, otherwise hashed them and scanned the whole table (72 ms a batch at 500k rows).
      left join finding_epss o on o.finding_id = f.id
        and o.finding_id >= ${range.from} and o.finding_id < ${range.to}
      cross join lateral (
        -- The snapshot that set the chosen CVE's value (an import that restates a value does not
        -- write its row: enrichment.repository.ts, settle).
        select max(s.epss) as epss, max(s.percentile) as percentile,
          (array_agg(s.snapshot_id order by s.epss desc, s.snapshot_id desc))[1] as snapshot_id
        from epss_scores s where s.cve = any (${CVES})) e
      cross join lateral (
        select max(k.snapshot_id) as snapshot_id, min(k.date_added::text) as date_added,
          min(k.due_date::text) as due_date, bool_or(k.ransomware) as ransomware
        from kev_entries k where k.cve = any (${CVES})) k
      cross join settings st
      where f.id >= ${range.from} and f.id < ${range.to} and cardinality(f.cve_ids) > 0 and ${scopeSql(scope)}
    ),
    epss_written as (
      insert into finding_epss (finding_id, application_id, epss, percentile, snapshot_id)
      select t.id, t.application_id, t.epss, t.percentile, t.epss_snapshot_id from t
      where t.epss is not null
        and (t.old_epss, t.old_percentile, t.old_snapshot_id) is distinct from (t.epss, t.percentile, t.epss_snapshot_id)
      on conflict (finding_id) do update
        set epss = excluded.epss, percentile = excluded.percentile, snapshot_id = excluded.snapshot_id
      returning finding_id
    ),
    epss_removed as (
      delete from finding_epss d using t
      where d.finding_id = t.id and t.epss is null
        and d.finding_id >= ${range.from} and d.finding_id < ${range.to}
      returning d.finding_id
    ),
    scored as (
      update findings f set
        in_kev = t.in_kev, kev_snapshot_id = t.kev_snapshot_id, kev_date_added = t.kev_date_added,
        kev_due_date = t.kev_due_date, kev_ransomware = t.kev_ransomware,
        kev_listed_at = case when t.in_kev and f.kev_listed_at is null then ${now}::timestamptz else f.kev_listed_at end,
        epss_event_snapshot_id = case when t.crossed and f.epss_event_snapshot_id is distinct from t.epss_snapshot_id
          then t.epss_snapshot_id else f.epss_event_snapshot_id end,
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
        -- Each condition names the finding's own columns, which PostgreSQL reads again when another
        -- re-score wrote the row first (the job and a direct call may overlap): what that one wrote
        -- and announced is then not written or announced again.
        and ((t.in_kev and f.kev_listed_at is null)
          or (t.crossed and f.epss_event_snapshot_id is distinct from t.epss_snapshot_id)
          or (f.in_kev, f.kev_snapshot_id, f.kev_date_added, f.kev_due_date, f.kev_ransomware, f.risk_exploitation)
            is distinct from (t.in_kev, t.kev_snapshot_id, t.kev_date_added, t.kev_due_date, t.kev_ransomware, ${x}))
      returning f.id, f.application_id, t.listed_now and f.kev_listed_at = ${now}::timestamptz as listed_now,
        t.crossed, t.epss, t.percentile, t.old_percentile,
        t.epss_snapshot_id, t.kev_snapshot_id, t.kev_date_added, t.kev_due_date, t.kev_ransomware, t.kev_changed
    )
    -- The findings whose own row was written, one by one (what follows needs them); those changed
    -- only in finding_epss (on a daily file, nearly all) counted in one row, not sent.
    select scored.*, true as scored, 0 as epss_only from scored
    union all
    select null, null, false, false, null, null, null, null, null, null, null, null, false, false,
      count(*)::integer
    from (select finding_id from epss_written union select finding_id from epss_removed) ids
    where ids.finding_id not in (select id from scored)`.execute(trx);
  const rows = touched.filter((row) => row.scored);
  const updated = rows.length + touched.reduce((sum, row) => sum + (row.scored ? 0 : row.epss_only), 0);
  if (rows.length === 0) return { updated, findingRows: 0, kevListed: 0, epssChanged: 0, dueDates: 0 };

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
  return {
    updated,
    findingRows: rows.length,
    kevListed: listed.length,
    epssChanged: crossed.length,
    dueDates,
  };
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
         (select p.id, ${effectiveDueDateSql('p', 'po')} as due_date from findings p
          ${joinSlaDueSql('p', 'po')}
          where p.id in (select json_array_elements_text(${JSON.stringify(ids)}::json)::integer)) o
    where f.application_id = e.application_id and o.id = f.id
      and f.status in (${OPEN}) and f.due_date_source = 'sla'
      -- The due date in force (a recompute's overlay); writing due_date drops the overlay row.
      and o.due_date is distinct from ${due}
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

/** How a re-score runs. */
export interface RescoreOptions {
  now?: Date;
  /** Findings per batch, each batch its own transaction. */
  batch?: number;
  /**
   * Batches in flight at once, each in its own transaction on its own connection
   * (`batchLanes`, db/lanes.ts). A batch's writes are its own findings' rows, appended ledger rows and
   * inserted events, so batches never wait on each other.
   */
  lanes?: number;
  /** `applyEnrichmentChanges`: up to this many changed CVEs, their findings are found first. */
  fewChanges?: number;
  /** `applyEnrichmentChanges`: from this share of the known CVEs changed, every finding is re-scored. */
  allShare?: number;
}

const noResult = (): EnrichmentResult => ({
  updated: 0,
  findingRows: 0,
  kevListed: 0,
  epssChanged: 0,
  dueDates: 0,
});

/**
 * Applies the current snapshots to the findings of `scope`, in batches of ids, each its own
 * transaction. Returns what changed.
 */
export async function applyEnrichment(
  db: Kysely<DB>,
  scope: EnrichmentScope,
  { now = new Date(), batch = BATCH, lanes = 1 }: RescoreOptions = {},
): Promise<EnrichmentResult> {
  // Every finding's or the changed CVEs' findings: the bounds of the key (two index probes, not a
  // pass over the findings; each batch reads only its own range).
  const wide = scope === 'all' || 'changesUpTo' in scope;
  const bounds = await sql<{ low: number | null; high: number | null }>`
    select min(f.id) as low, max(f.id) as high from findings f
    where ${wide ? sql`true` : sql`cardinality(f.cve_ids) > 0 and ${scopeSql(scope)}`}`.execute(db);
  const total = noResult();
  await inIdRanges(
    db,
    bounds.rows[0] ?? { low: null, high: null },
    { batch, lanes },
    (trx, range) => applyBatch(trx, scope, range, now),
    (result) => addResult(total, result),
  );
  return total;
}

/**
 * The re-score after an import (job `enrichment-apply`): only the findings naming a CVE an import
 * changed since the last run (`enrichment_changes`), then those changes are forgotten — up to the
 * last one seen when it started, so a change recorded meanwhile waits for the next run. The result
 * equals a from-scratch computation (`'all'`): a finding none of whose CVEs changed has nothing to
 * change (property test in test/enrichment/enrichment-rescore.test.ts).
 */
export async function applyEnrichmentChanges(
  db: Kysely<DB>,
  {
    now = new Date(),
    batch = BATCH,
    lanes = 1,
    fewChanges = FEW_CHANGES,
    allShare = 0.5,
  }: RescoreOptions = {},
): Promise<EnrichmentResult> {
  const { rows } = await sql<{ up_to: string | null; changes: number; known: number }>`
    select max(seq)::text as up_to, count(*)::integer as changes,
      (select count(*) from epss_scores)::integer + (select count(*) from kev_entries)::integer as known
    from enrichment_changes`.execute(db);
  const upTo = rows[0]?.up_to ?? null;
  if (upTo === null) return noResult();
  const changes = rows[0]?.changes ?? 0;
  const scope = { changesUpTo: upTo };
  let result: EnrichmentResult;
  if (changes <= fewChanges) {
    // Few CVEs changed (a KEV catalog, a merge): their findings are found in one pass over the
    // findings, then re-scored by id — not 50 range batches each reading its 20,000 findings'
    // CVEs only to skip nearly all of them.
    const { rows: found } = await sql<{ id: number }>`select f.id from findings f
      where cardinality(f.cve_ids) > 0 and ${scopeSql(scope)} order by f.id`.execute(db);
    result = await applyToIds(
      db,
      found.map((row) => row.id),
      { now, batch, lanes },
    );
  } else {
    // Most CVEs changed (a first import; a daily EPSS file moves nearly every score): every
    // finding, which gives the same result without asking for each whether one of its CVEs
    // changed (~5 s of a million findings' re-score).
    const most = changes >= allShare * (rows[0]?.known ?? 0);
    result = await applyEnrichment(db, most ? 'all' : scope, { now, batch, lanes });
  }
  await sql`delete from enrichment_changes where seq <= ${upTo}::bigint`.execute(db);
  return result;
}

/** Adds one batch's counts to the run's. */
function addResult(total: EnrichmentResult, result: EnrichmentResult): void {
  total.updated += result.updated;
  total.findingRows += result.findingRows;
  total.kevListed += result.kevListed;
  total.epssChanged += result.epssChanged;
  total.dueDates += result.dueDates;
}

/** Up to this many changed CVEs, `applyEnrichmentChanges` finds their findings first (see there). */
const FEW_CHANGES = 20_000;

/** Re-scores the findings `ids` (ascending), `batch` at a time, each batch its own transaction. */
async function applyToIds(
  db: Kysely<DB>,
  ids: readonly number[],
  { now, batch, lanes }: { now: Date; batch: number; lanes: number },
): Promise<EnrichmentResult> {
  const total = noResult();
  await inLanes(
    db,
    Math.ceil(ids.length / batch),
    lanes,
    (trx, index) => {
      const chunk = ids.slice(index * batch, (index + 1) * batch);
      return applyBatch(
        trx,
        { findingIds: chunk },
        { from: chunk[0]!, to: chunk[chunk.length - 1]! + 1 },
        now,
      );
    },
    (result) => addResult(total, result),
  );
  return total;
}
