import type { SqlExecutor } from './sql.ts';

/** A column value as COPY sees it. */
export type CellValue = string | number | boolean | null | readonly (string | number)[];

export interface NormalizedRows {
  columns: string[];
  rows: CellValue[][];
}

function cell(value: unknown): CellValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map((item) => (typeof item === 'number' ? item : String(item)));
  return JSON.stringify(value);
}

/**
 * The finding rows an upload produced, every column, as scanhub stored them: parsed, normalized,
 * fingerprinted and scored by scanhub itself. Read once after a real upload (untimed), so the limit
 * copies exactly what the server wrote, whatever the ingest code looks like this week.
 */
export async function findingRows(sql: SqlExecutor, applicationId: number): Promise<NormalizedRows> {
  const found = await sql.query<Record<string, unknown>>(
    'select * from findings where application_id = $1 order by id',
    [applicationId],
  );
  const columns = Object.keys(found[0] ?? {});
  return { columns, rows: found.map((row) => columns.map((column) => cell(row[column]))) };
}
