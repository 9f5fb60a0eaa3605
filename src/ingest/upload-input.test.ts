import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { inputFromFile } from './upload-input.ts';

const dir = mkdtempSync(join(tmpdir(), 'upload-input-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// 300 KiB that differ from read to read, so a chunk handed out twice would show.
const content = Buffer.from(Array.from({ length: 300 * 1024 }, (_, index) => (index * 7919) % 251));

describe('inputFromFile', () => {
  it('reads a plain file in place: every chunk in one buffer, together the whole file', async () => {
    const path = join(dir, 'plain.json');
    writeFileSync(path, content);
    const input = await inputFromFile(path);
    const copies: Buffer[] = [];
    const memory = new Set<ArrayBufferLike>();
    for await (const chunk of input.readInPlace?.() ?? []) {
      memory.add(chunk.buffer);
      copies.push(Buffer.from(chunk));
    }
    expect(copies.length).toBeGreaterThan(1);
    expect(memory.size).toBe(1);
    expect(Buffer.concat(copies).equals(content)).toBe(true);
  });

  it('offers no in-place read for gzip content, whose inflater hands out fresh buffers', async () => {
    const path = join(dir, 'packed.json');
    writeFileSync(path, gzipSync(content));
    const input = await inputFromFile(path);
    expect(input.readInPlace).toBeUndefined();
    const chunks: Buffer[] = [];
    for await (const chunk of input.open()) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(content)).toBe(true);
  });
});
