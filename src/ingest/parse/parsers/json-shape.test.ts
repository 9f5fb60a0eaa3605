import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { buildSniff } from '../sniff.ts';
import { openJson } from './json-input.ts';
import { JsonShapeScanner, MAX_JSON_DEPTH } from './json-shape.ts';
import { streamJsonValues } from './json-stream.ts';
import { ParseError, type ParserInput } from './types.ts';

/** `text` read back in chunks of `size` bytes. */
function chunkedInput(text: string, size: number): ParserInput {
  const bytes = Buffer.from(text, 'utf8');
  const chunks: Buffer[] = [];
  for (let start = 0; start < bytes.length; start += size) chunks.push(bytes.subarray(start, start + size));
  return { open: () => Readable.from(chunks), sniff: buildSniff(bytes) };
}

async function collect<T>(values: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const value of values) out.push(value);
  return out;
}

const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('JsonShapeScanner.answered', () => {
  it('is true once every member asked about is recorded, and only then', () => {
    const scanner = new JsonShapeScanner({ members: ['runs', 'version'] });
    scanner.write(Buffer.from('{"$schema":"x","runs":'));
    expect(scanner.answered).toBe(false);
    scanner.write(Buffer.from('[{"results":[],'));
    expect(scanner.topLevel.get('runs')?.start).toBe('[');
    expect(scanner.answered).toBe(false);
    scanner.write(Buffer.from('"x":1}],"version":"2.1.0"'));
    expect(scanner.answered).toBe(true);
  });

  it('waits for the root to close when a member is absent, or when it is asked about nothing', () => {
    for (const scanner of [new JsonShapeScanner({ members: ['runs'] }), new JsonShapeScanner()]) {
      scanner.write(Buffer.from('{"version":"2.1.0","other":[1,2]'));
      expect(scanner.answered).toBe(false);
      scanner.write(Buffer.from('}'));
      expect(scanner.answered).toBe(true);
    }
  });
});

describe('openJson', () => {
  // Past the answer the scanner sees no more bytes; the splitter's own bound must still refuse what
  // the scanner would have refused.
  const hostile = `{"runs":[],"later":${nested(MAX_JSON_DEPTH + 10)}}`;

  it('stops showing chunks to the scanner once it has answered', async () => {
    const scanner = new JsonShapeScanner({ members: ['runs'] });
    let bytes = 0;
    for await (const chunk of openJson(chunkedInput(hostile, 16), scanner)) bytes += chunk.length;
    expect(bytes).toBe(Buffer.byteLength(hostile));
    expect(scanner.topLevel.get('runs')?.start).toBe('[');
    // Fed the whole document, the scanner throws at the nesting limit.
    expect(() => new JsonShapeScanner().write(Buffer.from(hostile))).toThrow(ParseError);
  });

  it('leaves nesting to the splitter, which refuses it whatever the paths', async () => {
    for (const paths of [['$.runs.*'], ['$.later'], ['$.nothing.*']]) {
      const scanner = new JsonShapeScanner({ members: ['runs'] });
      const values = streamJsonValues(openJson(chunkedInput(hostile, 16), scanner), { paths });
      await expect(collect(values), paths[0]).rejects.toThrow(
        `JSON nested deeper than ${MAX_JSON_DEPTH} levels`,
      );
    }
  });

  it('accepts nesting up to the limit', async () => {
    const text = `{"runs":[],"later":${nested(MAX_JSON_DEPTH - 2)}}`;
    const values = streamJsonValues(openJson(chunkedInput(text, 16), new JsonShapeScanner()), {
      paths: ['$.runs'],
    });
    expect(await collect(values)).toEqual([{ value: [], path: ['runs'] }]);
  });
});
