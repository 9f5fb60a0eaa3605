import { parentPort, workerData } from 'node:worker_threads';
import { findParser } from './parsers/index.ts';
import { ownArrayBuffer } from '../lib/bytes.ts';
import { stageRows } from './stage.ts';
import type { FromWorker, StageJob, ToWorker, WorkerFailure } from './stage-in-worker.ts';
import { inputFromFile } from './upload-input.ts';

/** Entry point of the staging worker thread (stage-in-worker.ts starts it). */

const port = parentPort;
if (!port) throw new Error('stage-worker runs as a worker thread');
const job = workerData as StageJob;
/** Chunks handed over and not yet written: the worker waits beyond this, so memory stays flat. */
const maxAhead = job.chunksAhead;
const send = (message: FromWorker, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

let ahead = 0;
let wake: (() => void) | undefined;
// Each answer is a chunk written (its bytes come back to be collected here).
port.on('message', (_written: ToWorker) => {
  ahead--;
  wake?.();
  wake = undefined;
});

function failure(error: unknown): WorkerFailure {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const code = (error as { code?: unknown }).code;
  return {
    name: error.name,
    message: error.message,
    ...(typeof code === 'string' ? { code } : {}),
  };
}

async function stage(): Promise<void> {
  const parser = findParser(job.parserName);
  if (!parser) throw new Error(`Unknown parser ${job.parserName}`);
  const input = { ...(await inputFromFile(job.path)), sniff: job.sniff };
  const result = await stageRows(parser, input, job.uploadKey, job.upload, async (text, rowsStaged) => {
    const bytes = ownArrayBuffer(Buffer.from(text, 'utf8'));
    send({ type: 'chunk', bytes, rowsStaged }, [bytes]);
    ahead++;
    while (ahead >= maxAhead) await new Promise<void>((resolve) => (wake = resolve));
  });
  send({ type: 'done', result });
}

stage().catch((error: unknown) => send({ type: 'failed', error: failure(error) }));
