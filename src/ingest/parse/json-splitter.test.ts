import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonSplitter, MAX_VALUE_BYTES } from './json-splitter.ts';
import { streamJsonValues } from './parsers/json-stream.ts';
import { ParseError } from './parsers/types.ts';

async function collect(text: string, paths: string[], chunkSize: number, separator?: string) {
  const bytes = Buffer.from(text, 'utf8');
  const chunks: Buffer[] = [];
  for (let start = 0; start < bytes.length; start += chunkSize)
    chunks.push(bytes.subarray(start, start + chunkSize));
  const out = [];
  const options = separator === undefined ? { paths } : { paths, separator };
  for await (const item of streamJsonValues(Readable.from(chunks), options)) out.push(item);
  return out;
}

const tricky = {
  version: '2.1.0',
  'we"ird\\key': { nested: [1, { deep: 'x' }] },
  runs: [
    {
      tool: { driver: { name: 'ü-tool "quoted" \\ back\\\\slash', rules: [] } },
      results: [
        { message: { text: 'ends with backslash \\' }, n: -1.5e3 },
        { message: { text: 'a "quote" and ] bracket } inside' }, ok: true, nothing: null },
        'a string element',
        42,
        [],
        {},
      ],
    },
    { tool: { driver: { name: 'second' } }, results: [{ id: '🙂 emoji' }] },
  ],
};

describe('streamJsonValues (splitter)', () => {
  it('yields the same values as JSON.parse for every chunk size', async () => {
    const text = JSON.stringify(tricky, null, 1);
    const expected = [
      ...tricky.runs[0]!.results.map((value, index) => ({ value, path: ['runs', 0, 'results', index] })),
      ...tricky.runs[1]!.results.map((value, index) => ({ value, path: ['runs', 1, 'results', index] })),
    ];
    for (let size = 1; size <= 40; size++) {
      expect(await collect(text, ['$.runs.*.results.*'], size), `chunk size ${size}`).toEqual(expected);
    }
    expect(await collect(text, ['$.runs.*.results.*'], 1 << 20)).toEqual(expected);
  });

  it('selects several paths and top-level scalars, in document order', async () => {
    const text = JSON.stringify(tricky);
    const values = await collect(text, ['$.version', '$.runs.*.tool'], 7);
    expect(values).toEqual([
      { value: '2.1.0', path: ['version'] },
      { value: tricky.runs[0]!.tool, path: ['runs', 0, 'tool'] },
      { value: tricky.runs[1]!.tool, path: ['runs', 1, 'tool'] },
    ]);
  });

  it('reads JSON Lines and a bare root value', async () => {
    expect(await collect('{"a":1}\n{"a":2}\n\n{"a":3}\n', ['$'], 3, '')).toEqual([
      { value: { a: 1 }, path: [] },
      { value: { a: 2 }, path: [] },
      { value: { a: 3 }, path: [] },
    ]);
    expect(await collect('null', ['$'], 2)).toEqual([{ value: null, path: [] }]);
    expect(await collect('[1,2]', ['$.*'], 1)).toEqual([
      { value: 1, path: [0] },
      { value: 2, path: [1] },
    ]);
  });

  it('refuses truncated, malformed, empty, trailing-comma and too deeply nested input', async () => {
    const bad = [
      '{"runs":[{"results":[{"a":1},',
      '{"runs":[{"results":[{"a":1}]}]',
      '{"runs":[{"results":[{"a":1]}]}',
      '{"runs":[{"results":[{"a":tru}]}]}',
      '{"runs":[{"results":[1,]}]}',
      '{"runs":[],}',
      '',
      '   ',
      '{"runs": [] } {"again": 1}',
      `{"runs":[{"results":[${'['.repeat(500)}${']'.repeat(500)}]}]}`,
      `{"x":${'['.repeat(500)}${']'.repeat(500)}}`,
    ];
    for (const text of bad) {
      await expect(collect(text, ['$.runs.*.results.*'], 5), text.slice(0, 40)).rejects.toBeInstanceOf(
        ParseError,
      );
    }
  });
});

describe('one huge value', () => {
  it('keeps nothing of a chunk once write returns: a reader may refill the same buffer', () => {
    // The SARIF metadata pass reads the upload into one reused buffer (readInPlace); a splitter
    // that kept a view of a chunk's tail would see it overwritten by the next read.
    fc.assert(
      fc.property(
        fc.array(fc.jsonValue({ maxDepth: 4 }), { maxLength: 8 }),
        fc.integer({ min: 1, max: 64 }),
        (items, chunkSize) => {
          const bytes = Buffer.from(JSON.stringify({ head: 'x', items, tail: [items] }), 'utf8');
          const fresh = new JsonSplitter(['$.items.*', '$.tail'], 64, false);
          const reused = new JsonSplitter(['$.items.*', '$.tail'], 64, false);
          const buffer = Buffer.alloc(chunkSize);
          const expected = [];
          const actual = [];
          for (let start = 0; start < bytes.length; start += chunkSize) {
            const chunk = bytes.subarray(start, start + chunkSize);
            expected.push(...fresh.write(Buffer.from(chunk)));
            chunk.copy(buffer);
            actual.push(...reused.write(buffer.subarray(0, chunk.length)));
            buffer.fill('}');
          }
          expected.push(...fresh.end());
          actual.push(...reused.end());
          expect(actual).toEqual(expected);
          expect(actual.filter((value) => value.path[0] === 'items').map((value) => value.value)).toEqual(
            JSON.parse(JSON.stringify(items)),
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('is refused with ParseError past MAX_VALUE_BYTES, before V8 is asked for the string', () => {
    const splitter = new JsonSplitter(['$.runs.*'], 64, false);
    splitter.write(Buffer.from('{"runs":[{"message":"'));
    // One 1 MiB block written again and again until the splitter counts past its limit (it copies
    // what it keeps, so it holds up to the limit itself, as a real value that size would).
    const block = Buffer.alloc(1024 * 1024, 'a');
    let failure: unknown;
    try {
      for (let written = 0; written <= MAX_VALUE_BYTES; written += block.length) splitter.write(block);
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(ParseError);
    expect((failure as Error).message).toMatch(/larger than 256 MiB/);
  });
});
