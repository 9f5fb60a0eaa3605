import { AsyncResource } from 'node:async_hooks';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Database } from '../db/database.ts';
import { AppError } from '../errors.ts';
import { PACKAGE_ROOT } from '../package-root.ts';
import { ParseError, type Sniff } from './parse/parsers/types.ts';
import type { DirectFindings } from './finding-copy-rows.ts';
import { writeChunk, type StageResult, type StagingTarget, type UploadContext } from './stage.ts';

/**
 * Staging in a worker thread: the worker parses and encodes (stage.ts `stageRows`), the server's
 * thread only writes the chunks it hands over. On PGlite, whose COPY and merge run in the server's
 * thread, parsing then overlaps them instead of coming before them (pipeline.ts decides when).
 *
 * One staging thread serves every upload, started with the first and kept: a thread per upload
 * cost each one a new V8 isolate (~80 ms to load the parsers) and a parse in cold, unoptimized code
 * (a 10k SARIF upload staged in 375 ms cold, 220–260 ms warm), so only large uploads used one and
 * smaller ones were parsed in the server's thread, holding up its requests. It idles unreferenced,
 * so it never keeps the process alive; if it dies, its jobs fail (503, send it again) and the next
 * upload starts another.
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
  /** A version's first upload: where its certain firsts go as findings (`StagingTarget.direct`). */
  direct?: DirectFindings;
}

/** A failure, as plain data across the thread boundary. */
export interface WorkerFailure {
  name: string;
  message: string;
  /** Node's error code, when there is one (`Z_DATA_ERROR`: a corrupt gzip upload). */
  code?: string;
}

/** The staging thread's V8 heap, in bytes committed: all of it, and its young generation. */
export interface ThreadHeap {
  totalBytes: number;
  youngGenerationBytes: number;
}

/** What the staging thread sends, about the job `id`. */
export type FromWorker = { id: number } & (
  | { type: 'chunk'; bytes: ArrayBuffer; findingBytes: ArrayBuffer; rowsStaged: number }
  | { type: 'done'; result: StageResult; heap: ThreadHeap }
  | { type: 'failed'; error: WorkerFailure }
);

/**
 * What the server's thread sends: a job to stage, a job's written chunk (its bytes go back, and the
 * job may send another), or a job called off (its write failed, or the upload did).
 */
export type ToWorker =
  | { type: 'stage'; id: number; job: StageJob }
  | { type: 'written'; id: number; bytes: ArrayBuffer; findingBytes: ArrayBuffer }
  | { type: 'cancel'; id: number };

/** The name a job's failure takes when the thread itself stopped under it. */
const INTERRUPTED = 'StagingInterrupted';

function revive(failure: WorkerFailure): Error {
  if (failure.name === 'ParseError') return new ParseError(failure.message);
  // Not the upload's fault, as far as anyone can tell (the thread serves several): send it again.
  if (failure.name === INTERRUPTED) {
    return new AppError(
      503,
      'staging_interrupted',
      `The upload could not be parsed to the end (${failure.message}); send it again`,
    );
  }
  const error = new Error(failure.message) as Error & { code?: string };
  error.name = failure.name;
  if (failure.code !== undefined) error.code = failure.code;
  return error;
}

/**
 * The staging thread's young generation, in MiB: 8 MiB semi-spaces, where V8's default lets them
 * grow to 16 MiB (a 48 MiB young generation). A parse allocates short-lived objects steadily for as
 * long as the upload lasts, and V8 grows the young generation only under such a long run: a
 * 500k-result upload's peak RSS on PGlite stood 38–68 MB above a 10k one's at the default, 2–8 MB
 * at this cap, the uploads as fast (bench scenarios 1–3, README). At 12 MiB the memory was the same
 * and re-uploads, whose merge waits for the parse, took ~5% longer.
 */
export const STAGING_YOUNG_GENERATION_MB = 24;

function startWorker(): Worker {
  const resourceLimits = { maxYoungGenerationSizeMb: STAGING_YOUNG_GENERATION_MB };
  if (!import.meta.url.endsWith('.ts')) {
    // The build (scripts/build-server.ts) makes the worker an entry point of its own.
    return new Worker(join(PACKAGE_ROOT, 'dist', 'stage-worker.js'), { resourceLimits });
  }
  // From the sources (development, tests) a worker must load tsx before it can import TypeScript.
  const tsx = import.meta.resolve('tsx/esm/api');
  const entry = new URL('./stage-worker.ts', import.meta.url).href;
  const bootstrap = `import(${JSON.stringify(tsx)}).then((api) => api.tsImport(${JSON.stringify(entry)}, ${JSON.stringify(import.meta.url)}))`;
  return new Worker(bootstrap, { eval: true, resourceLimits });
}

/** The staging thread and the jobs it has not finished, each by its handler. */
interface StagingThread {
  worker: Worker;
  jobs: Map<number, (message: FromWorker) => void>;
}

let thread: StagingThread | undefined;
let nextJobId = 1;
/** Staging threads started by this process: more than one means one stopped (a crash, or a close). */
let threadsStarted = 0;
/** The staging thread's heap as it stood after the last upload it staged (none yet: undefined). */
let lastHeap: ThreadHeap | undefined;

function stagingThread(): StagingThread {
  if (thread) return thread;
  const worker = startWorker();
  const started: StagingThread = { worker, jobs: new Map() };
  const died = (error: Error) => {
    if (thread === started) thread = undefined;
    const failure = { name: INTERRUPTED, message: error.message };
    for (const [id, handle] of started.jobs) handle({ id, type: 'failed', error: failure });
    started.jobs.clear();
  };
  worker.on('message', (message: FromWorker) => started.jobs.get(message.id)?.(message));
  worker.on('error', died);
  worker.on('exit', (code) => died(new Error(`The staging worker stopped early (exit code ${code})`)));
  worker.unref();
  thread = started;
  threadsStarted++;
  return started;
}

/** Stops the staging thread, if one runs (its jobs fail); the next upload starts another. */
export async function stopStagingThread(): Promise<void> {
  const running = thread;
  if (!running) return;
  thread = undefined;
  await running.worker.terminate();
}

/**
 * Stages an upload as `stageFindings` does, parsing in the staging thread. Chunks are written in
 * the order they were made, one at a time, while the worker parses on (at most `chunksAhead`
 * ahead), each followed by `into.afterCopy`. On any failure the job is called off and the write in
 * flight finishes before the promise rejects (the caller deletes the staged rows next).
 */
export function stageInWorker(
  database: Database,
  job: StageJob,
  into: Omit<StagingTarget, 'depth'> = {},
): Promise<StageResult> {
  const { worker, jobs } = stagingThread();
  const id = nextJobId++;
  const copy = into.copy ?? database.copyFrom;
  let writes: Promise<void> = Promise.resolve();
  let finished = false;
  return new Promise<StageResult>((resolve, reject) => {
    const finish = (outcome: () => void, cancel: boolean) => {
      if (finished) return;
      finished = true;
      jobs.delete(id);
      // While a job runs the thread keeps the process alive, as any pending work does.
      if (jobs.size === 0) worker.unref();
      if (cancel) worker.postMessage({ type: 'cancel', id } satisfies ToWorker);
      void writes.catch(() => undefined).then(outcome);
    };
    const fail = (error: unknown) => finish(() => reject(error), true);
    // Bound to the caller's context: on PGlite the writes run as the upload's background work.
    const onMessage = AsyncResource.bind((message: FromWorker) => {
      if (finished) return;
      if (message.type === 'chunk') {
        const { bytes, findingBytes, rowsStaged } = message;
        const written = writes.then(async () => {
          const chunk = { staging: Buffer.from(bytes), findings: Buffer.from(findingBytes) };
          await writeChunk(copy, into.table ?? 'ingest_staging', chunk);
          await into.afterCopy?.(rowsStaged);
        });
        writes = written;
        // Written, the chunk goes back with the answer: this thread allocates little and seldom
        // collects, so chunks left here could wait long for a collection, while the worker drops
        // them among its many short-lived objects.
        written.then(() => {
          if (!finished) {
            const back = { type: 'written', id, bytes, findingBytes } satisfies ToWorker;
            worker.postMessage(back, [bytes, findingBytes]);
          }
        }, fail);
      } else if (message.type === 'done') {
        lastHeap = message.heap;
        writes.then(() => finish(() => resolve(message.result), false), fail);
      } else finish(() => reject(revive(message.error)), false);
    });
    jobs.set(id, onMessage);
    worker.ref();
    worker.postMessage({ type: 'stage', id, job } satisfies ToWorker);
  });
}

/**
 * For /metrics: uploads being staged in the thread now, threads started since the process began,
 * and the thread's heap after its last upload (the process's own heap metrics are the server
 * thread's only).
 */
export const stagingStats = (): { jobs: number; threadsStarted: number; heap: ThreadHeap | undefined } => ({
  jobs: thread?.jobs.size ?? 0,
  threadsStarted,
  heap: lastHeap,
});

/** The staging thread's id while one runs (tests: one thread serves every upload). */
export const stagingThreadId = (): number | undefined => thread?.worker.threadId;
