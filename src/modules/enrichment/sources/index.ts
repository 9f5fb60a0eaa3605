import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { readEpssCsv, type EpssReader } from './epss-csv.ts';
import { looksLikeKevCsv, parseKevCsv } from './kev-csv.ts';
import { parseKevJson } from './kev-json.ts';
import { EnrichmentFormatError, type KevRow, type SnapshotHeader } from './types.ts';

/** A KEV catalog is read whole: CISA's is ≈ 1.5 MB; this leaves it room to grow 30-fold. */
const KEV_MAX_BYTES = 48 * 1024 * 1024;

export type EnrichmentFile =
  { source: 'epss'; reader: EpssReader } | { source: 'kev'; header: SnapshotHeader; rows: KevRow[] };

export const SUPPORTED_FORMATS = 'FIRST EPSS CSV, CISA KEV JSON, CISA KEV CSV (each plain or gzip)';

async function isGzipFile(path: string): Promise<boolean> {
  const handle = await open(path, 'r');
  try {
    const head = Buffer.alloc(2);
    const { bytesRead } = await handle.read(head, 0, 2, 0);
    return bytesRead === 2 && head[0] === 0x1f && head[1] === 0x8b;
  } finally {
    await handle.close();
  }
}

/** The file's content as a stream, inflated when it is gzip; a corrupt gzip is a format error. */
async function contentStream(path: string): Promise<Readable> {
  const raw = createReadStream(path);
  if (!(await isGzipFile(path))) return raw;
  const gunzip = createGunzip();
  raw.on('error', (error) => gunzip.destroy(error));
  return raw.pipe(gunzip);
}

async function readAll(stream: Readable, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limit) throw new EnrichmentFormatError('file', `larger than ${limit} bytes`);
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof EnrichmentFormatError) throw error;
    throw new EnrichmentFormatError('file', 'the gzip content is corrupt');
  } finally {
    stream.destroy();
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The first bytes of the content (inflated), to tell the format; the stream is then dropped. */
async function sniff(path: string): Promise<string> {
  const stream = await contentStream(path);
  const taken: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      taken.push(chunk);
      size += chunk.length;
      if (size >= 256) break;
    }
  } catch {
    throw new EnrichmentFormatError('file', 'the gzip content is corrupt');
  } finally {
    stream.destroy();
  }
  return Buffer.concat(taken).subarray(0, 256).toString('utf8');
}

/**
 * Opens an enrichment file, telling its format from its content (never its name): EPSS rows are
 * then pulled in batches from the stream; a KEV catalog is parsed whole. Malformed content throws
 * `EnrichmentFormatError` naming the line or field.
 */
export async function openEnrichmentFile(path: string): Promise<EnrichmentFile> {
  const start = (await sniff(path)).replace(/^\uFEFF/, '').trimStart();
  if (start.startsWith('#model_version') || start.startsWith('cve,epss')) {
    return { source: 'epss', reader: await readEpssCsv(await contentStream(path)) };
  }
  if (start.startsWith('{')) {
    return { source: 'kev', ...parseKevJson(await readAll(await contentStream(path), KEV_MAX_BYTES)) };
  }
  if (looksLikeKevCsv(start)) {
    return { source: 'kev', ...parseKevCsv(await readAll(await contentStream(path), KEV_MAX_BYTES)) };
  }
  throw new EnrichmentFormatError('line 1', `unknown format; supported: ${SUPPORTED_FORMATS}`);
}

export { EnrichmentFormatError };
export type { EpssRow, KevRow, SnapshotHeader } from './types.ts';
