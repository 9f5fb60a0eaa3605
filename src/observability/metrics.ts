import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { sql } from 'kysely';
import { pgliteMemoryBytes, type Database } from '../db/database.ts';
import { stagingStats } from '../ingest/stage-in-worker.ts';
import { registerWorkerGauges } from './worker-metrics.ts';

/**
 * The process's Prometheus metrics (served at `/metrics`). One registry per app context, so several
 * apps in one process (the tests) never register a metric twice.
 */
export interface Metrics {
  registry: Registry;
  httpRequestDuration: Histogram<'method' | 'route' | 'status'>;
  ingestDuration: Histogram<'format' | 'mode'>;
  ingestBytes: Counter<'format'>;
  ingestFindings: Counter<'format'>;
  webhookDeliveries: Counter<'outcome'>;
  /** Job runs released for retry by liveness: a dead process's, or this one's at shutdown. */
  jobsReleased: Counter<'reason'>;
}

export type DeliveryOutcome = 'delivered' | 'retried' | 'failed';

export function createMetrics(database: Database, { workerDeadAfterSeconds = 20 } = {}): Metrics {
  const registry = new Registry();
  // The event-loop lag histogram samples every 100 ms, not prom-client's 10 ms: its timer woke an
  // idle server ~200 times a second, about 2 % of a core. A stall still shows in it when it
  // overlaps a sample, and any stall of 100 ms or more always does.
  collectDefaultMetrics({ register: registry, prefix: 'scanhub_', eventLoopMonitoringPrecision: 100 });
  const httpRequestDuration = new Histogram({
    name: 'scanhub_http_request_duration_seconds',
    help: 'HTTP requests by route pattern, method and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const ingestDuration = new Histogram({
    name: 'scanhub_ingest_duration_seconds',
    help: 'Time to ingest one upload, from the stored file to the committed merge, by format and mode',
    labelNames: ['format', 'mode'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers: [registry],
  });
  const ingestBytes = new Counter({
    name: 'scanhub_ingest_bytes_total',
    help: 'Bytes of uploaded reports ingested, as received (gzip counted compressed), by format',
    labelNames: ['format'] as const,
    registers: [registry],
  });
  const ingestFindings = new Counter({
    name: 'scanhub_ingest_findings_total',
    help: 'Findings read from ingested reports, by format',
    labelNames: ['format'] as const,
    registers: [registry],
  });
  const webhookDeliveries = new Counter({
    name: 'scanhub_webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome: delivered, retried (will be tried again) or failed (retries used up)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  for (const outcome of ['delivered', 'retried', 'failed'] as const) webhookDeliveries.inc({ outcome }, 0);
  const jobsReleased = new Counter({
    name: 'scanhub_jobs_released_total',
    help: 'Job runs this process released for retry: held by a process that stopped heartbeating (dead_process), or its own at shutdown',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  for (const reason of ['dead_process', 'shutdown'] as const) jobsReleased.inc({ reason }, 0);
  registerWorkerGauges(registry, database, workerDeadAfterSeconds);

  new Gauge({
    name: 'scanhub_jobs',
    help: 'Background jobs by queue and state (created and retry are queued; active are running)',
    labelNames: ['name', 'state'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const rows = await sql<{ name: string; state: string; count: string }>`
        select name, state::text as state, count(*)::text as count
        from ${sql.table(`${database.jobSchema}.job`)}
        where state in ('created', 'retry', 'active', 'failed')
        group by name, state`.execute(database.db);
      for (const row of rows.rows) this.set({ name: row.name, state: row.state }, Number(row.count));
    },
  });
  new Gauge({
    name: 'scanhub_enrichment_snapshot_age_seconds',
    help: "Age of each enrichment source's current snapshot (EPSS score_date, KEV dateReleased), by source and version; absent before the first import",
    labelNames: ['source', 'version'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const rows = await sql<{ source: string; version: string; age: number }>`
        select source, version, extract(epoch from (now() - data_date::timestamp at time zone 'UTC'))::float8 as age
        from enrichment_snapshots where current`.execute(database.db);
      for (const row of rows.rows)
        this.set({ source: row.source, version: row.version }, Math.max(0, Number(row.age)));
    },
  });
  new Gauge({
    name: 'scanhub_enrichment_snapshot_rows',
    help: "Rows of each enrichment source's current snapshot",
    labelNames: ['source'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const rows = await sql<{ source: string; row_count: number }>`
        select source, row_count from enrichment_snapshots where current`.execute(database.db);
      for (const row of rows.rows) this.set({ source: row.source }, Number(row.row_count));
    },
  });
  const pool = database.pool;
  const session = database.pglite?.lock;
  new Gauge({
    name: 'scanhub_database_connections',
    help: 'PostgreSQL pool clients (total, idle, waiting); PGlite: the one session held, and waiters by class',
    labelNames: ['engine', 'state'] as const,
    registers: [registry],
    collect() {
      this.reset();
      if (pool) {
        this.set({ engine: 'postgres', state: 'total' }, pool.totalCount);
        this.set({ engine: 'postgres', state: 'idle' }, pool.idleCount);
        this.set({ engine: 'postgres', state: 'waiting' }, pool.waitingCount);
      }
      if (session) {
        const stats = session.stats();
        this.set({ engine: 'pglite', state: 'held' }, stats.held ? 1 : 0);
        this.set({ engine: 'pglite', state: 'waiting_requests' }, stats.waitingRequests);
        this.set({ engine: 'pglite', state: 'waiting_background' }, stats.waitingBackground);
      }
    },
  });
  const pglite = database.pglite?.instance;
  if (pglite) {
    new Gauge({
      name: 'scanhub_pglite_memory_bytes',
      help: "The embedded database's WebAssembly memory: it grows with the work it does and is never returned",
      registers: [registry],
      collect() {
        this.set(pgliteMemoryBytes(pglite));
      },
    });
  }
  new Gauge({
    name: 'scanhub_staging_jobs',
    help: 'Uploads being parsed in the staging thread now',
    registers: [registry],
    collect() {
      this.set(stagingStats().jobs);
    },
  });
  new Gauge({
    name: 'scanhub_staging_heap_bytes',
    help: "The staging thread's V8 heap after its last upload, in bytes committed: all of it (space=total) and its young generation (space=young)",
    labelNames: ['space'] as const,
    registers: [registry],
    collect() {
      const { heap } = stagingStats();
      if (!heap) return;
      this.set({ space: 'total' }, heap.totalBytes);
      this.set({ space: 'young' }, heap.youngGenerationBytes);
    },
  });
  let threadsCounted = 0;
  new Counter({
    name: 'scanhub_staging_threads_started_total',
    help: 'Staging threads started by this process; one more than the first means one stopped under its uploads',
    registers: [registry],
    collect() {
      const { threadsStarted } = stagingStats();
      this.inc(threadsStarted - threadsCounted);
      threadsCounted = threadsStarted;
    },
  });
  return {
    registry,
    httpRequestDuration,
    ingestDuration,
    ingestBytes,
    ingestFindings,
    webhookDeliveries,
    jobsReleased,
  };
}

/**
 * The registry in the text exposition format, with "not a number" spelled `NaN` as the format
 * requires: prom-client 15 writes `Nan` (its `getValueAsString`), which Prometheus's own parser
 * happens to accept but stricter ones (OpenMetrics) do not. The event-loop lag gauges are NaN
 * whenever no delay was sampled since the last scrape, as when two scrapes come within one sampling
 * interval (100 ms, above).
 */
export async function exposition(registry: Registry): Promise<string> {
  // Sample lines only: a HELP text may end with the word.
  return (await registry.metrics()).replace(/^([^#\n].*) Nan$/gm, '$1 NaN');
}
