import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export interface SpooledFile {
  path: string;
  size: number;
  sha256: string;
}

/**
 * Writes an upload stream to a file under `dir`, hashing it on the way, so the parser can read it
 * (twice if it must) without the upload ever sitting in memory.
 */
export async function spoolToFile(source: Readable, dir: string): Promise<SpooledFile> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, `${randomUUID()}.upload`);
  const hash = createHash('sha256');
  let size = 0;
  const measure = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      size += chunk.length;
      callback(null, chunk);
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
