import { sql, type Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import { arrayLiteral, insertStaged, type MergedAhead, type MergeTarget } from './merge.ts';
import type { AfterCopy, StageResult } from './stage.ts';
import { rowKeysLiteral, stagedRowKey } from './staged-row-key.ts';
import { matchTwins, type StagedTwin } from './twins.ts';
import { mergeTarget, type OpenedScan, type StagedUpload } from './upload-merge.ts';

/**
 * A version's first upload, inserted batch by batch while its file is parsed (PostgreSQL:
 * upload-in-transaction.ts; PGlite: chunked-first-upload.ts). Into a version without findings
 * nothing can be absent, matched or reopened, so the merge is its inserts. Identity is the merge's:
 * one finding per fingerprint, the first in report order (each batch takes its first per
 * fingerprint, and later batches skip fingerprints already inserted). Twins (one base on several
 * lines) are told apart only once every row is in (`reinsertRepeatedTwins`).
 *
 * Both read the upload's rows in `target.staging` under `target.uploadKey`: on PostgreSQL the
 * transaction's own table, on PGlite the shared one.
 */

/** How one engine runs a first upload's steps (see `insertWhileStaging`). */
export interface FirstUploadSteps {
  /** Stages the upload, calling `afterCopy` after each COPY. */
  stage(afterCopy: AfterCopy): Promise<StageResult>;
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
  const staged = await steps.stage(async (rowsStaged) => {
    if (rowsStaged - batched >= batchRows) await insertBatch(rowsStaged);
  });
  if (staged.findingsCount > batched) await insertBatch(staged.findingsCount);

  const parsed: StagedUpload = { ...provisional, staged };
  const target = mergeTarget(parsed, opened, opened.target.assetWeight);
  inserted += await steps.step((trx) => reinsertRepeatedTwins(trx, target));
  // Every distinct fingerprint staged was new: the version had none.
  const ahead = { inserted, candidates: { gone: [], matched: [] }, fingerprints: inserted };
  return { parsed, opened: { ...opened, target }, ahead };
}

/**
 * Inserts the findings of the staged rows `from` ≤ seq < `to`, the first in report order of each
 * fingerprint not inserted by an earlier batch; returns how many. The rows the staging thread knows
 * to be the first of their fingerprint in the upload (`maybe_repeat` false: its filter has no false
 * negatives) go in as they are: in a version that had no findings, nothing can be in their way. The
 * others, repeats and the filter's rare false alarms, then go the careful way: one per fingerprint,
 * only if no finding has it yet (this statement sees the first one's). Checking every row so took
 * a first upload's 20 batches of 5,000 rows 3.0–3.3 s of PostgreSQL's CPU instead of 2.2–2.4 s.
 */
export async function insertFirstUploadBatch(
  trx: Transaction<DB>,
  target: MergeTarget,
  from: number,
  to: number,
): Promise<number> {
  const rows = sql.table(target.staging);
  const batch = sql`upload_key = ${target.uploadKey} and seq >= ${from} and seq < ${to}`;
  const firsts = sql`(select * from ${rows} where ${batch} and not maybe_repeat)`;
  // Only the narrow (fingerprint, seq) pairs are sorted: sorting whole rows spilled to disk.
  const others = sql`(select * from ${rows} where ${batch} and seq in (
    select distinct on (fingerprint) seq from ${rows} where ${batch} and maybe_repeat
    order by fingerprint, seq))`;
  return (
    (await insertStaged(trx, target, firsts, 'none')) + (await insertStaged(trx, target, others, 'probe'))
  );
}

/**
 * Twins whose base repeats in the upload went in as one finding (the first) by their shared base.
 * Their groups are deleted (every finding of the version is this upload's), given their twin
 * fingerprints by `matchTwins` (with nothing stored to match, by line), and inserted again, every
 * member. Returns the net number of findings added.
 */
export async function reinsertRepeatedTwins(trx: Transaction<DB>, target: MergeTarget): Promise<number> {
  const { twinBases, uploadKey } = target;
  if (twinBases !== null && twinBases.length === 0) return 0;
  const rows = sql.table(target.staging);
  // A twin is staged under its base as fingerprint: looked up by its row key, where the table has
  // that index (PGlite's shared table: 0.2 s of a 100k upload by the upload's seq index instead).
  const twinsOf = (bases: readonly string[] | null) =>
    bases === null
      ? sql`upload_key = ${uploadKey} and twin_ordinal`
      : sql`${stagedRowKey('s')} = any(${rowKeysLiteral(uploadKey, bases)}::text[]) and twin_ordinal`;
  const repeated = await sql<{ base: string }>`
    select base from ${rows} s where ${twinsOf(twinBases)} group by base having count(*) > 1`.execute(trx);
  if (repeated.rows.length === 0) return 0;
  const bases = repeated.rows.map((row) => row.base);
  const removed = await sql`delete from findings
    where version_id = ${target.versionId} and identity_base = any(${arrayLiteral(bases)}::text[])`.execute(
    trx,
  );
  const members = await sql<StagedTwin & { base: string }>`
    select base, seq, line, "column" from ${rows} s where ${twinsOf(bases)}`.execute(trx);
  const groups = new Map<string, StagedTwin[]>();
  for (const { base, ...member } of members.rows) {
    const group = groups.get(base);
    if (group) group.push(member);
    else groups.set(base, [member]);
  }
  const assigned = [...groups].flatMap(([base, staged]) =>
    [...matchTwins(base, staged, [])].map(([seq, fingerprint]) => ({ seq, fingerprint })),
  );
  await sql`update ${rows} u set fingerprint = a.fingerprint
    from json_to_recordset(${JSON.stringify(assigned)}::json) as a(seq integer, fingerprint text)
    where u.upload_key = ${uploadKey} and u.seq = a.seq`.execute(trx);
  const seqs = arrayLiteral(members.rows.map((member) => member.seq));
  const source = sql`(select * from ${rows} where upload_key = ${uploadKey} and seq = any(${seqs}::integer[]))`;
  return (await insertStaged(trx, target, source, 'join')) - Number(removed.numAffectedRows ?? 0n);
}
