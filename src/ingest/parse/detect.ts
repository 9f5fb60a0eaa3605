import { JsonShapeScanner } from './parsers/json-shape.ts';
import { PARSERS } from './parsers/index.ts';
import type { ParserInput, ParserModule, Sniff } from './parsers/types.ts';

/**
 * A detector that throws on odd content counts as "not this format": one fragile detector must not
 * turn every upload into a server error, and the content is still offered to the others.
 */
function safeDetect(parser: ParserModule, sniff: Sniff): boolean {
  try {
    return parser.detect(sniff);
  } catch {
    return false;
  }
}

/** Every parser that recognises the sniffed content; more than one means two detectors are too loose. */
export function matchingParsers(sniff: Sniff, parsers: readonly ParserModule[] = PARSERS): ParserModule[] {
  return parsers.filter((parser) => safeDetect(parser, sniff));
}

/**
 * The sniff with every top-level key of the document, read by streaming the whole upload through
 * the byte scanner (it skips string contents natively and keeps nothing but the keys). Malformed
 * or hostile content ends the scan early; the parser reports it properly later.
 */
async function withAllTopKeys(input: ParserInput): Promise<Sniff> {
  const scanner = new JsonShapeScanner();
  const stream = input.open();
  try {
    for await (const chunk of stream) {
      scanner.write(chunk as Buffer);
      if (scanner.rootComplete) break;
    }
  } catch {
    // keep the keys found so far
  } finally {
    stream.destroy();
  }
  const keys = new Set([...input.sniff.topKeys, ...scanner.topLevel.keys()]);
  return { ...input.sniff, topKeys: [...keys], topKeysComplete: scanner.rootComplete };
}

export interface Detection {
  /** The parsers that claim the upload: exactly one when detection succeeded. */
  parsers: ParserModule[];
  /** The input to parse, its sniff completed with every top-level key when that was needed. */
  input: ParserInput;
}

/**
 * Detects the format from the set of top-level keys and the first bytes, never from key order.
 * When the sniffed head ends inside a large member (a 300 KB `vulnerabilities` list before `version`),
 * the keys after it are unknown; if the head alone does not name exactly one format, every
 * top-level key is read and detection asked again. Well-ordered uploads pay for no second pass.
 */
export async function detectFormat(
  input: ParserInput,
  parsers: readonly ParserModule[] = PARSERS,
): Promise<Detection> {
  const fromHead = matchingParsers(input.sniff, parsers);
  if (fromHead.length === 1 || input.sniff.shape !== 'json-object' || input.sniff.topKeysComplete) {
    return { parsers: fromHead, input };
  }
  const completed = { ...input, sniff: await withAllTopKeys(input) };
  return { parsers: matchingParsers(completed.sniff, parsers), input: completed };
}

/**
 * The parser that recognises the upload (the first in registry order, should two ever do) and the
 * input to give it, or null when none does.
 */
export async function detectParser(
  input: ParserInput,
  parsers: readonly ParserModule[] = PARSERS,
): Promise<{ parser: ParserModule; input: ParserInput } | null> {
  const detection = await detectFormat(input, parsers);
  const [parser] = detection.parsers;
  return parser === undefined ? null : { parser, input: detection.input };
}
