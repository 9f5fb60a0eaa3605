import { readFile } from 'node:fs/promises';
import { migrateToLatest } from '../src/db/database.ts';
import type { NormalizedRows } from './normalized-rows.ts';
import { summarize } from './stats.ts';
import { postgresExecutor, pgliteExecutor, type SqlExecutor } from './sql.ts';
import { freshDir, type BenchTarget } from './targets.ts';

const TABLE = 'bench_copy_limit';
/** Measurements of each part of the limit per repeat; the limit is their median. */
export const LIMIT_SAMPLES = 3;

export interface LimitSample {
  parseMs: number;
  copyMs: number;
}

/**
 * The floor under an ingest of a file: JSON.parse of the whole file (read included) plus a COPY of
 * the finding rows the upload produced into an unindexed table shaped like `findings` (logged, no
 * index, no constraint but NOT NULL). PostgreSQL: in the server's own database (COPY FROM STDIN
 * through pg). PGlite: in a PGlite data dir of its own in the bench process (the server's is held by
 * the server), by COPY FROM a blob.
 */
export class IngestLimit {
  private constructor(private readonly sql: SqlExecutor) {}

  static async open(target: BenchTarget): Promise<IngestLimit> {
    if (target.databaseUrl) return new IngestLimit(postgresExecutor(target.databaseUrl, 2));
    const sql = await pgliteExecutor(await freshDir('pglite-limit'));
    await migrateToLatest(sql.kysely(() => {}));
    return new IngestLimit(sql);
  }

  /**
   * The limit as the median of `times` measurements of each part: one measurement moved by 2× between
   * runs (JSON.parse 0.39–0.89 s on PostgreSQL's side in one afternoon), mostly the first parse in a
   * fresh process, whose heap is still growing.
   */
  async measure(file: string, rows: NormalizedRows, times = LIMIT_SAMPLES): Promise<LimitSample> {
    const parse: number[] = [];
    const copy: number[] = [];
    for (let round = 0; round < times; round++) {
      let started = performance.now();
      const parsed: unknown = JSON.parse(await readFile(file, 'utf8'));
      parse.push(performance.now() - started);
      if (parsed === null) throw new Error('empty file');
      await this.sql.exec(`drop table if exists ${TABLE}; create table ${TABLE} (like findings)`);
      started = performance.now();
      await this.sql.copy(TABLE, rows.columns, rows.types, rows.rows);
      copy.push(performance.now() - started);
      await this.sql.exec(`drop table ${TABLE}`);
    }
    return { parseMs: summarize(parse).median, copyMs: summarize(copy).median };
  }

  close(): Promise<void> {
    return this.sql.close();
  }
}
