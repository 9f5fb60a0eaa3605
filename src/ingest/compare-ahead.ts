import { sql, type Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import {
  changedFromStaged,
  goneRows,
  hashJoined,
  idsOf,
  staged,
  type LargeUploadComparison,
  type MergeTarget,
} from './merge.ts';

/**
 * A later large upload on PostgreSQL compares its rows with the version's findings while the file
 * is still parsed, batch by batch, as a first upload inserts (upload-in-transaction.ts): the
 * comparison after the parse took an identical 100k re-upload 0.67–0.71 s, on its critical path,
 * while the database waited for the parse most of the time before. Early, only what cannot change
 * by the end is settled: rows that are the first of their fingerprint in the upload (`maybe_repeat`
 * false) and equal to the version's finding of that fingerprint, present and not fixed. At the end
 * (`compareSettledAhead`), a row counts as settled only if the twins left its fingerprint as it
 * was; everything else is compared as before, one staged row at a time.
 *
 * Nothing but this upload writes the columns compared, or presence, while it holds the version's
 * merge lock; a person or policy can still mark a settled finding fixed meanwhile, and those are
 * looked for again at the end.
 */

/** Prepares `upload_rows` and the transaction's own `upload_settled` for `settleAhead`. */
export async function prepareSettling(trx: Transaction<DB>): Promise<void> {
  await sql`create index on upload_rows (seq)`.execute(trx);
  await sql`create temp table upload_settled (seq integer not null, finding_id integer not null,
    fingerprint text collate "C" not null) on commit drop`.execute(trx);
}

/** Settles the rows `from` ≤ seq < `to` that are first of their fingerprint and equal to its finding. */
export async function settleAhead(
  trx: Transaction<DB>,
  versionId: number,
  from: number,
  to: number,
): Promise<void> {
  // One look-up in the unique index per row (`offset 0` keeps the lateral join from being
  // flattened): a batch is a few thousand rows of a version holding as many findings as the upload.
  await sql`insert into upload_settled (seq, finding_id, fingerprint)
    select s.seq, f.id, s.fingerprint from upload_rows s
    join lateral (select * from findings f
      where f.version_id = ${versionId} and f.fingerprint = s.fingerprint offset 0) f on true
    where s.seq >= ${from} and s.seq < ${to} and not s.maybe_repeat and not ${changedFromStaged}`.execute(
    trx,
  );
}

/** `compareLargeUpload` for an upload whose rows were partly settled by `settleAhead`. */
export async function compareSettledAhead(
  trx: Transaction<DB>,
  target: MergeTarget,
): Promise<LargeUploadComparison> {
  const gone = await hashJoined(trx, () => idsOf(trx, goneRows(target, sql``)));
  const unsettled = await sql<{ id: number | null; seq: number; fingerprint: string }>`
    select f.id, s.seq, s.fingerprint from ${staged(target)} s
    left join lateral (select * from findings f
      where f.version_id = ${target.versionId} and f.fingerprint = s.fingerprint offset 0) f on true
    where not exists (select 1 from upload_settled u where u.seq = s.seq and u.fingerprint = s.fingerprint)
      and (f.id is null or ${changedFromStaged})`.execute(trx);
  // Settled findings fixed since by hand or by a policy: reported again, they reopen.
  const fixedSince = await idsOf(
    trx,
    sql`select f.id from findings f join upload_settled u on u.finding_id = f.id
      join upload_rows s on s.seq = u.seq and s.fingerprint = u.fingerprint
      where f.version_id = ${target.versionId} and f.status = 'fixed'`,
  );
  const matched: number[] = [...fixedSince];
  const fresh: LargeUploadComparison['fresh'] = [];
  for (const row of unsettled.rows) {
    if (row.id === null) fresh.push({ seq: row.seq, fingerprint: row.fingerprint });
    else matched.push(row.id);
  }
  return { gone, matched, fresh };
}
