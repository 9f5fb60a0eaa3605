import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';

/** Rows of at most this many bytes: small enough for one statement, few enough for a 100 MiB upload. */
const CHUNK_BYTES = 1024 * 1024;

/**
 * Stores an async upload's file in the database, in the transaction that creates its pending scan:
 * whichever server's worker takes the job can read it, and a crash of the receiving server loses
 * nothing. Removed when the scan finishes (completed or failed).
 */
export async function storeUpload(trx: Transaction<DB>, scanId: number, path: string): Promise<void> {
  let seq = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: CHUNK_BYTES })) {
    await trx
      .insertInto('upload_chunks')
      .values({ scan_id: scanId, seq: seq++, data: chunk as Buffer })
      .execute();
  }
}

/** Writes a stored upload back to a file under `dir` (parsers read files, some of them twice). */
export async function restoreUpload(db: Kysely<DB>, scanId: number, dir: string): Promise<string | null> {
  const count = await db
    .selectFrom('upload_chunks')
    .select((eb) => eb.fn.countAll<number>().as('chunks'))
    .where('scan_id', '=', scanId)
    .executeTakeFirstOrThrow();
  if (Number(count.chunks) === 0) return null;
  await mkdir(dir, { recursive: true });
  const path = join(dir, `${randomUUID()}.restored`);
  const out = createWriteStream(path);
  try {
    // One chunk in memory at a time, in order.
    for (let seq = 0; seq < Number(count.chunks); seq++) {
      const row = await db
        .selectFrom('upload_chunks')
        .select('data')
        .where('scan_id', '=', scanId)
        .where('seq', '=', seq)
        .executeTakeFirstOrThrow();
      if (!out.write(row.data)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
    }
    out.end();
    await finished(out);
    return path;
  } catch (error) {
    out.destroy();
    await rm(path, { force: true });
    throw error;
  }
}

export async function dropUpload(db: Kysely<DB> | Transaction<DB>, scanId: number): Promise<void> {
  await db.deleteFrom('upload_chunks').where('scan_id', '=', scanId).execute();
}
