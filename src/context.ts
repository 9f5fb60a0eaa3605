import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from './app-context.ts';
import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import { IngestQueue } from './ingest/ingest-queue.ts';
import { SecretBox } from './lib/secrets.ts';
import { processQueuedScan } from './modules/ingest/ingest.service.ts';

/** Wires the application context: database, secrets and the async ingest queue. */
export function createAppContext(
  config: Config,
  database: Database,
  secretKey: string,
  log: Pick<FastifyBaseLogger, 'error'>,
): AppContext {
  // The queue's worker needs the finished context; it only runs after this function returns.
  const ingestQueue = new IngestQueue(
    (scanId) => processQueuedScan(context, scanId),
    (scanId, error) => log.error({ err: error, scanId }, 'async ingest failed'),
  );
  const context: AppContext = {
    config,
    database,
    db: database.db,
    secretKey,
    secrets: new SecretBox(secretKey),
    ingestQueue,
  };
  return context;
}
