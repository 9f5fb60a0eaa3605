import { Gauge, type Registry } from 'prom-client';
import type { Database } from '../db/database.ts';
import { listWorkerProcesses } from '../jobs/liveness.repository.ts';

/**
 * The processes that run job workers, as every process sees them in the database (so any one server's
 * `/metrics` shows them all): their heartbeat's age, and the job runs each holds by queue. A process
 * whose heartbeat is older than `deadAfterSeconds` is about to have its jobs released.
 */
export function registerWorkerGauges(registry: Registry, database: Database, deadAfterSeconds: number): void {
  let snapshot: ReturnType<typeof listWorkerProcesses> | undefined;
  // Both gauges read one listing per scrape.
  const processes = () => {
    snapshot ??= listWorkerProcesses(database.db, database.jobSchema, deadAfterSeconds).finally(() => {
      setImmediate(() => (snapshot = undefined));
    });
    return snapshot;
  };
  new Gauge({
    name: 'scanhub_worker_heartbeat_age_seconds',
    help: 'Seconds since each registered worker process last renewed its heartbeat (alive="false": older than WORKER_DEAD_AFTER_SECONDS)',
    labelNames: ['process', 'host', 'pid', 'alive'] as const,
    registers: [registry],
    async collect() {
      const listed = await processes();
      this.reset();
      const now = Date.now();
      for (const process of listed) {
        this.set(
          { process: process.id, host: process.host, pid: String(process.pid), alive: String(process.alive) },
          Math.max(0, (now - process.heartbeat_at.getTime()) / 1000),
        );
      }
    },
  });
  new Gauge({
    name: 'scanhub_worker_jobs_held',
    help: 'Job runs each registered worker process holds now, by queue',
    labelNames: ['process', 'queue'] as const,
    registers: [registry],
    async collect() {
      const listed = await processes();
      this.reset();
      for (const process of listed) {
        const byQueue = new Map<string, number>();
        for (const job of process.jobs) byQueue.set(job.queue, (byQueue.get(job.queue) ?? 0) + 1);
        for (const [queue, count] of byQueue) this.set({ process: process.id, queue }, count);
      }
    },
  });
}
