import { PARSERS } from './parsers/index.ts';
import type { ParserModule, Sniff } from './parsers/types.ts';

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

/** The first parser (in registry order) that recognises the content, or null when none does. */
export function detectParser(sniff: Sniff, parsers: readonly ParserModule[] = PARSERS): ParserModule | null {
  return parsers.find((parser) => safeDetect(parser, sniff)) ?? null;
}

/** Every parser that recognises the content; more than one means two detectors are too loose. */
export function matchingParsers(sniff: Sniff, parsers: readonly ParserModule[] = PARSERS): ParserModule[] {
  return parsers.filter((parser) => safeDetect(parser, sniff));
}
