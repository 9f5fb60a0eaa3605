import { sql, type Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import { arrayLiteral, type MergeTarget } from './merge/target.ts';
import { insertStaged } from './merge/insert.ts';
import { type MergedAhead } from './merge/candidates.ts';
import type { DirectFindings } from './finding-copy-rows.ts';
import type { AfterCopy, StageResult } from './stage.ts';
import { rowKeysLiteral, stagedRowKey } from './staged-row-key.ts';
import { matchTwins, type StagedTwin } from './merge/identical-findings.ts';
import { mergeTarget, type OpenedScan, type StagedUpload } from './merge/upload-scan.ts';

/**
 * A version's first upload, inserted while its file is parsed (PostgreSQL: landing/postgres-one-transaction.ts;
 * PGlite: landing/pglite-first-upload.ts). Into a version without findings nothing can be absent, matched
 * or reopened, so the merge is its inserts. Identity is the merge's: one finding per fingerprint, the
 * first in report order, twins (one base on several lines) told apart by line.
 *
 * Most rows are the first of their identity base and known to be (the staging thread's filter has
 * no false negatives: `maybe_repeat` false). Those are copied straight into `findings` as they are
 * parsed (`StagingTarget.direct`); only the others are staged: repeats and the filter's rare false
 * alarms. Every `batchRows` rows, a batch inserts its staged rows' firsts per fingerprint, skipping
 * fingerprints already in; staged twins wait until every row is in (`insertStagedTwins`).
 *
 * Staged, then inserted, every row went through PostgreSQL twice: a 100k upload's PGlite session
 * spent 1.7–1.9 s on COPY into staging before its 4.9–5.0 s of inserts, PostgreSQL ~0.5 s.
 *
 * Both read the upload's staged rows in `target.staging` under `target.uploadKey`: on PostgreSQL the
 * transaction's own table, on PGlite the shared one.
 */

/** How one engine runs a first upload's steps (see `insertWhileStaging`). */
export interface FirstUploadSteps {
  /** Stages the upload, its certain firsts copied as `direct` findings, calling `afterCopy` after each chunk. */
  stage(afterCopy: AfterCopy, direct: DirectFindings): Promise<StageResult>;
  /** Runs one step: in the upload's transaction (PostgreSQL), or in one of its own (PGlite). */
  step<T>(work: (trx: Transaction<DB>) => Promise<T>): Promise<T>;
}

/**
 * Stages a version's first upload, inserting its findings every `batchRows` staged rows while the
 * parse goes on, then its repeated twins; returns what its settle needs.
 */
export async function insertWhileStaging(
  steps: FirstUploadSteps,
  provisional: StagedUpload,
  opened: OpenedScan,
  batchRows: number,
): Promise<{ parsed: StagedUpload; opened: OpenedScan; ahead: MergedAhead }> {
  let inserted = 0;
  let batched = 0;
  const insertBatch = async (to: number) => {
    inserted += await steps.step((trx) => insertFirstUploadBatch(trx, opened.target, batched, to));
    batched = to;
  };
  const direct = await steps.step((trx) => directFindings(trx, opened.target));
  const staged = await steps.stage(async (rowsStaged) => {
    if (rowsStaged - batched >= batchRows) await insertBatch(rowsStaged);
  }, direct);
  if (staged.findingsCount > batched) await insertBatch(staged.findingsCount);
  inserted += staged.directRows;

  const parsed: StagedUpload = { ...provisional, staged };
  const target = mergeTarget(parsed, opened, opened.target.assetWeight, opened.target.slaDays);
  inserted += await steps.step((trx) => insertStagedTwins(trx, target));
  // Every distinct fingerprint staged was new: the version had none.
  const ahead = { inserted, candidates: { gone: [], matched: [] }, fingerprints: inserted };
  return { parsed, opened: { ...opened, target }, ahead };
}

/** Where the upload's certain firsts go, with the transaction's `now()` for their timestamps. */
async function directFindings(trx: Transaction<DB>, target: MergeTarget): Promise<DirectFindings> {
  const { rows } = await sql<{ now: string }>`
    select (extract(epoch from now()) * 1000000)::bigint::text as now`.execute(trx);
  const { applicationId, versionId, scannerTypeId, scanId, assetWeight, slaDays } = target;
  return {
    applicationId,
    versionId,
    scannerTypeId,
    scanId,
    assetWeight,
    slaDays,
    nowMicros: Number(rows[0]?.now),
  };
}

/**
 * Inserts the findings of the staged rows `from` ≤ seq < `to` that are no twins: the first in report
 * order of each fingerprint not in yet; returns how many. Staged rows are the ones the staging
 * thread flagged (`maybe_repeat`): repeats, and its filter's rare false alarms. Every row certainly
 * first of its fingerprint was copied into `findings` before the batch that covers it (each chunk's
 * findings are written before its staging rows, and batches end on chunks), so a repeat finds its
 * first in and is skipped. Only the narrow (fingerprint, seq) pairs are sorted: sorting whole rows
 * spilled to disk.
 */
export async function insertFirstUploadBatch(
  trx: Transaction<DB>,
  target: MergeTarget,
  from: number,
  to: number,
): Promise<number> {
  const rows = sql.table(target.staging);
  const batch = sql`upload_key = ${target.uploadKey} and seq >= ${from} and seq < ${to}`;
  const firstOfEach = sql`(select * from ${rows} where ${batch} and seq in (
    select distinct on (fingerprint) seq from ${rows} where ${batch} and not twin_ordinal
    order by fingerprint, seq))`;
  return insertStaged(trx, target, firstOfEach, 'probe');
}

/**
 * The staged twins (twin rows the staging thread flagged: later rows of a base, or its filter's
 * false alarms), inserted once every row is in; returns how many findings it inserted. A base's
 * group is its staged rows and, when its first row was copied into `findings`, that finding (its
 * fingerprint still the base): first in report order, so before every staged row of its line. With
 * nothing stored to match, `matchTwins` gives the group its fingerprints by line; the copied finding
 * takes its own, the staged rows are inserted with theirs.
 */
export async function insertStagedTwins(trx: Transaction<DB>, target: MergeTarget): Promise<number> {
  const { twinBases, uploadKey, versionId } = target;
  if (twinBases !== null && twinBases.length === 0) return 0;
  const rows = sql.table(target.staging);
  // A twin is staged under its base as fingerprint: looked up by its row key, where the table has
  // that index (PGlite's shared table: 0.2 s of a 100k upload by the upload's seq index instead).
  const twins =
    twinBases === null
      ? sql`upload_key = ${uploadKey} and twin_ordinal`
      : sql`${stagedRowKey('s')} = any(${rowKeysLiteral(uploadKey, twinBases)}::text[]) and twin_ordinal`;
  const staged = await sql<StagedTwin & { base: string }>`
    select base, seq, line, "column" from ${rows} s where ${twins}`.execute(trx);
  if (staged.rows.length === 0) return 0;
  const bases = [...new Set(staged.rows.map((row) => row.base))];
  const copied = await sql<StagedTwin & { base: string }>`
    select identity_base as base, -1 as seq, line, "column" from findings
    where version_id = ${versionId} and fingerprint = any(${arrayLiteral(bases)}::text[])`.execute(trx);
  const groups = new Map<string, StagedTwin[]>();
  for (const { base, ...member } of [...copied.rows, ...staged.rows]) {
    const group = groups.get(base);
    if (group) group.push(member);
    else groups.set(base, [member]);
  }
  const renamed: { base: string; fingerprint: string }[] = [];
  const assigned: { seq: number; fingerprint: string }[] = [];
  for (const [base, members] of groups) {
    for (const [seq, fingerprint] of matchTwins(base, members, [])) {
      if (seq >= 0) assigned.push({ seq, fingerprint });
      else if (fingerprint !== base) renamed.push({ base, fingerprint });
    }
  }
  if (renamed.length > 0) {
    await sql`update findings f set fingerprint = a.fingerprint
      from json_to_recordset(${JSON.stringify(renamed)}::json) as a(base text, fingerprint text)
      where f.version_id = ${versionId} and f.fingerprint = a.base`.execute(trx);
  }
  await sql`update ${rows} u set fingerprint = a.fingerprint
    from json_to_recordset(${JSON.stringify(assigned)}::json) as a(seq integer, fingerprint text)
    where u.upload_key = ${uploadKey} and u.seq = a.seq`.execute(trx);
  const seqs = arrayLiteral(assigned.map((member) => member.seq));
  const source = sql`(select * from ${rows} where upload_key = ${uploadKey} and seq = any(${seqs}::integer[]))`;
  // Each fingerprint a group was given is new: nothing else in the version has the group's base.
  return insertStaged(trx, target, source, 'none');
}
