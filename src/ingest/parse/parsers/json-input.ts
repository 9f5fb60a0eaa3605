import { SNIFF_BYTES } from '../sniff.ts';
import type { JsonShapeScanner } from './json-shape.ts';
import { readJsonDocument } from './json-stream.ts';
import { ParseError, type ParserInput, type Sniff } from './types.ts';

/**
 * The upload's bytes for `streamJsonValues`, which keeps nothing of a chunk once it has read it: read
 * in place (one reused buffer) when the input can, else streamed.
 */
export function readBytes(input: ParserInput): AsyncIterable<Buffer> {
  return input.readInPlace?.() ?? (input.open() as AsyncIterable<Buffer>);
}

/**
 * The upload's bytes for `streamJsonValues`, each chunk shown first to `scanner` (when given) until it
 * has `answered`: the shapes of the top-level members its caller asks about. Nesting is bounded by the
 * splitter itself (a hostile "[[[[…" document fails there, at the limit), so scanning every byte here
 * too only repeated that check: 0.14–0.18 s of the first pass over a 100k-result (74 MiB) SARIF log,
 * on which the whole upload waits. Chunks are read in place when the input can (`readBytes`); a
 * source error (corrupt gzip) reaches the reader through the loop.
 */
export async function* openJson(input: ParserInput, scanner?: JsonShapeScanner): AsyncGenerator<Buffer> {
  for await (const chunk of readBytes(input)) {
    if (scanner && !scanner.answered) scanner.write(chunk);
    yield chunk;
  }
}

/**
 * Rejects inputs whose root is not the JSON shape a parser streams. The sniff is built from the
 * same bytes the parser reads, so this catches empty files and wrong root types before streaming.
 */
export function requireJsonShape(input: ParserInput, shapes: Sniff['shape'][], formatName: string): void {
  const { shape } = input.sniff;
  if (shape === 'empty') throw new ParseError(`${formatName}: the file is empty`);
  if (!shapes.includes(shape)) {
    throw new ParseError(`${formatName}: expected ${shapes.join(' or ')}, got ${shape}`);
  }
}

/** Whole-document read; a corrupt gzip upload surfaces as a zlib error, which is bad input too. */
export async function readJsonUpload(input: ParserInput): Promise<unknown> {
  try {
    return await readJsonDocument(input.open());
  } catch (error) {
    if (error instanceof ParseError) throw error;
    throw new ParseError(`Could not read the upload: ${(error as Error).message}`);
  }
}

/** True when the sniffed head is the whole upload, so what it lacks the document lacks too. */
export const headIsWholeDocument = (sniff: Sniff): boolean => Buffer.byteLength(sniff.head) < SNIFF_BYTES;
