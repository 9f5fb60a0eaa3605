import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import type { DB } from './db/schema.ts';
import type { JobLog, Jobs } from './jobs/job-map.ts';
import type { SecretBox } from './lib/secrets.ts';
import type { Metrics } from './observability/metrics.ts';

/** What route plugins and services are built from. Services take only the parts they use. */
export interface AppContext {
  config: Config;
  database: Database;
  db: Kysely<DB>;
  /** Resolved secret key (configured or generated into the data dir). */
  secretKey: string;
  secrets: SecretBox;
  /** Background jobs (pg-boss): send work, and in a worker process, run it. */
  jobs: Jobs;
  /** Prometheus instruments (`/metrics`). */
  metrics: Metrics;
  /**
   * Whether the start has run all its steps. The server listens before its last one (starting the
   * job workers) and sets this when it is done; `/readyz` answers 503 until then.
   */
  startup: { complete: boolean };
}

/** What a job's handler gets: the application context and the job's log. */
export type JobContext = AppContext & { log: JobLog };

export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;
