import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { copyLine } from '../src/db/copy-text.ts';
import type { CellValue } from './normalized-rows.ts';

/**
 * The limit's COPY: rows in PostgreSQL's COPY text format, written by the same encoder the ingest
 * stages its rows with (src/db/copy-text.ts), so the limit and scanhub pay the same encoding.
 */

/** The rows in COPY text format, in chunks of about `chunkBytes`. */
export function* copyChunks(
  rows: readonly (readonly CellValue[])[],
  chunkBytes = 256 * 1024,
): Generator<Buffer> {
  let text = '';
  for (const row of rows) {
    text += copyLine(row);
    if (text.length >= chunkBytes) {
      yield Buffer.from(text, 'utf8');
      text = '';
    }
  }
  if (text) yield Buffer.from(text, 'utf8');
}

export function copyText(rows: readonly (readonly CellValue[])[]): string {
  return rows.map(copyLine).join('');
}

/** Runs `copy … from stdin` on `client` with `rows`, streamed through pg-copy-streams. */
export async function copyFromStdin(
  client: pg.PoolClient,
  text: string,
  rows: readonly (readonly CellValue[])[],
): Promise<void> {
  await pipeline(Readable.from(copyChunks(rows)), client.query(copyFrom(text)));
}
