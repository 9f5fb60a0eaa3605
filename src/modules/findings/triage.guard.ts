import type { Transaction } from 'kysely';
import { accessLevels, parseId } from '../../access/access.ts';
import type { UserPrincipal } from '../../access/principal.ts';
import type { DB } from '../../db/schema.ts';
import { AppError, notFound } from '../../errors.ts';
import { lockFindings, type LockedFinding } from './triage.repository.ts';

/**
 * Locks findings and checks the caller may write them: unknown or unreadable → 404 (listing the
 * ids), readable but not writable → 403 (listing the ids).
 */
export async function lockWritable(
  trx: Transaction<DB>,
  user: UserPrincipal,
  ids: readonly number[],
): Promise<LockedFinding[]> {
  const rows = await lockFindings(trx, ids);
  const levels = await accessLevels(trx, user, [...new Set(rows.map((row) => row.application_id))]);
  const level = (row: LockedFinding) => levels.get(row.application_id)?.level ?? 0;
  const readable = new Set(rows.filter((row) => level(row) >= 1).map((row) => row.id));
  const missing = ids.filter((id) => !readable.has(id));
  if (missing.length > 0) {
    throw new AppError(404, 'not_found', `Finding${ids.length > 1 ? 's' : ''} not found`, { ids: missing });
  }
  const readOnly = rows.filter((row) => level(row) < 2).map((row) => row.id);
  if (readOnly.length > 0) {
    throw new AppError(403, 'forbidden', `You may read but not change finding(s) ${readOnly.join(', ')}`, {
      ids: readOnly,
    });
  }
  return rows;
}

export async function lockOne(
  trx: Transaction<DB>,
  user: UserPrincipal,
  ref: string,
): Promise<LockedFinding> {
  const id = parseId(ref);
  if (id === null) throw notFound('Finding');
  const [row] = await lockWritable(trx, user, [id]);
  if (!row) throw notFound('Finding');
  return row;
}
