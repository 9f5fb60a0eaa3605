import { describe, expect, it } from 'vitest';
import { copyChunks } from '../../bench/copy.ts';
import { pgliteExecutor } from '../../bench/sql.ts';
import {
  COPY_BINARY_HEADER,
  COPY_BINARY_TRAILER,
  CopyBinaryWriter,
  type CopyType,
} from '../../src/db/copy-binary.ts';

// The ingest limit's COPY must pay the encoding the ingest pays (README, "The ingest limit got
// tighter"): the bench writes its rows with the ingest's own binary writer, and the database reads
// every type it writes, timestamps included (which only the bench's rows of `findings` carry).
describe("the bench's limit COPY", () => {
  const types: CopyType[] = ['int4', 'text', 'timestamptz', 'float8', 'bool', 'text[]', 'int4[]', 'int2'];
  const at = new Date('2026-11-27T12:34:56.789Z');
  const rows = Array.from({ length: 3000 }, (_, index) => [
    index,
    `row ${index}\ttab\\n`,
    at,
    index / 7,
    index % 2 === 0,
    [`CVE-${index}`, 'x,"y"'],
    index % 3 === 0 ? [] : [79, index],
    index % 5,
  ]);

  it("is the ingest's binary encoding, chunked between one header and one trailer", () => {
    const chunks = [...copyChunks(types, rows, 16 * 1024)];
    expect(chunks.length).toBeGreaterThan(3);
    const writer = new CopyBinaryWriter(types);
    for (const row of rows) writer.row(row);
    expect(
      Buffer.concat(chunks).equals(Buffer.concat([COPY_BINARY_HEADER, writer.take(), COPY_BINARY_TRAILER])),
    ).toBe(true);
  });

  it('loads every value back as written', async () => {
    const sql = await pgliteExecutor(undefined);
    try {
      await sql.exec(
        'create table limit_copy (n int4, t text, at timestamptz, f float8, b bool, a text[], i int4[], s int2)',
      );
      const columns = ['n', 't', 'at', 'f', 'b', 'a', 'i', 's'];
      await sql.copy('limit_copy', columns, types, rows);
      const back = await sql.query<Record<string, unknown>>('select * from limit_copy order by n');
      expect(back.map((row) => columns.map((column) => row[column]))).toEqual(rows);
    } finally {
      await sql.close();
    }
  });
});
