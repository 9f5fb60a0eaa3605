import type { Transaction } from 'kysely';
import { authorize } from '../../access/access.ts';
import type { UserPrincipal } from '../../access/principal.ts';
import type { ResolvedInApplication } from '../../access/resources.ts';
import type { DB } from '../../db/schema.ts';
import { AppError } from '../../errors.ts';
import { lockFindings, type LockedFinding } from './triage.repository.ts';

/** Locks `ids` in id order; one deleted since it was authorized is a 404 listing it. */
async function lockAll(trx: Transaction<DB>, ids: readonly number[]): Promise<LockedFinding[]> {
  const rows = await lockFindings(trx, ids);
  const locked = new Set(rows.map((row) => row.id));
  const gone = ids.filter((id) => !locked.has(id));
  if (gone.length > 0) {
    throw new AppError(404, 'not_found', `Finding${ids.length > 1 ? 's' : ''} not found`, { ids: gone });
  }
  return rows;
}

/**
 * Checks the caller may write every finding of a bulk change, in one query through `authorize`
 * (unknown or unreadable → 404 listing the ids, read-only → 403 listing them), then locks them.
 */
export async function lockWritable(
  trx: Transaction<DB>,
  user: UserPrincipal,
  ids: readonly number[],
): Promise<LockedFinding[]> {
  await authorize(trx, user, 'finding', ids, 'write', 'ids');
  return lockAll(trx, ids);
}

/** Locks the one finding the route hook authorized for writing (`PATCH /api/findings/:id/...`). */
export async function lockOne(trx: Transaction<DB>, finding: ResolvedInApplication): Promise<LockedFinding> {
  const [row] = await lockAll(trx, [finding.id]);
  return row as LockedFinding;
}
