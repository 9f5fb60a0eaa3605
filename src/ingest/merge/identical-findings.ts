import { sql, type Transaction } from 'kysely';
import type { CopyTable } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';
import { twinFingerprint } from '../fingerprint.ts';
import { rowKeyOf, rowKeysLiteral, stagedRowKey } from '../staged-row-key.ts';

/** A staged result of a twin group: its position in the upload and where it is now. */
export interface StagedTwin {
  seq: number;
  line: number | null;
  column: number | null;
}

/** A stored finding of a twin group (any status, present or not). */
export interface StoredTwin {
  id: number;
  fingerprint: string;
  line: number | null;
  column: number | null;
}

/** Above this many cells the quadratic assignment gives way to pairing in line order. */
const MAX_ASSIGNMENT_CELLS = 1_000_000;

const lineOf = (line: number | null): number => line ?? 0;

/**
 * Matches the staged results of one twin group (same identity base) to the group's stored findings
 * by nearest line: the assignment with the least total |line distance| that matches as many as
 * possible. On a line that both sides share in order, the optimum never crosses, so a dynamic
 * programme over both lists sorted by line finds it in O(staged × stored). Ties go to the later
 * stored finding (as when lines above were deleted: twins at 32 and 34, line 32 fixed, 34 moved to
 * 33 — the 34 one is kept); results on one line are ordered by column, then report order, and
 * stored findings on one line by column, then twin ordinal — the order in which they were given
 * out — never by id: ids follow insertion order, which is not report order, so a tie broken by id
 * would swap identical-looking twins that differ in severity on every re-upload.
 * Unmatched results get the lowest twin ordinals no stored finding of the group uses.
 * Returns each staged result's fingerprint, by `seq`.
 */
export function matchTwins(base: string, staged: StagedTwin[], stored: StoredTwin[]): Map<number, string> {
  const rows = [...staged].sort(
    (a, b) => lineOf(a.line) - lineOf(b.line) || lineOf(a.column) - lineOf(b.column) || a.seq - b.seq,
  );
  const ordinalOf = ordinalsOf(base, stored);
  const findings = [...stored].sort(
    (a, b) =>
      lineOf(a.line) - lineOf(b.line) ||
      lineOf(a.column) - lineOf(b.column) ||
      ordinalOf(a) - ordinalOf(b) ||
      a.id - b.id,
  );
  const pairs =
    rows.length * findings.length > MAX_ASSIGNMENT_CELLS
      ? inLineOrder(rows.length, findings.length)
      : nearestLines(
          rows.map((row) => lineOf(row.line)),
          findings.map((finding) => lineOf(finding.line)),
        );
  const result = new Map<number, string>();
  for (const [i, j] of pairs) result.set(rows[i]!.seq, findings[j]!.fingerprint);
  const taken = new Set(findings.map((finding) => finding.fingerprint));
  let ordinal = 0;
  for (const row of rows) {
    if (result.has(row.seq)) continue;
    while (taken.has(twinFingerprint(base, ordinal))) ordinal++;
    const fingerprint = twinFingerprint(base, ordinal);
    taken.add(fingerprint);
    result.set(row.seq, fingerprint);
  }
  return result;
}

/** Each stored twin's ordinal (`twinFingerprint(base, n)`); a fingerprint outside the series sorts last. */
function ordinalsOf(base: string, stored: StoredTwin[]): (twin: StoredTwin) => number {
  const wanted = new Set(stored.map((twin) => twin.fingerprint));
  const found = new Map<string, number>();
  // Ordinals are given out lowest-free-first, so the group's lie below its size plus the gaps
  // deleted findings left; twice the size bounds the search.
  for (let n = 0; n < 2 * stored.length + 2 && found.size < wanted.size; n++) {
    const fingerprint = twinFingerprint(base, n);
    if (wanted.has(fingerprint)) found.set(fingerprint, n);
  }
  return (twin) => found.get(twin.fingerprint) ?? Number.MAX_SAFE_INTEGER;
}

function inLineOrder(n: number, m: number): [number, number][] {
  return Array.from({ length: Math.min(n, m) }, (_, k) => [k, k]);
}

/**
 * Order-preserving assignment of min(n, m) pairs with the least total distance between sorted
 * positions `a` (n) and `b` (m). cost[i][j]: best for the first i of a and first j of b, with only
 * the longer side allowed to skip.
 */
function nearestLines(a: number[], b: number[]): [number, number][] {
  const n = a.length;
  const m = b.length;
  const width = m + 1;
  const cost = new Float64Array((n + 1) * width).fill(Infinity);
  const step = new Uint8Array((n + 1) * width); // 1 match, 2 skip a[i-1], 3 skip b[j-1]
  cost[0] = 0;
  for (let i = 0; i <= n; i++) {
    for (let j = 0; j <= m; j++) {
      if (i === 0 && j === 0) continue;
      let best = Infinity;
      let move = 0;
      // Skipping is tried first and matching wins ties, which pushes matches to later entries.
      if (j > 0 && m > n && j - i <= m - n && cost[i * width + j - 1]! < best) {
        best = cost[i * width + j - 1]!;
        move = 3;
      }
      if (i > 0 && n > m && i - j <= n - m && cost[(i - 1) * width + j]! < best) {
        best = cost[(i - 1) * width + j]!;
        move = 2;
      }
      if (i > 0 && j > 0) {
        const matched = cost[(i - 1) * width + j - 1]! + Math.abs(a[i - 1]! - b[j - 1]!);
        if (matched <= best) {
          best = matched;
          move = 1;
        }
      }
      cost[i * width + j] = best;
      step[i * width + j] = move;
    }
  }
  const pairs: [number, number][] = [];
  for (let i = n, j = m; i > 0 || j > 0;) {
    const move = step[i * width + j];
    if (move === 1) pairs.push([--i, --j]);
    else if (move === 2) i--;
    else j--;
  }
  return pairs.reverse();
}

interface TwinRow {
  base: string;
  seq: number | null;
  id: number | null;
  fingerprint: string | null;
  line: number | null;
  column: number | null;
}

/**
 * Gives the staged twins of an upload their fingerprints, set-wise: one query fetches only the
 * twin groups (a base with more than one member among the staged results or among the version's
 * findings), each group is solved by `matchTwins`, and one statement writes the result back.
 * `bases`: the only bases that can have several staged members (stage.ts), or null for any.
 * Staged results outside twin groups keep their base as fingerprint. Runs inside the merge
 * transaction, under the version's merge lock, so it sees the findings the merge will match.
 */
export async function assignTwinFingerprints(
  trx: Transaction<DB>,
  uploadKey: string,
  versionId: number,
  bases: readonly string[] | null,
  staging: CopyTable = 'ingest_staging',
): Promise<void> {
  const stagedRows = sql.table(staging);
  // Staged twins still have their base as fingerprint: the candidates are looked up by their key.
  const candidates =
    bases === null
      ? sql`s.upload_key = ${uploadKey}`
      : sql`${stagedRowKey('s')} = any(${rowKeysLiteral(uploadKey, bases)}::text[])`;
  const found = await sql<TwinRow>`
    with staged_groups as (
      select base from ${stagedRows} s where ${candidates} and twin_ordinal
      group by base having count(*) > 1
    ), stored_groups as (
      select distinct f.identity_base as base from findings f
      where f.version_id = ${versionId} and f.fingerprint <> f.identity_base
        and exists (select 1 from ${stagedRows} s
          where ${stagedRowKey('s')} = ${rowKeyOf(uploadKey, sql.ref('f.identity_base'))} and s.twin_ordinal)
    ), groups as (select base from staged_groups union select base from stored_groups)
    select s.base, s.seq, null::integer as id, null::text as fingerprint, s.line, s."column"
    from ${stagedRows} s join groups g on ${stagedRowKey('s')} = ${rowKeyOf(uploadKey, sql.ref('g.base'))}
    where s.twin_ordinal
    union all
    select f.identity_base, null, f.id, f.fingerprint, f.line, f."column"
    from findings f join groups g on f.fingerprint = g.base
    where f.version_id = ${versionId}
    union all
    select f.identity_base, null, f.id, f.fingerprint, f.line, f."column"
    from findings f join groups g on f.identity_base = g.base
    where f.version_id = ${versionId} and f.fingerprint <> f.identity_base`.execute(trx);
  if (found.rows.length === 0) return;
  const groups = new Map<string, { staged: StagedTwin[]; stored: StoredTwin[] }>();
  for (const row of found.rows) {
    let group = groups.get(row.base);
    if (!group) groups.set(row.base, (group = { staged: [], stored: [] }));
    if (row.seq !== null) group.staged.push({ seq: row.seq, line: row.line, column: row.column });
    else if (row.id !== null && row.fingerprint !== null)
      group.stored.push({ id: row.id, fingerprint: row.fingerprint, line: row.line, column: row.column });
  }
  const assigned: { seq: number; fingerprint: string }[] = [];
  for (const [base, group] of groups) {
    for (const [seq, fingerprint] of matchTwins(base, group.staged, group.stored)) {
      if (fingerprint !== base) assigned.push({ seq, fingerprint });
    }
  }
  if (assigned.length === 0) return;
  await sql`
    update ${stagedRows} s set fingerprint = a.fingerprint
    from json_to_recordset(${JSON.stringify(assigned)}::json) as a(seq integer, fingerprint text)
    where s.upload_key = ${uploadKey} and s.seq = a.seq`.execute(trx);
}
