import { createHash, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, type Gunzip } from 'node:zlib';

export interface SpooledFile {
  path: string;
  size: number;
  sha256: string;
}

/** The upload inflates past the limit: a compression bomb, or simply too much. */
export class DecompressedTooLargeError extends Error {
  override name = 'DecompressedTooLargeError';
  readonly statusCode = 413;
  constructor(readonly limit: number) {
    super(`The upload inflates to more than ${limit} bytes`);
  }
}

/**
 * Counts the bytes a gzip upload inflates to while it is still arriving, and fails the moment the
 * count passes `limit`. The inflated bytes are counted and dropped, never kept: a 1 MB file that
 * inflates to 1 GiB costs one zlib stream's buffers and stops after `limit` bytes of work.
 * Corrupt gzip is not judged here; the parser reports it as a bad file.
 */
class InflatedSizeGuard {
  // Large output chunks: a bomb inflates ~1000× per input byte, and each 16 KiB default chunk is a
  // thread-pool round trip (6,400 of them to reach 100 MiB took seconds on a busy machine).
  private readonly gunzip: Gunzip = createGunzip({ chunkSize: 1024 * 1024 });
  private inflated = 0;
  private failure: Error | undefined;
  private corrupt = false;
  private readonly finished: Promise<void>;

  constructor(private readonly limit: number) {
    this.gunzip.on('data', (chunk: Buffer) => {
      this.inflated += chunk.length;
      if (this.inflated > this.limit && !this.failure) {
        this.failure = new DecompressedTooLargeError(this.limit);
        this.gunzip.destroy();
      }
    });
    this.finished = new Promise((resolve) => {
      this.gunzip.once('end', resolve);
      this.gunzip.once('close', resolve);
      this.gunzip.once('error', () => {
        this.corrupt = true;
        resolve();
      });
    });
  }

  /** Feeds compressed bytes; resolves when zlib can take more, rejects once the limit is passed. */
  async write(chunk: Buffer): Promise<void> {
    if (this.failure) throw this.failure;
    if (this.corrupt || this.gunzip.destroyed) return;
    if (!this.gunzip.write(chunk)) await Promise.race([once(this.gunzip, 'drain'), this.finished]);
    if (this.failure) throw this.failure;
  }

  async end(): Promise<void> {
    if (!this.corrupt && !this.gunzip.destroyed) this.gunzip.end();
    await this.finished;
    if (this.failure) throw this.failure;
  }
}

const isGzip = (head: Buffer): boolean => head[0] === 0x1f && head[1] === 0x8b;

export interface SpoolOptions {
  /** For gzip content: the most bytes it may inflate to (the upload limit). */
  maxInflatedBytes?: number;
}

/**
 * Writes an upload stream to a file under `dir`, hashing it on the way, so the parser can read it
 * (twice if it must) without the upload ever sitting in memory. Gzip content is measured inflated
 * as it arrives (see `InflatedSizeGuard`).
 */
export async function spoolToFile(
  source: Readable,
  dir: string,
  options: SpoolOptions = {},
): Promise<SpooledFile> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, `${randomUUID()}.upload`);
  const hash = createHash('sha256');
  let size = 0;
  let head = Buffer.alloc(0);
  let guard: InflatedSizeGuard | null | undefined = options.maxInflatedBytes === undefined ? null : undefined;
  const measure = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      size += chunk.length;
      if (guard === undefined && head.length + chunk.length >= 2) {
        head = Buffer.concat([head, chunk.subarray(0, 2)]);
        guard = isGzip(head) ? new InflatedSizeGuard(options.maxInflatedBytes ?? 0) : null;
      } else if (guard === undefined) head = Buffer.concat([head, chunk]);
      if (!guard) return callback(null, chunk);
      guard.write(chunk).then(
        () => callback(null, chunk),
        (error: unknown) => callback(error as Error),
      );
    },
    flush(callback) {
      if (!guard) return callback();
      guard.end().then(
        () => callback(),
        (error: unknown) => callback(error as Error),
      );
    },
  });
  try {
    await pipeline(source, measure, createWriteStream(path));
  } catch (error) {
    await rm(path, { force: true });
    throw error;
  }
  return { path, size, sha256: hash.digest('hex') };
}

export async function removeSpooled(path: string | null | undefined): Promise<void> {
  if (path) await rm(path, { force: true });
}
