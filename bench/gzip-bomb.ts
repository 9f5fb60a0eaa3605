import { createGzip } from 'node:zlib';

/**
 * A gzip file that inflates to `inflatedBytes` of one repeated byte (spaces by default): about
 * 1 KiB per MiB, so 1 GiB of whitespace travels as about 1 MB. Built by streaming, never whole.
 */
export async function gzipBomb(inflatedBytes: number, fill = ' '): Promise<Buffer> {
  const gzip = createGzip({ level: 9 });
  const chunks: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<void>((resolve, reject) => {
    gzip.on('end', resolve);
    gzip.on('error', reject);
  });
  const block = Buffer.alloc(1024 * 1024, fill);
  for (let left = inflatedBytes; left > 0; left -= block.length) {
    if (!gzip.write(left >= block.length ? block : block.subarray(0, left))) {
      await new Promise((resolve) => gzip.once('drain', resolve));
    }
  }
  gzip.end();
  await done;
  return Buffer.concat(chunks);
}
