import { sql, type RawBuilder, type Transaction } from 'kysely';
import type { CopyTable } from '../db/database.ts';
import type { DB, SeverityName } from '../db/schema.ts';
import {
  closeOnAbsence,
  isFixed,
  isInherited,
  NEW_STATUS,
  reopen,
  type FindingStatus,
} from '../domain/findings/lifecycle.ts';
import { publishEvents } from '../events/events.ts';
import { dueDateSql, RISK_FORMULA_VERSION, riskScoreSql } from '../domain/findings/risk.ts';
import {
  COMPARED_FINDING_COLUMNS,
  COMPUTED_FINDING_COLUMNS,
  RECOMPUTED_FINDING_COLUMNS,
  STAGED_FINDING_COLUMNS,
  stagedNameOf,
  UPLOADED_FINDING_COLUMNS,
  type ComputedFindingColumn,
  type RecomputedFindingColumn,
} from '../domain/findings/columns.ts';
import { changeStatus, type StatusMove } from '../domain/findings/status.ts';
import { recordTimeline, type TimelineEntry } from '../domain/findings/timeline.ts';
import type { UploadScope } from './stage.ts';
import { rowKeyOf, stagedRowKey } from './staged-row-key.ts';
import { assignTwinFingerprints } from './twins.ts';

export interface MergeTarget {
  uploadKey: string;
  /**
   * Where its rows are staged: the shared `ingest_staging`, or the merge transaction's own table
   * (landing/postgres-one-transaction.ts), which holds only this upload's rows.
   */
  staging: CopyTable;
  applicationId: number;
  versionId: number;
  scannerTypeId: number;
  scanId: number;
  /** M of the risk formula for this application's asset criticality. */
  assetWeight: number;
  /**
   * The scopes this upload speaks for: findings of the version in one of them that the upload does
   * not report are absent (fixed). `toolName` null stands for every tool of the scanner type (the
   * empty report of a native format, whose tool is the scanner).
   */
  scopes: UploadScope[];
  /** `partial=true`: absence closes only findings in the files the upload covers. */
  partial: boolean;
  /** Files a partial upload covers besides its results' files (SARIF `artifacts`). */
  coveredFiles: string[];
  /** Identity bases that may repeat among the staged twins (`StageResult`); null: any may. */
  twinBases: readonly string[] | null;
  /** Rows the upload staged. */
  stagedRows: number;
  /** Of those, rows told apart by line (`StageResult.twinRows`). */
  twinRows: number;
}

export interface MergeCounts {
  new: number;
  existing: number;
  fixed: number;
  reopened: number;
  inherited: number;
  /** Matched findings whose location, text or severity the upload updated. */
  updated: number;
}

const INGEST: TimelineEntry['actor'] = { system: 'ingest' };

/** Staged rows in report order: `seq` from `from` (inclusive) to `to` (exclusive). */
export interface StagedRange {
  from: number;
  to: number;
}

/**
 * The staged rows of this upload (or of a range of them), one per fingerprint. Twins got distinct
 * fingerprints (twins.ts), so only results that are not told apart by line (a secret reported twice
 * by its hash) can repeat one: of those the first in report order is taken, so the same report
 * always gives the same values. A range holds the first row of each of its fingerprints that no
 * earlier range holds, and the insert skips fingerprints the version has (`probe`), so ranges
 * inserted in order keep that rule.
 *
 * A row the staging thread knows to be the first of its fingerprint (`maybe_repeat` false: its
 * filter has no false negatives, stage.ts) is taken as it is. Only the others, repeats and the
 * filter's rare false alarms, are sorted, and only by (fingerprint, seq): one of them is taken when
 * no first row has its fingerprint. Sorting every whole row, as this did, took an identical 100k
 * re-upload's comparison 0.58–0.62 s instead of 0.43–0.48 s (`psql`, the sort spilling 78 MB to
 * disk).
 */
const staged = (target: Pick<MergeTarget, 'uploadKey' | 'staging'>, range?: StagedRange) => {
  const rows = sql.table(target.staging);
  const inRange = range
    ? sql`upload_key = ${target.uploadKey} and seq >= ${range.from} and seq < ${range.to}`
    : sql`upload_key = ${target.uploadKey}`;
  const unsure = sql`${inRange} and not twin_ordinal and maybe_repeat`;
  return sql`(select * from ${rows} where ${inRange} and (twin_ordinal or not maybe_repeat)
    union all
    select * from ${rows} where ${unsure} and seq in (
      select distinct on (fingerprint) seq from ${rows} r where ${unsure}
        and not exists (select 1 from ${rows} first where first.upload_key = ${target.uploadKey}
          and first.fingerprint = r.fingerprint and not first.twin_ordinal and not first.maybe_repeat)
      order by fingerprint, seq))`;
};

/** Ranges of `rowsPerRange` of `stagedRows` staged rows (seq 0 to stagedRows − 1), at least one. */
export function stagedRanges(stagedRows: number, rowsPerRange: number): StagedRange[] {
  const count = Math.max(1, Math.ceil(stagedRows / rowsPerRange));
  return Array.from({ length: count }, (_, index) => ({
    from: index * rowsPerRange,
    to: Math.min((index + 1) * rowsPerRange, stagedRows),
  }));
}

/**
 * The compared columns of a finding (`f`) or of its staged row (`s`, `m`), as one row value: where a
 * matched finding is and what it says (domain/findings/columns.ts, `upload: 'compared'`).
 */
const comparedColumns = (alias: string, staged: boolean) =>
  sql.join(
    COMPARED_FINDING_COLUMNS.map((column) => sql.ref(`${alias}.${staged ? stagedNameOf(column) : column}`)),
  );

/**
 * What a matched finding takes from its staged row `m`: the uploaded columns as staged, and those
 * recomputed from them (domain/findings/columns.ts, `upload`).
 */
const uploadedSet = (m: string) => {
  const recomputed: Record<RecomputedFindingColumn, RawBuilder<unknown>> = {
    cwe_id: sql`${sql.ref(`${m}.cwe_ids`)}[1]`,
    risk_score: riskScoreSql({
      severity: sql.ref(`${m}.risk_severity`),
      exploitation: sql.ref('f.risk_exploitation'),
      age: sql.ref('f.risk_age'),
      asset: sql.ref('f.risk_asset'),
    }),
  };
  return sql.join([
    ...UPLOADED_FINDING_COLUMNS.map(
      (column) => sql`${sql.ref(column)} = ${sql.ref(`${m}.${stagedNameOf(column)}`)}`,
    ),
    ...RECOMPUTED_FINDING_COLUMNS.map((column) => sql`${sql.ref(column)} = ${recomputed[column]}`),
  ]);
};

/** A partial upload closes only findings in the files of its results and its declared artifacts. */
const coveredBy = (target: MergeTarget) => sql`and f.file_path in (
  select file_path from ${sql.table(target.staging)} where upload_key = ${target.uploadKey} and file_path is not null
  union select json_array_elements_text(${JSON.stringify(target.coveredFiles)}::json))`;

type StatusRow = { id: number; from_status: FindingStatus; to_status: FindingStatus };

/** Rows the merge moved, as moves for changeStatus. */
const movesOf = <Row extends StatusRow>(
  rows: Row[],
  target: MergeTarget,
  detail?: (row: Row) => Record<string, unknown>,
): StatusMove[] =>
  rows.map((row) => ({
    findingId: row.id,
    applicationId: target.applicationId,
    from: row.from_status,
    to: row.to_status,
    ...(detail ? { detail: detail(row) } : {}),
  }));

/**
 * Step 3 of the merge: inserts the staged rows (or a range of them) whose fingerprint the version
 * does not have yet, inheriting nothing yet; returns how many. PGlite calls it chunk by chunk in
 * transactions of their own (pipeline.ts), before the rest of the merge.
 */
export function insertNewFindings(
  trx: Transaction<DB>,
  target: MergeTarget,
  range?: StagedRange,
): Promise<number> {
  return insertStaged(trx, target, staged(target, range), range === undefined ? 'join' : 'probe');
}

/**
 * How an insert keeps out the fingerprints the version has: `probe` looks each staged row's up in
 * the unique index (a slice of the upload), `join` lets the planner join (the whole upload), `none`
 * checks nothing, for rows known to be new (the first of their fingerprint in a version's first
 * upload: landing/postgres-one-transaction.ts).
 */
export type ExistingCheck = 'probe' | 'join' | 'none';

/**
 * Inserts the rows of `source` (staged rows, at most one per fingerprint) whose fingerprint the
 * version does not have yet, checked as `existing` says; returns how many.
 */
export async function insertStaged(
  trx: Transaction<DB>,
  target: MergeTarget,
  source: RawBuilder<unknown>,
  existing: ExistingCheck,
): Promise<number> {
  // No `on conflict`: the version's advisory lock (pipeline.ts) serializes merges, so `not exists`
  // is exact, and a speculative insert cost 10% of the merge of a 100k upload.
  // A slice probes the unique index once per staged row (`offset 0` keeps the subquery from
  // becoming a join): planned as an anti-join instead, each range hashed every finding of the
  // version inserted so far, whenever the statistics predated them (analyzed after an earlier
  // upload, before this version had findings), and the 100 ranges of a 100k upload took 13 minutes.
  // One statement over the whole upload (PostgreSQL) keeps the planner's join.
  const computed: Record<ComputedFindingColumn, RawBuilder<unknown>> = {
    application_id: sql`${target.applicationId}`,
    version_id: sql`${target.versionId}`,
    scanner_type_id: sql`${target.scannerTypeId}`,
    first_scan_id: sql`${target.scanId}`,
    last_scan_id: sql`${target.scanId}`,
    cwe_id: sql`s.cwe_ids[1]`,
    risk_age: sql`0`,
    risk_asset: sql`${target.assetWeight}`,
    risk_score: riskScoreSql({
      severity: sql.ref('s.risk_severity'),
      exploitation: sql.ref('s.risk_exploitation'),
      age: sql.lit(0),
      asset: sql`${target.assetWeight}`,
    }),
    risk_formula_version: sql.lit(RISK_FORMULA_VERSION),
    due_date: dueDateSql(sql.ref('s.severity')),
  };
  // The columns the insert gives a value (the registry's staged and computed ones; the insert's
  // time is the columns' default).
  const columns = [...STAGED_FINDING_COLUMNS, ...COMPUTED_FINDING_COLUMNS];
  const values = [
    ...STAGED_FINDING_COLUMNS.map((column) => sql.ref(`s.${stagedNameOf(column)}`)),
    ...COMPUTED_FINDING_COLUMNS.map((column) => computed[column]),
  ];
  const inserted = await sql`
    insert into findings (${sql.join(columns.map((column) => sql.ref(column)))})
    select ${sql.join(values)}
    from ${source} s
    ${
      existing === 'none'
        ? sql``
        : sql`where not exists (select 1 from findings f
            where f.version_id = ${target.versionId} and f.fingerprint = s.fingerprint
            ${existing === 'probe' ? sql`offset 0` : sql``})`
    }`.execute(trx);

  return Number(inserted.numAffectedRows ?? 0n);
}

/**
 * An array literal as one text parameter, the same on both drivers: for integers and hex digests
 * (fingerprints, identity bases), which need no quoting inside it.
 */
export const arrayLiteral = (items: readonly (number | string)[]): string => `{${items.join(',')}}`;
const idArray = arrayLiteral;

const scopesJson = (target: MergeTarget) =>
  JSON.stringify(target.scopes.map((scope) => ({ tool_name: scope.toolName, category: scope.category })));

/**
 * Whether a finding `f` of the version is in one of the upload's scopes, present, and (a partial
 * upload) in a file it covers: absent, then, unless the upload reports it.
 */
const closableByUpload = (
  target: MergeTarget,
) => sql`f.scanner_type_id = ${target.scannerTypeId} and f.present
    and exists (select 1 from json_to_recordset(${scopesJson(target)}::json) as scope(tool_name text, category text)
      where (scope.tool_name is null or scope.tool_name = f.tool_name) and scope.category = f.category)
    ${target.partial ? coveredBy(target) : sql``}`;

/**
 * Step 1's findings: present in one of the upload's scopes, not reported by it (a partial upload:
 * only in the files it covers), with their scope's last sighting. `among`: a narrower set.
 * `hashed`: planned by `hashJoined`, which probes no index, so the staged rows are matched by their
 * columns, quicker to hash than their key: a 100k re-upload's candidates took 2.1–2.4 s by the key
 * against 1.5–2.0 s by the columns (PGlite, three alternating pairs, a slow hour).
 */
const goneRows = (target: MergeTarget, among: RawBuilder<unknown>, hashed = false) => sql`
  select f.id, f.status, fs.last_seen_at, fs.last_scan_id from findings f
  left join finding_scopes fs on fs.version_id = f.version_id and fs.scanner_type_id = f.scanner_type_id
    and fs.tool_name = f.tool_name and fs.category = f.category
  where f.version_id = ${target.versionId} and ${closableByUpload(target)}
    and not exists (select 1 from ${sql.table(target.staging)} s
      where ${
        hashed
          ? sql`s.upload_key = ${target.uploadKey} and s.fingerprint = f.fingerprint`
          : sql`${stagedRowKey('s')} = ${rowKeyOf(target.uploadKey, sql.ref('f.fingerprint'))}`
      })
    ${among}`;

/** A matched finding `f` the merge writes: absent, fixed, or unlike its staged row `s` now. */
const changedFromStaged = sql`(not f.present or ${isFixed(sql.ref('f.status'))}
  or (${comparedColumns('f', false)}) is distinct from (${comparedColumns('s', true)}))`;

/** Step 2's findings: reported again, and absent, fixed, or somewhere or something else now. */
const matchedRows = (target: MergeTarget, among: readonly number[] | undefined) => {
  if (among !== undefined) {
    return sql`select f.id, f.status, f.severity as old_severity, f.present, s.*
      from findings f join ${staged(target)} s on ${stagedRowKey('s')} = ${rowKeyOf(target.uploadKey, sql.ref('f.fingerprint'))}
      where f.version_id = ${target.versionId} and f.id = any(${idArray(among)}::integer[]) and ${changedFromStaged}`;
  }
  // Every staged row looks its finding up in the unique index (`offset 0` keeps the lateral join
  // from being flattened). Left to the planner, stale statistics of the version (PGlite, before
  // its maintenance job) put the findings first and read every staged row once per finding: an
  // identical re-upload of 5k secrets took 48 s.
  return sql`select f.id, f.status, f.severity as old_severity, f.present, s.*
    from ${staged(target)} s
    join lateral (select * from findings f
      where f.version_id = ${target.versionId} and f.fingerprint = s.fingerprint offset 0) f on true
    where ${changedFromStaged}`;
};

/** Whether another version of the application has findings triaged as confirmed or false positive. */
async function triagedElsewhere(trx: Transaction<DB>, target: MergeTarget): Promise<boolean> {
  const { rows } = await sql<{ found: boolean }>`select exists (select 1 from findings
    where application_id = ${target.applicationId} and ${isInherited(sql.ref('status'))}
      and version_id <> ${target.versionId}) as found`.execute(trx);
  return rows[0]?.found === true;
}

/** Findings steps 1 and 2 would write, found before the new ones are inserted (PGlite, in chunks). */
export interface MergeCandidates {
  gone: number[];
  matched: number[];
}

/** What a chunked merge did before its last transaction. */
export interface MergedAhead {
  /** Findings inserted by step 3. */
  inserted: number;
  candidates: MergeCandidates;
  /** Distinct fingerprints staged (`countStagedFingerprints`). */
  fingerprints: number;
}

const idsOf = async (trx: Transaction<DB>, rows: RawBuilder<unknown>): Promise<number[]> =>
  (await sql<{ id: number }>`select id from (${rows}) as candidates`.execute(trx)).rows.map((row) => row.id);

/**
 * From this many staged rows an upload is large: steps 1–3 first find their rows with hash joins
 * (PostgreSQL: `compareLargeUpload`; PGlite: `mergeCandidates`), then write only those. Right after a large upload the version's statistics
 * still describe it as it was (the analyze job follows the commit), and the planner, expecting a few
 * hundred findings, probed an index once per row: an identical 100k re-upload spent 0.71 s finding
 * none absent and 0.6 s finding none new. An upload this large is compared with about as many
 * findings, which a hash join serves best whatever the statistics say.
 */
const LARGE_UPLOAD_ROWS = 10_000;

/**
 * `query` planned without nested loops, with memory enough to hash a large version's findings at
 * once (with the default 4 MB, 100k findings spilled to disk in 16 batches); only it, so the writes
 * and their triggers keep their plans.
 */
async function hashJoined<T>(trx: Transaction<DB>, query: () => Promise<T>): Promise<T> {
  await sql`set local enable_nestloop = off`.execute(trx);
  await sql`set local work_mem = '64MB'`.execute(trx);
  const result = await query();
  await sql`set local enable_nestloop = default`.execute(trx);
  await sql`set local work_mem = default`.execute(trx);
  return result;
}

/** What a large upload's merge writes, found before it writes anything (`compareLargeUpload`). */
interface LargeUploadComparison {
  /** Step 1's findings. */
  gone: number[];
  /** Step 2's findings (reported again and changed). */
  matched: number[];
  /** Step 3's staged rows (one per new fingerprint). */
  fresh: { seq: number; fingerprint: string }[];
}

/**
 * Steps 1–3's rows of a large upload, by one hash join of the staged rows and the version's findings
 * (a full join): findings no staged row reports and the upload closes (absent ones), staged rows no
 * finding has (new ones), and pairs that differ (matched ones that changed). The writes then find
 * their rows by id, and are skipped when there are none: an identical 100k re-upload found none absent
 * in 0.2 s where the index probes took 0.71 s. Two joins, one for the absent findings and one for the
 * rest, took 0.61–0.64 s of an identical 100k re-upload where this takes 0.49 s (`psql`).
 */
async function compareLargeUpload(trx: Transaction<DB>, target: MergeTarget): Promise<LargeUploadComparison> {
  return hashJoined(trx, async () => {
    const { rows } = await sql<{ id: number | null; seq: number | null; fingerprint: string | null }>`
      select f.id, s.seq, s.fingerprint from ${staged(target)} s
      full join (select * from findings where version_id = ${target.versionId}) f on f.fingerprint = s.fingerprint
      where case when s.fingerprint is null then ${closableByUpload(target)}
        else f.id is null or ${changedFromStaged} end`.execute(trx);
    const comparison: LargeUploadComparison = { gone: [], matched: [], fresh: [] };
    // One side of each row is null: the staged row's (absent), the finding's (new), or neither.
    for (const { id, seq, fingerprint } of rows) {
      if (id === null) {
        if (seq !== null && fingerprint !== null) comparison.fresh.push({ seq, fingerprint });
      } else if (seq === null) comparison.gone.push(id);
      else comparison.matched.push(id);
    }
    return comparison;
  });
}

/** Step 3 of a large upload: its new rows, as `compareLargeUpload` found them; the insert still checks each. */
async function insertFresh(
  trx: Transaction<DB>,
  target: MergeTarget,
  fresh: LargeUploadComparison['fresh'],
): Promise<number> {
  if (fresh.length === 0) return 0;
  const fingerprints = arrayLiteral(fresh.map((row) => row.fingerprint));
  const seqs = idArray(fresh.map((row) => row.seq));
  return insertStaged(
    trx,
    target,
    sql`(select * from ${sql.table(target.staging)} where upload_key = ${target.uploadKey}
      and fingerprint = any(${fingerprints}::text[]) and seq = any(${seqs}::integer[]))`,
    'probe',
  );
}

/** Whether the version has any finding (any status, present or not). */
export async function versionHasFindings(trx: Transaction<DB>, versionId: number): Promise<boolean> {
  const { rows } = await sql<{ found: boolean }>`
    select exists (select 1 from findings where version_id = ${versionId}) as found`.execute(trx);
  return rows[0]?.found === true;
}

/**
 * Distinct fingerprints of the upload (after the twins got theirs): its new and existing findings.
 * Every twin row has a fingerprint of its own (twins.ts gives each group's members distinct ones,
 * and no other identity shares a twin's base), so only the others are counted, through their
 * partial index: `count(distinct)` over every staged row took 150 ms of a 100k upload.
 */
export async function countStagedFingerprints(
  trx: Transaction<DB>,
  uploadKey: string,
  twinRows: number,
  staging: CopyTable = 'ingest_staging',
): Promise<number> {
  const { rows } = await sql<{ staged: number }>`
    select count(distinct fingerprint)::integer as staged from ${sql.table(staging)}
    where upload_key = ${uploadKey} and not twin_ordinal`.execute(trx);
  return twinRows + (rows[0]?.staged ?? 0);
}

/**
 * The findings steps 1 and 2 would write now. Run under the version's merge lock before any new
 * finding is inserted, the last transaction then only re-checks these instead of every finding of
 * the version, new ones included (100k new findings: 4 s of PGlite's one session, down to none).
 * What makes a finding a candidate (presence, fingerprint, scope, location, text, severity) only
 * merges change, and they wait for the lock; a triage to `fixed` in between is taken as made after.
 */
export async function mergeCandidates(trx: Transaction<DB>, target: MergeTarget): Promise<MergeCandidates> {
  const ids = (rows: RawBuilder<unknown>) => idsOf(trx, rows);
  const find = async (hashed: boolean) => ({
    gone: await ids(goneRows(target, sql``, hashed)),
    matched: await ids(matchedRows(target, undefined)),
  });
  // A large upload into a version whose statistics predate its last large upload (PGlite analyzes
  // in a job after the answer; an upload that reaches this step first plans on the old ones): the
  // absent findings, planned as a loop over a version thought nearly empty, took 489 s of a 100k
  // re-upload. Hash joins serve any statistics (`hashJoined`), as on PostgreSQL.
  return target.stagedRows >= LARGE_UPLOAD_ROWS ? hashJoined(trx, () => find(true)) : find(false);
}

/**
 * Merges one staged upload into the version's findings, set-wise in SQL (no per-finding queries),
 * writing only the findings whose presence, status or content changes:
 * 0. twins (one identity on several lines) get the fingerprints of their nearest stored findings;
 * 1. present findings of this upload's scopes that it no longer reports stop being present
 *    (open/confirmed ones become `fixed`, as GitHub closes alerts), keeping the scope's last sighting;
 *    a partial upload closes only those in the files it covers;
 * 2. matched findings take the upload's location, text and severity where they differ; those
 *    absent or `fixed` are present and open again;
 * 3. new fingerprints are inserted (the unique (version, fingerprint) index makes concurrent
 *    uploads unable to create twins), inheriting triage from other versions;
 * 4. the scopes record this scan as their latest sighting — the "last seen" of every present finding.
 * Timeline entries (status and severity changes) and outbox events are written in the same transaction.
 *
 * `ahead`: the twins were assigned, steps 1–2's candidates found and step 3 done beforehand, in
 * chunks (PGlite). Inserting before steps 1–2 changes nothing: new fingerprints are staged, so never
 * absent, and were inserted from their staged row, so never differ from it.
 */
export async function mergeStaged(
  trx: Transaction<DB>,
  target: MergeTarget,
  ahead?: MergedAhead,
): Promise<MergeCounts> {
  const { uploadKey, versionId, scanId } = target;
  // A version's first upload finds none of its fingerprints stored: each distinct one is inserted,
  // so the new findings are all it staged, without counting them again (150 ms of a 100k upload).
  const firstInVersion = ahead === undefined && !(await versionHasFindings(trx, versionId));
  if (ahead === undefined) {
    await assignTwinFingerprints(trx, uploadKey, versionId, target.twinBases, target.staging);
  }
  const among = (ids: readonly number[] | undefined) =>
    ids === undefined ? sql`` : sql`and f.id = any(${idArray(ids)}::integer[])`;
  const noRows = { rows: [] };
  const large =
    ahead === undefined && target.stagedRows >= LARGE_UPLOAD_ROWS
      ? await compareLargeUpload(trx, target)
      : undefined;
  const goneAmong = ahead?.candidates.gone ?? large?.gone;

  const absent = closeOnAbsence(sql.ref('f.status'), sql.ref('f.fixed_at'));
  const gone =
    goneAmong?.length === 0
      ? noRows
      : await sql<StatusRow>`
    with gone as (${goneRows(target, among(goneAmong))} for update of f)
    update findings f
    set present = false,
      last_seen_at = coalesce(gone.last_seen_at, f.last_seen_at),
      last_scan_id = coalesce(gone.last_scan_id, f.last_scan_id),
      status = ${absent.status}, fixed_at = ${absent.fixedAt},
      updated_at = now()
    from gone where f.id = gone.id
    returning f.id, gone.status as from_status, f.status as to_status`.execute(trx);
  const fixed = gone.rows.filter((row) => row.from_status !== row.to_status);

  // Matched findings: back if absent or fixed, and showing where they are now. Only rows where
  // something differs are written, so an identical re-upload writes none.
  const matchedAmong = ahead?.candidates.matched ?? large?.matched;
  const matched =
    matchedAmong?.length === 0
      ? noRows
      : await sql<StatusRow & { from_severity: SeverityName; to_severity: SeverityName }>`
    with m as (${matchedRows(target, matchedAmong)} for update of f)
    update findings f
    set present = true,
      status = ${reopen(sql.ref('f.status'))},
      fixed_at = case when ${isFixed(sql.ref('f.status'))} or not f.present then null else f.fixed_at end,
      last_seen_at = now(), last_scan_id = ${scanId}, updated_at = now(), ${uploadedSet('m')}
    from m where f.id = m.id
    returning f.id, m.status as from_status, f.status as to_status, m.old_severity as from_severity,
      f.severity as to_severity`.execute(trx);
  const reopened = matched.rows.filter((row) => row.from_status !== row.to_status);
  const severityChanged = matched.rows.filter((row) => row.from_severity !== row.to_severity);

  const newCount =
    ahead?.inserted ??
    (large ? await insertFresh(trx, target, large.fresh) : await insertNewFindings(trx, target));

  // Triage made in another version of the application carries over to the same finding here:
  // one set-wise join from this upload's new findings to the other versions' triaged ones.
  // The join only runs when another version has triage to give: most uploads, none at all.
  const inherited = (await triagedElsewhere(trx, target))
    ? await sql<StatusRow & { source_finding_id: number; source_version_id: number }>`
    select n.id, n.status as from_status, o.status as to_status, o.id as source_finding_id,
      o.version_id as source_version_id
    from findings n
    join (
      select distinct on (fingerprint) id, fingerprint, status, version_id
      from findings
      where application_id = ${target.applicationId} and version_id <> ${versionId}
        and ${isInherited(sql.ref('status'))}
      order by fingerprint, updated_at desc
    ) o on n.fingerprint = o.fingerprint
    where n.first_scan_id = ${scanId} and n.version_id = ${versionId} and n.status = ${sql.lit(NEW_STATUS)}`.execute(
        trx,
      )
    : noRows;

  const namedScopes = target.scopes.filter((scope) => scope.toolName !== null);
  if (namedScopes.length > 0) {
    await sql`
      insert into finding_scopes (version_id, scanner_type_id, tool_name, category, last_scan_id, last_seen_at)
      select ${versionId}::integer, ${target.scannerTypeId}::integer, x.tool_name, x.category, ${scanId}::integer, now()
      from json_to_recordset(${JSON.stringify(namedScopes.map((scope) => ({ tool_name: scope.toolName, category: scope.category })))}::json)
        as x(tool_name text, category text)
      on conflict (version_id, scanner_type_id, tool_name, category)
      do update set last_scan_id = excluded.last_scan_id, last_seen_at = excluded.last_seen_at`.execute(trx);
  }

  const stagedCount =
    ahead?.fingerprints ??
    (firstInVersion
      ? newCount
      : await countStagedFingerprints(trx, uploadKey, target.twinRows, target.staging));

  // New findings are announced by one outbox row per upload (data.first_scan_id names them):
  // a 100k-finding upload must not write 100k event rows in its transaction.
  if (newCount > 0) {
    await publishEvents(trx, [
      {
        type: 'finding.created',
        applicationId: target.applicationId,
        scanId,
        data: { count: newCount, first_scan_id: scanId, version_id: versionId },
      },
    ]);
  }
  // Fixed and reopened statuses were set above together with presence and content (one pass
  // each), so changeStatus records those moves; inherited triage it writes itself.
  const moved = { actor: INGEST, scanId, statusWritten: true } as const;
  await changeStatus(trx, movesOf(reopened, target), { ...moved, reason: 'reopened' });
  await changeStatus(
    trx,
    movesOf(inherited.rows, target, (row) => ({
      source_finding_id: row.source_finding_id,
      source_version_id: row.source_version_id,
    })),
    { actor: INGEST, scanId, reason: 'inherited' },
  );
  await changeStatus(trx, movesOf(fixed, target), { ...moved, reason: 'fixed' });
  await recordTimeline(
    trx,
    severityChanged.map((row) => ({
      findingId: row.id,
      type: 'severity_changed',
      actor: INGEST,
      scanId,
      detail: { from: row.from_severity, to: row.to_severity },
    })),
  );

  return {
    new: newCount,
    existing: stagedCount - newCount,
    fixed: fixed.length,
    reopened: reopened.length,
    inherited: inherited.rows.length,
    updated: matched.rows.length,
  };
}
