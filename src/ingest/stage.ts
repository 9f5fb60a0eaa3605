import { randomUUID } from 'node:crypto';
import { sql, type Insertable, type Kysely } from 'kysely';
import type { DB, IngestStagingTable } from '../db/schema.ts';
import { findingIdentity } from './fingerprint.ts';
import { toStagingRow } from './normalize-row.ts';
import type { ParserInput, ParserModule } from './parsers/types.ts';

/** Rows per statement. Each batch travels as one JSON parameter, so there is no parameter limit. */
const BATCH_SIZE = 2000;

export interface StageResult {
  findingsCount: number;
  toolName: string | null;
  toolVersion: string | null;
}

/**
 * Parses the upload and writes its findings, fingerprinted, into `ingest_staging` under `uploadKey`,
 * batch by batch, outside any transaction: memory holds one batch, and a slow parse never holds the
 * database. Nothing staged is visible as a finding until the merge commits.
 */
export async function stageFindings(
  db: Kysely<DB>,
  parser: ParserModule,
  input: ParserInput,
  uploadKey: string,
): Promise<StageResult> {
  let batch: Insertable<IngestStagingTable>[] = [];
  let findingsCount = 0;
  let toolName: string | null = null;
  let toolVersion: string | null = null;
  // One batch is written while the next is parsed: with PostgreSQL the server works on one core
  // while parsing runs on the other. At most two batches are in memory.
  let inFlight: Promise<unknown> = Promise.resolve();
  const flush = async () => {
    if (batch.length === 0) return;
    const payload = JSON.stringify(batch);
    batch = [];
    await inFlight;
    // One JSON parameter expanded by the server: one round trip and one parse per batch, the same
    // statement on PGlite and PostgreSQL (COPY would need a different client path for each).
    inFlight =
      sql`insert into ingest_staging select * from json_populate_recordset(null::ingest_staging, ${payload}::json)`.execute(
        db,
      );
    // Keep a failed write from going unobserved until the next await.
    inFlight.catch(() => undefined);
  };
  try {
    for await (const finding of parser.parse(input)) {
      toolName ??= finding.toolName;
      toolVersion ??= finding.toolVersion;
      batch.push(toStagingRow(uploadKey, findingsCount, findingIdentity(parser.name, finding), finding));
      findingsCount++;
      if (batch.length >= BATCH_SIZE) await flush();
    }
    await flush();
    await inFlight;
    await numberTwins(db, uploadKey);
  } finally {
    // Never leave a write running behind a parse error: the caller deletes the staged rows next.
    await inFlight.catch(() => undefined);
  }
  return { findingsCount, toolName, toolVersion };
}

/**
 * Gives identical twins distinct fingerprints: the n-th (0-based, in report order) gets
 * sha256(base + '#' + n), as `twinFingerprint` computes it. Done in SQL over the staged rows so no
 * per-upload map of every fingerprint is held in memory.
 */
async function numberTwins(db: Kysely<DB>, uploadKey: string): Promise<void> {
  await sql`
    update ingest_staging s
    set fingerprint = encode(sha256(convert_to(s.fingerprint || '#' || (t.rn - 1)::text, 'UTF8')), 'hex')
    from (
      select seq, row_number() over (partition by fingerprint order by seq) as rn
      from ingest_staging where upload_key = ${uploadKey} and twin_ordinal
    ) t
    where s.upload_key = ${uploadKey} and s.seq = t.seq and t.rn > 1`.execute(db);
}

/**
 * A staging key that starts with its creation time (13-digit milliseconds), so rows left by a
 * process that died mid-upload can be found by age and removed.
 */
export function newUploadKey(now = Date.now()): string {
  return `${String(now).padStart(13, '0')}-${randomUUID()}`;
}

/** Removes staged rows of uploads started more than `maxAgeMs` ago (crashed processes). */
export async function discardAbandonedStaging(
  db: Kysely<DB>,
  maxAgeMs: number,
  now = Date.now(),
): Promise<number> {
  const result = await db
    .deleteFrom('ingest_staging')
    .where('upload_key', '<', newUploadKey(now - maxAgeMs).slice(0, 13))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function discardStaged(db: Kysely<DB>, uploadKey: string): Promise<void> {
  await db.deleteFrom('ingest_staging').where('upload_key', '=', uploadKey).execute();
}
