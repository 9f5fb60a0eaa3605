import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import {
  COPY_BINARY_HEADER,
  COPY_BINARY_TRAILER,
  CopyBinaryWriter,
  type CopyType,
  type CopyValue,
} from '../src/db/copy-binary.ts';

/**
 * The limit's COPY: rows in PostgreSQL's binary COPY format, written by the same encoder the ingest
 * stages its rows with (src/db/copy-binary.ts), so the limit and scanhub pay the same encoding.
 */

/** The whole COPY data of `rows`: header, rows in chunks of about `chunkBytes`, trailer. */
export function* copyChunks(
  types: readonly CopyType[],
  rows: readonly (readonly CopyValue[])[],
  chunkBytes = 256 * 1024,
): Generator<Buffer> {
  yield COPY_BINARY_HEADER;
  const writer = new CopyBinaryWriter(types, chunkBytes * 2);
  for (const row of rows) {
    writer.row(row);
    // A copy: the stream may still hold a chunk when the writer takes the next rows.
    if (writer.length >= chunkBytes) yield Buffer.from(writer.take());
  }
  if (writer.length > 0) yield Buffer.from(writer.take());
  yield COPY_BINARY_TRAILER;
}

/** Runs `copy … from stdin with (format binary)` on `client` with `rows`, through pg-copy-streams. */
export async function copyFromStdin(
  client: pg.PoolClient,
  statement: string,
  types: readonly CopyType[],
  rows: readonly (readonly CopyValue[])[],
): Promise<void> {
  await pipeline(Readable.from(copyChunks(types, rows)), client.query(copyFrom(statement)));
}
