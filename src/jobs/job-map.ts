/**
 * Every background job: its name and the payload it carries. Callers send by name and the compiler
 * checks the payload; each job has one handler file in `handlers/` (wired in `jobs.ts`).
 */
export interface JobPayloads {
  /** Finish an async upload: parse and merge the scan's stored file. */
  'ingest-scan': { scanId: number };
  /** Remove staging rows and spool files no live process owns; expire sessions; PGlite VACUUM. */
  'maintenance-hourly': Record<string, never>;
  /** PGlite has no autovacuum: VACUUM ANALYZE what a big upload churned, after its answer. */
  'vacuum-after-ingest': Record<string, never>;
  /** Re-score open findings: the age part of the risk formula grows every day. */
  'maintenance-daily': Record<string, never>;
  /** Turn committed outbox events into webhook deliveries (one runs at a time). */
  'dispatch-outbox': Record<string, never>;
  /** Send one webhook delivery; pg-boss retries it with exponential backoff and jitter. */
  'deliver-webhook': { deliveryId: number };
  /**
   * One issue-tracker call for a finding's link: `create` its issue (marker search first), `sync`
   * the state with the finding's status, or post a finding comment (`commentId`).
   */
  'tracker-issue': { linkId: number; action: 'create' | 'sync' | 'comment'; commentId?: number };
  /** Re-read open linked issues of every tracker and apply closures seen there (no webhooks needed). */
  'tracker-reconcile': Record<string, never>;
}

export type JobName = keyof JobPayloads;
