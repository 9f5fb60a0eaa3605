import { sql, type RawBuilder, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { closeOnAbsence } from '../../domain/findings/lifecycle.ts';
import { rowKeyOf, stagedRowKey } from '../staged-row-key.ts';
import { arrayLiteral, type MergeTarget, type StatusRow } from './target.ts';

const idArray = arrayLiteral;

/** A partial upload closes only findings in the files of its results and its declared artifacts. */
const coveredBy = (target: MergeTarget) => sql`and f.file_path in (
  select file_path from ${sql.table(target.staging)} where upload_key = ${target.uploadKey} and file_path is not null
  union select json_array_elements_text(${JSON.stringify(target.coveredFiles)}::json))`;

const scopesJson = (target: MergeTarget) =>
  JSON.stringify(target.scopes.map((scope) => ({ tool_name: scope.toolName, category: scope.category })));

/**
 * Whether a finding `f` of the version is in one of the upload's scopes, present, and (a partial
 * upload) in a file it covers: absent, then, unless the upload reports it.
 */
export const closableByUpload = (
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
export const goneRows = (target: MergeTarget, among: RawBuilder<unknown>, hashed = false) => sql`
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

/**
 * Step 1 of the merge: present findings of the upload's scopes that it no longer reports stop being
 * present (open/confirmed ones become `fixed`), keeping the scope's last sighting. `goneAmong`: the
 * candidates found beforehand (none: no statement). Returns the findings whose status moved.
 */
export async function closeAbsent(
  trx: Transaction<DB>,
  target: MergeTarget,
  goneAmong: readonly number[] | undefined,
): Promise<StatusRow[]> {
  if (goneAmong?.length === 0) return [];
  const among = goneAmong === undefined ? sql`` : sql`and f.id = any(${idArray(goneAmong)}::integer[])`;
  const absent = closeOnAbsence(sql.ref('f.status'), sql.ref('f.fixed_at'));
  const gone = await sql<StatusRow>`
    with gone as (${goneRows(target, among)} for update of f)
    update findings f
    set present = false,
      last_seen_at = coalesce(gone.last_seen_at, f.last_seen_at),
      last_scan_id = coalesce(gone.last_scan_id, f.last_scan_id),
      status = ${absent.status}, fixed_at = ${absent.fixedAt},
      updated_at = now()
    from gone where f.id = gone.id
    returning f.id, gone.status as from_status, f.status as to_status`.execute(trx);
  return gone.rows.filter((row) => row.from_status !== row.to_status);
}
