import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';
import { parentPort } from 'node:worker_threads';
import { findParser } from './parse/parsers/index.ts';
import { ownArrayBuffer } from '../lib/bytes.ts';
import { stageRows, type StagedChunk } from './stage.ts';
import type { FromWorker, StageJob, ThreadHeap, ToWorker, WorkerFailure } from './stage-in-worker.ts';
import { inputFromFile } from './upload-input.ts';

/**
 * Entry point of the staging thread (stage-in-worker.ts starts one and keeps it): stages the jobs
 * it is sent, several at once if they come at once, each paced by its own written chunks.
 */

const port = parentPort;
if (!port) throw new Error('stage-worker runs as a worker thread');
const send = (message: FromWorker, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

/** A job being staged: its chunks handed over and not yet written, and whether it was called off. */
interface Running {
  ahead: number;
  wake: (() => void) | undefined;
  cancelled: boolean;
}

const running = new Map<number, Running>();

/** Thrown into a job's parse when the server's thread called it off (nothing is sent for it). */
class Cancelled extends Error {}

port.on('message', (message: ToWorker) => {
  if (message.type === 'stage') {
    void stage(message.id, message.job);
    return;
  }
  const job = running.get(message.id);
  if (!job) return;
  // A written chunk's bytes come back to be collected here; a cancel stops the job at its next chunk.
  if (message.type === 'written') job.ahead--;
  else job.cancelled = true;
  job.wake?.();
  job.wake = undefined;
});

/** This thread's heap now; the young generation is the new space and its large objects. */
function heapNow(): ThreadHeap {
  const young = getHeapSpaceStatistics()
    .filter((space) => space.space_name === 'new_space' || space.space_name === 'new_large_object_space')
    .reduce((total, space) => total + space.space_size, 0);
  return { totalBytes: getHeapStatistics().total_heap_size, youngGenerationBytes: young };
}

function failure(error: unknown): WorkerFailure {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const code = (error as { code?: unknown }).code;
  return {
    name: error.name,
    message: error.message,
    ...(typeof code === 'string' ? { code } : {}),
  };
}

async function stage(id: number, job: StageJob): Promise<void> {
  const state: Running = { ahead: 0, wake: undefined, cancelled: false };
  running.set(id, state);
  try {
    const parser = findParser(job.parserName);
    if (!parser) throw new Error(`Unknown parser ${job.parserName}`);
    const input = { ...(await inputFromFile(job.path)), sniff: job.sniff };
    const handOver = async (chunk: StagedChunk, rowsStaged: number) => {
      if (state.cancelled) throw new Cancelled();
      // Copies of its own to hand over: the writers' buffers take the next rows.
      const bytes = ownArrayBuffer(Buffer.from(chunk.staging));
      const findingBytes = ownArrayBuffer(Buffer.from(chunk.findings));
      send({ type: 'chunk', id, bytes, findingBytes, rowsStaged }, [bytes, findingBytes]);
      state.ahead++;
      // Beyond `chunksAhead` the job waits for its writes, so memory stays flat.
      while (state.ahead >= job.chunksAhead && !state.cancelled) {
        await new Promise<void>((resolve) => (state.wake = resolve));
      }
      if (state.cancelled) throw new Cancelled();
    };
    const result = await stageRows(parser, input, job.uploadKey, job.upload, handOver, job.direct);
    if (!state.cancelled) send({ type: 'done', id, result, heap: heapNow() });
  } catch (error) {
    if (!state.cancelled) send({ type: 'failed', id, error: failure(error) });
  } finally {
    running.delete(id);
  }
}
