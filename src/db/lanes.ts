import type { Kysely, Transaction } from 'kysely';
import type { DatabaseKind } from './database.ts';
import type { DB } from './schema.ts';

/**
 * How many batches of a set-wise background pass (the enrichment re-score, the daily risk
 * re-score) run at once: two on PostgreSQL, whose backends use the machine's two cores (a first
 * EPSS import's re-score of 1M findings: 71.6 s in one lane, 45.3 s in two; three were no faster,
 * bench 17); one on PGlite, whose one session would only take them in turn.
 */
export function batchLanes(kind: DatabaseKind): number {
  return kind === 'postgres' ? 2 : 1;
}

/**
 * Runs batches `0 … count - 1`, `lanes` at a time, each `run` in its own transaction (on its own
 * connection), handing each result to `add`. The batches must not wait on each other (each writes
 * its own rows). After a failure no batch starts, those running finish, and the first error is
 * thrown: callers' batches are idempotent, so a retry redoes what is left.
 */
export async function inLanes<T>(
  db: Kysely<DB>,
  count: number,
  lanes: number,
  run: (trx: Transaction<DB>, index: number) => Promise<T>,
  add: (result: T) => void,
): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const lane = async (): Promise<void> => {
    while (failure === undefined && next < count) {
      const index = next++;
      try {
        add(await db.transaction().execute((trx) => run(trx, index)));
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(lanes, count)) }, lane));
  if (failure !== undefined) throw failure.error;
}

/**
 * `inLanes` over the ids `low … high` cut into ranges of `batch` (`to` exclusive): one batch per
 * range, whether or not ids in it exist. Nothing runs when either bound is null (no rows).
 */
export async function inIdRanges<T>(
  db: Kysely<DB>,
  bounds: { low: number | null; high: number | null },
  { batch, lanes }: { batch: number; lanes: number },
  run: (trx: Transaction<DB>, range: { from: number; to: number }) => Promise<T>,
  add: (result: T) => void,
): Promise<void> {
  if (bounds.low === null || bounds.high === null) return;
  const low = Number(bounds.low);
  const from = (index: number) => low + index * batch;
  const count = Math.ceil((Number(bounds.high) - low + 1) / batch);
  await inLanes(db, count, lanes, (trx, index) => run(trx, { from: from(index), to: from(index + 1) }), add);
}
