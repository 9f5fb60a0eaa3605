import type { Transaction } from 'kysely';
import type { DB, TrackerProvider } from '../../db/schema.ts';

/**
 * Claims link rows for findings, in the caller's transaction: one per finding and tracker, ever
 * (the unique key), so whoever inserts first owns the ticket and everyone else sees the claim.
 * Returns the ids of the links this call created (the ones that need a `create` job).
 */
export async function claimLinks(
  trx: Transaction<DB>,
  tracker: { id: number; provider: TrackerProvider },
  findingIds: readonly number[],
): Promise<number[]> {
  if (findingIds.length === 0) return [];
  const rows = await trx
    .insertInto('tracker_issues')
    .values(
      findingIds.map((findingId) => ({
        tracker_id: tracker.id,
        finding_id: findingId,
        provider: tracker.provider,
      })),
    )
    .onConflict((conflict) => conflict.columns(['finding_id', 'tracker_id']).doNothing())
    .returning('id')
    .execute();
  return rows.map((row) => row.id);
}
