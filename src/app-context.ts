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
import type { IngestQueue } from './ingest/ingest-queue.ts';
import type { SecretBox } from './lib/secrets.ts';

/** What route plugins and services are built from. Services take only the parts they use. */
export interface AppContext {
  config: Config;
  database: Database;
  db: Kysely<DB>;
  /** Resolved secret key (configured or generated into the data dir). */
  secretKey: string;
  secrets: SecretBox;
  /** Async uploads waiting to be processed in this process. */
  ingestQueue: IngestQueue;
}

export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;
