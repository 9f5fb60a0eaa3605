import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from './app-context.ts';
import { discardAbandonedStaging } from './ingest/stage.ts';
import { recomputeAllRisk } from './modules/findings/risk.repository.ts';

const HOUR = 3_600_000;
/** No upload stages for this long; older rows belong to a process that died mid-upload. */
const ABANDONED_STAGING_AGE = 6 * HOUR;

/**
 * Periodic upkeep in the serving process: risk scores age (G grows with days open), PGlite has no
 * autovacuum, and a crash mid-upload leaves staged rows behind. Returns a function that stops it.
 */
export function startMaintenance(
  context: AppContext,
  log: Pick<FastifyBaseLogger, 'info' | 'error'>,
): () => void {
  const run = async (what: string, work: () => Promise<unknown>) => {
    try {
      const result = await work();
      log.info({ task: what, result }, 'maintenance done');
    } catch (error) {
      log.error({ err: error, task: what }, 'maintenance failed');
    }
  };
  const hourly = setInterval(() => {
    void run('discard abandoned staging', () => discardAbandonedStaging(context.db, ABANDONED_STAGING_AGE));
    void run('vacuum', () => context.database.maintain());
  }, HOUR);
  const daily = setInterval(() => void run('recompute risk', () => recomputeAllRisk(context.db)), 24 * HOUR);
  hourly.unref();
  daily.unref();
  return () => {
    clearInterval(hourly);
    clearInterval(daily);
  };
}
