import type { JobLog } from './job-map.ts';

/**
 * Runs one job (or one batch) between two info lines, its start and its end with the time it took,
 * so a `scanhub worker` says what it is doing; a failure is said at its end (pg-boss retries it).
 */
export async function loggedJob<T>(
  log: JobLog,
  fields: Record<string, unknown>,
  run: () => Promise<T>,
): Promise<T> {
  const started = performance.now();
  log.info(fields, 'job started');
  try {
    const result = await run();
    log.info({ ...fields, ms: Math.round(performance.now() - started) }, 'job done');
    return result;
  } catch (error) {
    log.warn({ ...fields, ms: Math.round(performance.now() - started), err: error }, 'job failed');
    throw error;
  }
}
