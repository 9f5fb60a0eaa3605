import type { Kysely } from 'kysely';
import { authorizeOne, whereAccessible } from '../../access/access.ts';
import type { ResolvedInApplication } from '../../access/resources.ts';
import type { Principal } from '../../access/principal.ts';
import type { DB, ScanStatus } from '../../db/schema.ts';
import { presentScan, type ScanRecord } from './scans.presenter.ts';

export interface ScanFilter {
  applicationId?: number | undefined;
  versionId?: number | undefined;
  status?: ScanStatus | undefined;
  limit: number;
}

/** Scans of applications the caller may read (an application token: its own), newest first. */
export async function listScans(db: Kysely<DB>, user: Principal, filter: ScanFilter): Promise<ScanRecord[]> {
  if (filter.applicationId !== undefined)
    await authorizeOne(db, user, 'application', String(filter.applicationId), 'read');
  const rows = await db
    .selectFrom('scans')
    .selectAll()
    .where(whereAccessible(user, 'application', 'read', 'scans.application_id'))
    .$if(filter.applicationId !== undefined, (q) => q.where('application_id', '=', filter.applicationId ?? 0))
    .$if(filter.versionId !== undefined, (q) => q.where('version_id', '=', filter.versionId ?? 0))
    .$if(filter.status !== undefined, (q) => q.where('status', '=', filter.status ?? 'completed'))
    .orderBy('id', 'desc')
    .limit(filter.limit)
    .execute();
  return rows.map(presentScan);
}

export async function getScan(db: Kysely<DB>, { id }: ResolvedInApplication): Promise<ScanRecord> {
  return presentScan(await db.selectFrom('scans').selectAll().where('id', '=', id).executeTakeFirstOrThrow());
}

export async function scansOfVersion(db: Kysely<DB>, versionId: number): Promise<ScanRecord[]> {
  const rows = await db
    .selectFrom('scans')
    .selectAll()
    .where('version_id', '=', versionId)
    .orderBy('id', 'desc')
    .execute();
  return rows.map(presentScan);
}
