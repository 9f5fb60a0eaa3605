import { AsyncResource } from 'node:async_hooks';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Database } from '../db/database.ts';
import { PACKAGE_ROOT } from '../package-root.ts';
import { ParseError, type Sniff } from './parsers/types.ts';
import { STAGING_COLUMNS } from './normalize-row.ts';
import type { StageResult, StagingTarget, UploadContext } from './stage.ts';

/**
 * Staging in a worker thread: the worker parses and encodes (stage.ts `stageRows`), the server's
 * thread only writes the chunks it hands over. On PGlite, whose COPY and merge run in the server's
 * thread, parsing then overlaps them instead of coming before them (pipeline.ts decides when).
 */

/** What the worker needs to stage one upload (plain data: it is copied to the worker). */
export interface StageJob {
  parserName: string;
  /** The uploaded file on disk, reopened by the worker. */
  path: string;
  /** The sniff the parser was chosen with (detection may have read more than the file's head). */
  sniff: Sniff;
  uploadKey: string;
  upload: UploadContext;
  /** Chunks the worker may hand over before the first of them is written. */
  chunksAhead: number;
}

/** A failure, as plain data across the thread boundary. */
export interface WorkerFailure {
  name: string;
  message: string;
  /** Node's error code, when there is one (`Z_DATA_ERROR`: a corrupt gzip upload). */
  code?: string;
}

export type FromWorker =
  | { type: 'chunk'; bytes: ArrayBuffer; rowsStaged: number }
  | { type: 'done'; result: StageResult }
  | { type: 'failed'; error: WorkerFailure };

/** What the server's thread sends back: a written chunk's bytes (the worker may send another). */
export type ToWorker = ArrayBuffer;

function revive(failure: WorkerFailure): Error {
  if (failure.name === 'ParseError') return new ParseError(failure.message);
  const error = new Error(failure.message) as Error & { code?: string };
  error.name = failure.name;
  if (failure.code !== undefined) error.code = failure.code;
  return error;
}

function startWorker(job: StageJob): Worker {
  if (!import.meta.url.endsWith('.ts')) {
    // The build (scripts/build-server.ts) makes the worker an entry point of its own.
    return new Worker(join(PACKAGE_ROOT, 'dist', 'stage-worker.js'), { workerData: job });
  }
  // From the sources (development, tests) a worker must load tsx before it can import TypeScript.
  const tsx = import.meta.resolve('tsx/esm/api');
  const entry = new URL('./stage-worker.ts', import.meta.url).href;
  const bootstrap = `import(${JSON.stringify(tsx)}).then((api) => api.tsImport(${JSON.stringify(entry)}, ${JSON.stringify(import.meta.url)}))`;
  return new Worker(bootstrap, { eval: true, workerData: job });
}

/**
 * Stages an upload as `stageFindings` does, parsing in a worker thread. Chunks are written in the
 * order they were made, one at a time, while the worker parses on (at most `chunksAhead` ahead),
 * each followed by `into.afterCopy`. On
 * any failure the worker is stopped and the write in flight finishes before the promise rejects
 * (the caller deletes the staged rows next).
 */
export function stageInWorker(
  database: Database,
  job: StageJob,
  into: Omit<StagingTarget, 'depth'> = {},
): Promise<StageResult> {
  const worker = startWorker(job);
  const copy = into.copy ?? database.copyFrom;
  let writes: Promise<void> = Promise.resolve();
  let finished = false;
  return new Promise<StageResult>((resolve, reject) => {
    const finish = (outcome: () => void) => {
      if (finished) return;
      finished = true;
      void worker.terminate();
      void writes.catch(() => undefined).then(outcome);
    };
    const fail = (error: unknown) => finish(() => reject(error));
    // Bound to the caller's context: on PGlite the writes run as the upload's background work.
    const onMessage = AsyncResource.bind((message: FromWorker) => {
      if (finished) return;
      if (message.type === 'chunk') {
        const { bytes, rowsStaged } = message;
        const written = writes.then(async () => {
          await copy(into.table ?? 'ingest_staging', STAGING_COLUMNS, Buffer.from(bytes));
          await into.afterCopy?.(rowsStaged);
        });
        writes = written;
        // Written, the chunk goes back with the answer: this thread allocates little and seldom
        // collects, so chunks left here could wait long for a collection, while the worker drops
        // them among its many short-lived objects.
        written.then(() => {
          if (!finished) worker.postMessage(bytes, [bytes]);
        }, fail);
      } else if (message.type === 'done') {
        writes.then(() => finish(() => resolve(message.result)), fail);
      } else fail(revive(message.error));
    });
    worker.on('message', onMessage);
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`The staging worker stopped early (exit code ${code})`)));
  });
}
