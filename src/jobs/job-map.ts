import type { FastifyBaseLogger } from 'fastify';
import type { Kysely, Transaction } from 'kysely';
import type PgBoss from 'pg-boss';
import type { NoticeChannel } from '../db/change-notices.ts';
import type { DB } from '../db/schema.ts';

/**
 * The job port: every background job's name and payload, the sender every module sends with, and the
 * shape of a job's spec. A leaf: modules send jobs and export their own specs through these types,
 * and the runtime (jobs.ts) runs whatever specs the application wires (src/wiring.ts), so no handler
 * imports the runtime and the runtime imports no module.
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
  /** Write today's posture snapshot, back-fill missed days, drop days past retention (issue 47). */
  'posture-snapshot': Record<string, never>;
  /** Deletes audit events past AUDIT_RETENTION_DAYS, in batches, keeping the chain verifiable. */
  'audit-retention': Record<string, never>;
  /** Hand committed outbox events to their after-commit subscribers (one runs at a time). */
  'dispatch-outbox': Record<string, never>;
  /** Send one webhook delivery; pg-boss retries it with exponential backoff and jitter. */
  'deliver-webhook': { deliveryId: number };
  /** Stream new audit events to the webhooks subscribed to `audit.*` (one runs at a time). */
  'forward-audit': Record<string, never>;
  /**
   * One issue-tracker call for a finding's link: `create` its issue (marker search first), `sync`
   * the state with the finding's status, or post a finding comment (`commentId`).
   */
  'tracker-issue': { linkId: number; action: 'create' | 'sync' | 'comment'; commentId?: number };
  /**
   * Announce open findings whose SLA due date passed (`finding.sla_breached`, once per finding);
   * `now` (ISO 8601) runs it with another clock than the system's (tests), the schedule sends none.
   */
  'sla-breaches': { now?: string };
  /**
   * Recompute the SLA due dates of the open findings of a scope after an SLA configuration or
   * assignment changed (domain/findings/sla.ts, `recomputeDueDatesInBatches`): `all`, the
   * applications named, those a configuration governs when the job runs, or a group's subtree.
   * `now` (ISO 8601) is the change's clock (`updated_at` of the rows written; tests travel in time).
   */
  'sla-recompute': {
    scope: 'all' | { applicationIds: number[] } | { configurationId: number } | { groupId: number };
    now?: string;
  };
  /** Re-read open linked issues of every tracker and apply closures seen there (no webhooks needed). */
  'tracker-reconcile': Record<string, never>;
  /**
   * Evaluate versions against the licence policies in force (their `license` findings follow): one
   * version (after an upload), else every version the policies of `ownerGroupId` cover (null: all).
   */
  'license-evaluate': { versionId?: number; ownerGroupId?: number | null };
  /** End acceptances past their expiry (their findings come back) and announce those about to end. */
  'acceptance-expiry': Record<string, never>;
  /** Copy the current EPSS and KEV snapshots onto every finding naming a CVE, and re-score (after an import). */
  'enrichment-apply': Record<string, never>;
  /** The same for one version's findings (after an upload), so new findings carry EPSS and KEV. */
  'enrichment-apply-version': { versionId: number };
  /** Download EPSS_URL and KEV_URL (when set) through the outbound guard and import them. */
  'enrichment-fetch': Record<string, never>;
}

export type JobName = keyof JobPayloads;

export type JobLog = Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;

/** Sends jobs; with a transaction a job exists exactly when the transaction commits. */
export interface JobSender {
  send<N extends JobName>(
    executor: Kysely<DB> | Transaction<DB>,
    name: N,
    payload: JobPayloads[N],
  ): Promise<void>;
  /** Sends many jobs of one name in one statement. */
  sendMany<N extends JobName>(
    executor: Kysely<DB> | Transaction<DB>,
    name: N,
    payloads: readonly JobPayloads[N][],
  ): Promise<void>;
  /** Asks this process's worker for `name` to look for work now instead of at its next poll. */
  wake(name: JobName): void;
}

export interface Jobs extends JobSender {
  /** Resolves when no job of `name` is queued or running (tests, `scanhub worker --drain`). */
  drained(name: JobName): Promise<void>;
  /** Starts this process's workers and schedules when it runs workers and has not yet; else nothing. */
  startWorkers(): Promise<void>;
  /** Stops fetching, lets running jobs finish (up to the timeout), then closes. */
  stop(): Promise<void>;
}

/** One job of a batch, as a batch handler sees it. */
export interface BatchJob<P> {
  id: string;
  data: P;
  /** Tries before this one; equal to the queue's retry limit on the last try. */
  retryCount: number;
  retryLimit: number;
}

/** Jobs of a batch that failed (pg-boss retries them); the others complete. */
export type BatchFailures = { id: string; error: string }[];

interface JobSpecBase {
  /**
   * `singleton`: at most one running; `stately`: at most one queued and one running, so sending again
   * while one waits is a no-op — whichever process runs workers.
   */
  policy: PgBoss.QueuePolicy;
  /** Runs on this schedule (cron, UTC) in addition to whatever sends it. */
  cron?: string;
  retryLimit: number;
  /** Seconds before the first retry; doubled each time with jitter (pg-boss `retryBackoff`). */
  retryDelay?: number;
  /**
   * Sent by the runtime of a worker process whenever a notice on `channel` comes, at the start of
   * its workers and at every poll, if `pending` finds work: the job of a table that anyone writes to
   * (the outbox), so no writer has to remember to send it.
   */
  watch?: { channel: NoticeChannel; pending: (db: Kysely<DB>) => Promise<boolean> };
}

/** How one job runs; `C` is what its handler is given (the application context and a log). */
export type JobSpec<P, C> = JobSpecBase &
  (
    | { handler: (context: C, payload: P) => Promise<void> }
    | {
        /** Jobs fetched at once and handled together (many small jobs: webhook deliveries). */
        batchSize: number;
        batchHandler: (context: C, jobs: BatchJob<P>[]) => Promise<BatchFailures>;
      }
  );

/** Specs of some jobs, keyed by name: what a module exports. */
export type JobSpecs<N extends JobName, C> = { [K in N]: JobSpec<JobPayloads[K], C> };
