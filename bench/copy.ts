import type pg from 'pg';
import type { CellValue } from './normalized-rows.ts';

/**
 * COPY … FROM STDIN through pg without pg-copy-streams: a pg "submittable" that answers the
 * server's CopyInResponse with CopyData messages and CopyDone, using the connection methods pg
 * itself exposes for this (sendCopyFromChunk / endCopyFrom).
 */

/** COPY text format: backslash escapes for the characters that delimit rows and fields. */
function escapeCopy(text: string): string {
  return text.replace(/[\\\n\r\t]/g, (char) =>
    char === '\\' ? '\\\\' : char === '\n' ? '\\n' : char === '\r' ? '\\r' : '\\t',
  );
}

/** A PostgreSQL array literal: every element quoted, backslashes and quotes escaped. */
function arrayLiteral(items: readonly (string | number)[]): string {
  const inner = items.map((item) =>
    typeof item === 'number' ? String(item) : `"${item.replace(/[\\"]/g, (char) => `\\${char}`)}"`,
  );
  return `{${inner.join(',')}}`;
}

function copyField(value: CellValue): string {
  if (value === null) return '\\N';
  if (typeof value === 'boolean') return value ? 't' : 'f';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return escapeCopy(value);
  return escapeCopy(arrayLiteral(value));
}

const copyLine = (row: readonly CellValue[]): string => `${row.map(copyField).join('\t')}\n`;

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

/** The part of pg's Connection used for COPY FROM (present in pg 8, absent from its types). */
interface CopyConnection {
  query(text: string): void;
  sendCopyFromChunk(chunk: Buffer): void;
  endCopyFrom(): void;
}

class CopyFromStdin implements pg.Submittable {
  readonly done: Promise<void>;
  /** Settles `done` once; pg may still report ReadyForQuery after an error. */
  private settle!: (error?: Error) => void;

  constructor(
    private readonly text: string,
    private readonly rows: readonly (readonly CellValue[])[],
  ) {
    this.done = new Promise((resolve, reject) => {
      this.settle = (error) => (error ? reject(error) : resolve());
    });
  }

  submit(connection: pg.Connection): void {
    (connection as unknown as CopyConnection).query(this.text);
  }

  handleCopyInResponse(connection: pg.Connection): void {
    const copy = connection as unknown as CopyConnection;
    for (const chunk of copyChunks(this.rows)) copy.sendCopyFromChunk(chunk);
    copy.endCopyFrom();
  }

  handleCommandComplete(): void {}

  handleError(error: Error): void {
    this.settle(error);
  }

  handleReadyForQuery(): void {
    this.settle();
  }
}

/** Runs `copy … from stdin` on `client` with `rows`. */
export async function copyFromStdin(
  client: pg.PoolClient,
  text: string,
  rows: readonly (readonly CellValue[])[],
): Promise<void> {
  const copy = new CopyFromStdin(text, rows);
  client.query(copy);
  await copy.done;
}
