import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { buildSniff, SNIFF_BYTES } from './parse/sniff.ts';
import type { ParserInput } from './parse/parsers/types.ts';

const GZIP_MAGIC = [0x1f, 0x8b];

async function readStart(path: string, bytes: number): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

async function readStreamStart(stream: Readable, bytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const buffer = chunk as Buffer;
    chunks.push(buffer);
    total += buffer.length;
    if (total >= bytes) break;
  }
  stream.destroy();
  return Buffer.concat(chunks).subarray(0, bytes);
}

/** Read size of `readInPlace`: fs streams' own 64 KiB. */
const IN_PLACE_READ_BYTES = 64 * 1024;

/** The file's bytes through one buffer, refilled after the consumer asks for the next chunk. */
async function* readInPlace(path: string): AsyncGenerator<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(IN_PLACE_READ_BYTES);
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) return;
      yield buffer.subarray(0, bytesRead);
    }
  } finally {
    await handle.close();
  }
}

/**
 * Makes a re-readable parser input over an uploaded file on disk. Gzip content (by magic bytes, not
 * by name) is decompressed on the fly, so the file is never held in memory whole.
 */
export async function inputFromFile(path: string): Promise<ParserInput> {
  const start = await readStart(path, 2);
  const gzipped = start[0] === GZIP_MAGIC[0] && start[1] === GZIP_MAGIC[1];
  const openStream = (): Readable =>
    gzipped ? createReadStream(path).pipe(createGunzip()) : createReadStream(path);
  const head = gzipped
    ? await readStreamStart(openStream(), SNIFF_BYTES)
    : await readStart(path, SNIFF_BYTES);
  const sniff = buildSniff(head);
  // Gunzip hands out fresh buffers whatever is asked of it: in place only for plain files.
  return gzipped
    ? { open: openStream, sniff }
    : { open: openStream, readInPlace: () => readInPlace(path), sniff };
}
