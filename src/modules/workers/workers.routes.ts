import { Type } from 'typebox';
import type { App, AppContext } from '../../app-context.ts';
import { Timestamp } from '../../http/schemas.ts';
import { listWorkerProcesses } from '../../jobs/liveness.repository.ts';

const HeldJobSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  queue: Type.String(),
  started_at: Timestamp,
  /** The upload an `ingest-scan` job finishes. */
  scan_id: Type.Union([Type.Null(), Type.Integer()]),
});

const WorkerProcessSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  host: Type.String(),
  pid: Type.Integer(),
  started_at: Timestamp,
  heartbeat_at: Timestamp,
  alive: Type.Boolean(),
  jobs: Type.Array(HeldJobSchema),
});

export function workerRoutes(app: App, { database, config }: AppContext): void {
  app.get(
    '/api/admin/workers',
    {
      config: { access: 'workers.read' },
      schema: {
        operationId: 'listWorkerProcesses',
        description:
          'Every process that runs job workers (servers with `JOBS_IN_SERVER`, `scanhub worker`): its host and pid, its last heartbeat, whether that is within `WORKER_DEAD_AFTER_SECONDS`, and the job runs it holds now. A process that stopped heartbeating is removed, and its jobs released for retry, by the next live one that looks.',
        tags: ['admin'],
        summary: 'Worker processes and the jobs each holds (admin)',
        response: { 200: Type.Array(WorkerProcessSchema) },
      },
    },
    async () =>
      (await listWorkerProcesses(database.db, database.jobSchema, config.jobs.deadAfterSeconds)).map(
        (process) => ({
          ...process,
          started_at: process.started_at.toISOString(),
          heartbeat_at: process.heartbeat_at.toISOString(),
          jobs: process.jobs.map((job) => ({ ...job, started_at: job.started_at.toISOString() })),
        }),
      ),
  );
}
