import { sql, type Kysely } from 'kysely';
import { whereAccessible } from '../../access/access.ts';
import type { UserPrincipal } from '../../access/principal.ts';
import type { Config } from '../../config.ts';
import type { DB } from '../../db/schema.ts';
import { recordAudit, type AuditContext } from '../../events/audit.ts';
import type { JobSender } from '../../jobs/job-map.ts';
import { enrichmentSettings, listCurrent } from './enrichment.repository.ts';
import { ageDays, presentSnapshot } from './enrichment.presenter.ts';
import type { EnrichmentStatus, UpdateEnrichmentSettings } from './enrichment.schema.ts';

/** Data older than this many days is stale: the UI warns. */
export const STALE_AFTER_DAYS = 7;

/**
 * Each source's current snapshot and its age, whether a fetch URL is set, the settings, and the
 * readable findings that are KEV-listed or carry EPSS.
 */
export async function enrichmentStatus(
  db: Kysely<DB>,
  config: Pick<Config, 'enrichment'>,
  user: UserPrincipal,
  now: Date = new Date(),
): Promise<EnrichmentStatus> {
  const [snapshots, settings, counts] = await Promise.all([
    listCurrent(db),
    enrichmentSettings(db),
    db
      .selectFrom('findings')
      .leftJoin('finding_epss', 'finding_epss.finding_id', 'findings.id')
      .select([
        sql<number>`count(*) filter (where findings.in_kev)::integer`.as('in_kev'),
        sql<number>`count(finding_epss.finding_id)::integer`.as('with_epss'),
      ])
      .where(whereAccessible(user, 'application', 'read', 'findings.application_id'))
      .where((eb) => eb.or([eb('findings.in_kev', '=', true), eb('finding_epss.finding_id', 'is not', null)]))
      .executeTakeFirstOrThrow(),
  ]);
  const sources = (['epss', 'kev'] as const).map((source) => {
    const row = snapshots.find((snapshot) => snapshot.source === source);
    return {
      source,
      snapshot: row ? { ...presentSnapshot(row, now), imported_by: null } : null,
      stale: !row || ageDays(row.data_date, now) > STALE_AFTER_DAYS,
      fetch_configured: Boolean(source === 'epss' ? config.enrichment.epssUrl : config.enrichment.kevUrl),
    };
  });
  return { sources, settings, findings: counts };
}

/**
 * Changes the settings; turning the KEV due-date rule on or off queues, in the same transaction, the
 * `sla-recompute` job for every application (modules/sla/sla.jobs.ts): at 1M findings the recompute
 * takes minutes, so the answer does not wait for it.
 */
export async function updateEnrichmentSettings(
  db: Kysely<DB>,
  jobs: JobSender,
  body: UpdateEnrichmentSettings,
  audit: AuditContext,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const before = await enrichmentSettings(trx);
    await trx
      .updateTable('enrichment_settings')
      .set({ ...body, updated_at: new Date() })
      .execute();
    if (body.kev_due_dates !== undefined && body.kev_due_dates !== before.kev_due_dates) {
      await jobs.send(trx, 'sla-recompute', { scope: 'all', now: new Date().toISOString() });
    }
    await recordAudit(trx, audit, {
      action: 'enrichment.settings_updated',
      target: { type: 'enrichment_settings', id: null, label: 'enrichment settings' },
      before,
      after: { ...before, ...body },
    });
  });
}
