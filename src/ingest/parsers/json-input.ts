import { pipeline, type Readable } from 'node:stream';
import { SNIFF_BYTES } from '../sniff.ts';
import { JsonShapeScanner, jsonShapeGuard } from './json-shape.ts';
import { readJsonDocument } from './json-stream.ts';
import { ParseError, type ParserInput, type Sniff } from './types.ts';

/**
 * Opens the upload for streaming through the nesting guard: a hostile "[[[[…" document would
 * otherwise grow the streaming parser's stack by one frame per byte. Pass a scanner to read the
 * top-level members' shapes it records afterwards.
 */
export function openJson(input: ParserInput, scanner: JsonShapeScanner = new JsonShapeScanner()): Readable {
  // pipeline (not pipe) carries a source error (corrupt gzip) through the guard to the reader.
  // The callback is required; the reader sees any error through the guard, so nothing is lost.
  return pipeline(input.open(), jsonShapeGuard(scanner), () => undefined);
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
