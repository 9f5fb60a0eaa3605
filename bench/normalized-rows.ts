import type { CopyType, CopyValue } from '../src/db/copy-binary.ts';
import type { SqlExecutor } from './sql.ts';

export interface NormalizedRows {
  columns: string[];
  /** Each column's type, as the binary COPY writes it. */
  types: CopyType[];
  rows: CopyValue[][];
}

/** The catalog's type names (`udt_name`) of the types a binary COPY writes. */
const COPY_TYPES: Record<string, CopyType> = {
  text: 'text',
  int2: 'int2',
  int4: 'int4',
  float8: 'float8',
  bool: 'bool',
  timestamptz: 'timestamptz',
  _text: 'text[]',
  _int4: 'int4[]',
};

/**
 * The finding rows an upload produced, every column, as scanhub stored them: parsed, normalized,
 * fingerprinted and scored by scanhub itself. Read once after a real upload (untimed), so the limit
 * copies exactly what the server wrote, whatever the ingest code looks like this week.
 */
export async function findingRows(sql: SqlExecutor, applicationId: number): Promise<NormalizedRows> {
  const catalog = await sql.query<{ column_name: string; udt_name: string }>(
    `select column_name, udt_name from information_schema.columns
     where table_name = 'findings' and table_schema = current_schema() order by ordinal_position`,
  );
  const columns = catalog.map((column) => column.column_name);
  const types = catalog.map((column) => {
    const type = COPY_TYPES[column.udt_name];
    if (!type) throw new Error(`findings.${column.column_name}: no binary COPY for ${column.udt_name}`);
    return type;
  });
  const found = await sql.query<Record<string, unknown>>(
    'select * from findings where application_id = $1 order by id',
    [applicationId],
  );
  return { columns, types, rows: found.map((row) => columns.map((column) => row[column] as CopyValue)) };
}
