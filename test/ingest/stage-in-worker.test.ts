import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { detectParser } from '../../src/ingest/parse/detect.ts';
import { ParseError, type Sniff } from '../../src/ingest/parse/parsers/types.ts';
import {
  STAGING_YOUNG_GENERATION_MB,
  stageInWorker,
  stagingStats,
  stagingThreadId,
  stopStagingThread,
  type StageJob,
} from '../../src/ingest/stage-in-worker.ts';
import { STAGING_COLUMNS, STAGING_COPY_TYPES } from '../../src/ingest/normalize-row.ts';
import { stageFindings, type StageResult } from '../../src/ingest/stage.ts';
import { inputFromFile } from '../../src/ingest/upload-input.ts';
import { readCopyRows } from '../support/copy-rows.ts';
import { corpusPath } from '../support/parse-corpus.ts';
import { buildSarif, manyResults } from '../support/sarif-builder.ts';

/**
 * Staging in a worker thread (PGlite, large files) must hand the database exactly what staging in
 * the server's thread does, fail the same way, and write its chunks in order, one at a time.
 */

const scratch = mkdtempSync(join(tmpdir(), 'scanhub-stage-worker-'));

/** The staging rows in COPY writes, in order. */
const stagedRows = (writes: Buffer[]) =>
  readCopyRows(
    Buffer.concat(writes),
    STAGING_COLUMNS.map((column) => STAGING_COPY_TYPES[column]),
  );
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const UPLOAD = { category: 'ci', root: '/home/runner/work/app' };

/** The staging job for a file, as the pipeline makes it (two chunks ahead). */
const jobFor = (path: string, sniff: Sniff, parserName = 'sarif'): StageJob => ({
  parserName,
  path,
  sniff,
  uploadKey: 'key',
  upload: UPLOAD,
  chunksAhead: 2,
});

/** A database that only records (or refuses) COPY writes, and how many ran at once. */
function recordingDatabase(options: { delayMs?: number; failOnWrite?: number } = {}) {
  const writes: Buffer[] = [];
  let running = 0;
  let mostAtOnce = 0;
  const database = {
    kind: 'pglite',
    copyFrom: async (_table: string, _columns: readonly string[], rows: Buffer) => {
      running++;
      mostAtOnce = Math.max(mostAtOnce, running);
      try {
        if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
        if (options.failOnWrite === writes.length + 1) throw new Error('connection reset by the test');
        // A copy: the worker's bytes go back to it once written.
        writes.push(Buffer.from(rows));
      } finally {
        running--;
      }
    },
  } as unknown as Database;
  return { database, writes, mostAtOnce: () => mostAtOnce };
}

async function stageBoth(path: string): Promise<{ inline: StageResult; worker: StageResult; same: boolean }> {
  const input = await inputFromFile(path);
  const detected = await detectParser(input);
  if (!detected) throw new Error(`no parser for ${path}`);
  const here = recordingDatabase();
  const inline = await stageFindings(here.database, detected.parser, detected.input, 'key', UPLOAD);
  const there = recordingDatabase();
  const job = jobFor(path, detected.input.sniff, detected.parser.name);
  const worker = await stageInWorker(there.database, job);
  return { inline, worker, same: Buffer.concat(here.writes).equals(Buffer.concat(there.writes)) };
}

describe('staging in a worker thread', () => {
  it.each([
    'sarif/codeQL-output.sarif',
    'sarif/DefectDojo_django-DefectDojo__2020-12-11_13 42 10__export.sarif',
    'bandit/many_vulns.json',
    'dependency_check/multiple_vulnerabilities_has_multiple_findings.xml',
  ])('stages %s exactly as the server thread does', async (file) => {
    const { inline, worker, same } = await stageBoth(corpusPath(file));
    expect(worker).toEqual(inline);
    expect(worker.findingsCount).toBeGreaterThan(0);
    expect(same).toBe(true);
  });

  it('reads gzip uploads, and a report of many chunks arrives whole, in order, one write at a time', async () => {
    const path = join(scratch, 'many.sarif.gz');
    writeFileSync(path, gzipSync(buildSarif({ results: manyResults(6000) })));
    const { inline, worker, same } = await stageBoth(path);
    expect(worker).toEqual(inline);
    expect(same).toBe(true);

    const slow = recordingDatabase({ delayMs: 5 });
    const input = await inputFromFile(path);
    const job = jobFor(path, input.sniff);
    await stageInWorker(slow.database, job);
    expect(slow.writes.length).toBeGreaterThan(3);
    expect(slow.mostAtOnce()).toBe(1);
    // Chunks in order, rows in order within them.
    const seq = STAGING_COLUMNS.indexOf('seq');
    const seqs = stagedRows(slow.writes).map((row) => row[seq]);
    expect(seqs).toEqual(seqs.map((_, index) => index));
  });

  it('flags each row whose fingerprint the upload staged before (maybe_repeat), and no first one', async () => {
    const path = join(scratch, 'repeats.sarif');
    const result = (n: number, line: number) => ({
      ruleId: `r${n}`,
      path: 'src/a.ts',
      line,
      snippet: `s${n}`,
    });
    // 1 and 2 are reported again on other lines (twins share their identity base, the staged fingerprint).
    const identities = [1, 2, 3, 1, 4, 2, 2, 5];
    writeFileSync(path, buildSarif({ results: identities.map((n, index) => result(n, 10 + index)) }));
    const input = await inputFromFile(path);
    const detected = await detectParser(input);
    const here = recordingDatabase();
    await stageFindings(here.database, detected!.parser, detected!.input, 'key', UPLOAD);
    const column = STAGING_COLUMNS.indexOf('maybe_repeat');
    const flags = stagedRows(here.writes).map((row) => row[column]);
    expect(flags).toEqual(identities.map((n, index) => identities.indexOf(n) < index));
  });

  it('in the server thread, a chunk keeps its bytes while it is written and the next is encoded', async () => {
    // The server thread encodes chunks into two buffers in turn: a slow COPY reads its chunk after
    // the next one has been encoded, and must still find its own bytes there.
    const path = join(scratch, 'reused.sarif');
    writeFileSync(path, buildSarif({ results: manyResults(6000) }));
    const input = await inputFromFile(path);
    const parser = (await detectParser(input))?.parser;
    if (!parser) throw new Error('not detected');
    // Slower than encoding a chunk, so each write is still running when the next chunk is encoded.
    const slow = recordingDatabase({ delayMs: 50 });
    await stageFindings(slow.database, parser, input, 'key', UPLOAD);
    const there = recordingDatabase();
    const job = jobFor(path, input.sniff);
    await stageInWorker(there.database, job);
    expect(slow.writes.length).toBeGreaterThan(3);
    expect(Buffer.concat(slow.writes).equals(Buffer.concat(there.writes))).toBe(true);
  });

  it('fails a truncated report and a corrupt gzip with the ParseError the server thread raises', async () => {
    const truncated = join(scratch, 'truncated.sarif');
    const whole = buildSarif({ results: manyResults(3000) });
    writeFileSync(truncated, whole.slice(0, Math.floor(whole.length * 0.8)));
    const corrupt = join(scratch, 'corrupt.sarif.gz');
    const zipped = gzipSync(whole);
    writeFileSync(corrupt, Buffer.concat([zipped.subarray(0, 40_000), Buffer.alloc(4000, 7)]));

    for (const path of [truncated, corrupt]) {
      const input = await inputFromFile(path);
      const job = jobFor(path, input.sniff);
      const inWorker = await stageInWorker(recordingDatabase().database, job).catch(
        (caught: unknown) => caught,
      );
      const parser = (await detectParser(input))?.parser;
      if (!parser) throw new Error('not detected');
      const inline = await stageFindings(recordingDatabase().database, parser, input, 'key', UPLOAD).catch(
        (caught: unknown) => caught,
      );
      expect(inline).toBeInstanceOf(ParseError);
      expect(inWorker).toBeInstanceOf(ParseError);
      expect((inWorker as Error).message).toBe((inline as Error).message);
    }
  });

  it('stops at a failed write: the upload fails with it and nothing is written after', async () => {
    const path = join(scratch, 'write-fails.sarif');
    writeFileSync(path, buildSarif({ results: manyResults(6000) }));
    const refusing = recordingDatabase({ failOnWrite: 2 });
    const input = await inputFromFile(path);
    const job = jobFor(path, input.sniff);
    await expect(stageInWorker(refusing.database, job)).rejects.toThrow('connection reset by the test');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(refusing.writes).toHaveLength(1);
    expect(readFileSync(path).length).toBeGreaterThan(2 * 512 * 1024);
  });

  it('one staging thread serves every upload, several at once, each whole and in order', async () => {
    const first = join(scratch, 'first.sarif');
    const second = join(scratch, 'second.sarif.gz');
    writeFileSync(first, buildSarif({ results: manyResults(5000) }));
    writeFileSync(second, gzipSync(buildSarif({ results: manyResults(7000).reverse() })));
    const alone = await Promise.all([first, second].map((path) => stageBoth(path)));
    const thread = stagingThreadId();
    expect(thread).toBeDefined();

    // Both at once, slow writes: the jobs interleave in the thread, and neither sees the other's rows.
    const slow = [recordingDatabase({ delayMs: 3 }), recordingDatabase({ delayMs: 3 })];
    const together = await Promise.all(
      [first, second].map(async (path, index) => {
        const input = await inputFromFile(path);
        return stageInWorker(slow[index]!.database, jobFor(path, input.sniff));
      }),
    );
    expect(together).toEqual(alone.map((both) => both.worker));
    const inline = await Promise.all(
      [first, second].map(async (path) => {
        const input = await inputFromFile(path);
        const parser = (await detectParser(input))?.parser;
        const here = recordingDatabase();
        await stageFindings(here.database, parser!, input, 'key', UPLOAD);
        return Buffer.concat(here.writes);
      }),
    );
    expect(slow.map((database, index) => Buffer.concat(database.writes).equals(inline[index]!))).toEqual([
      true,
      true,
    ]);
    expect(stagingThreadId()).toBe(thread);
  });

  it('a job called off leaves the thread to the others; a thread that dies fails its jobs, and the next starts another', async () => {
    const path = join(scratch, 'shared.sarif');
    writeFileSync(path, buildSarif({ results: manyResults(6000) }));
    const input = await inputFromFile(path);
    const refusing = recordingDatabase({ failOnWrite: 1 });
    const steady = recordingDatabase({ delayMs: 2 });
    const [refused, staged] = await Promise.allSettled([
      stageInWorker(refusing.database, jobFor(path, input.sniff)),
      stageInWorker(steady.database, jobFor(path, input.sniff)),
    ]);
    expect(refused.status).toBe('rejected');
    expect(staged).toMatchObject({ status: 'fulfilled', value: { findingsCount: 6000 } });

    const thread = stagingThreadId();
    const running = stageInWorker(recordingDatabase({ delayMs: 20 }).database, jobFor(path, input.sniff));
    await stopStagingThread();
    // Not the upload's fault: a 503 that says to send it again.
    await expect(running).rejects.toMatchObject({ status: 503, code: 'staging_interrupted' });
    await expect(running).rejects.toThrow(/staging worker stopped.*send it again/);
    const after = await stageInWorker(recordingDatabase().database, jobFor(path, input.sniff));
    expect(after.findingsCount).toBe(6000);
    expect(stagingThreadId()).not.toBe(thread);
  });

  it("keeps the thread's young generation within its cap through a long parse, and reports its heap", async () => {
    const path = join(scratch, 'long.sarif');
    writeFileSync(path, buildSarif({ results: manyResults(40_000) }));
    const input = await inputFromFile(path);
    const staged = await stageInWorker(recordingDatabase().database, jobFor(path, input.sniff));
    expect(staged.findingsCount).toBe(40_000);
    const heap = stagingStats().heap;
    // Without the cap V8 grew it to 33.9 MB under a parse this long.
    expect(heap?.youngGenerationBytes).toBeGreaterThan(0);
    expect(heap?.youngGenerationBytes).toBeLessThanOrEqual(STAGING_YOUNG_GENERATION_MB * 2 ** 20);
    expect(heap?.totalBytes).toBeGreaterThan(heap?.youngGenerationBytes ?? 0);
  });
});
