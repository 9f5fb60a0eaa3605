import type { Readable } from 'node:stream';
import { MAX_JSON_DEPTH } from './json-shape.ts';
import { JsonSplitter } from '../json-splitter.ts';
import { ParseError } from './types.ts';

/** A value found at one of the requested JSON paths, with the keys that lead to it. */
export interface JsonPathValue {
  value: unknown;
  /** Keys from the root to the value, e.g. `['runs', 0, 'results', 12]`. */
  path: (string | number)[];
}

export interface StreamJsonOptions {
  /** JSONPath-like selectors (see JsonSplitter): `$`, `$.a.*`, `$.*.b`; `*` matches any key or index. */
  paths: string[];
  /** Separator for multi-document input; `''` accepts JSON Lines / concatenated documents. */
  separator?: string;
}

/**
 * Streams the values at `paths` out of a JSON document without holding the document in memory:
 * memory holds one selected value at a time, so it stays flat in the number of elements.
 * Malformed, truncated or too deeply nested JSON throws `ParseError`.
 */
export async function* streamJsonValues(
  stream: Readable | AsyncIterable<Buffer>,
  options: StreamJsonOptions,
): AsyncGenerator<JsonPathValue> {
  const splitter = new JsonSplitter(options.paths, MAX_JSON_DEPTH, options.separator !== undefined);
  try {
    for await (const chunk of stream as AsyncIterable<unknown>) {
      const values = splitter.write(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array));
      if (values.length > 0) yield* values;
    }
    yield* splitter.end();
  } catch (error) {
    if (error instanceof ParseError) throw error;
    const code = (error as { code?: unknown }).code;
    // A corrupt gzip stream is broken content, like broken JSON.
    if (typeof code === 'string' && code.startsWith('Z_'))
      throw new ParseError(`Corrupt compressed upload: ${(error as Error).message}`);
    throw error;
  } finally {
    // A generator source is closed by the loop's exit; a stream must be destroyed.
    if ('destroy' in stream) stream.destroy();
  }
}

/** Reads a whole (small) JSON document. Use only for formats whose findings are not a streamable list. */
export async function readJsonDocument(stream: Readable, maxBytes = 256 * 1024 * 1024): Promise<unknown> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    total += (chunk as Buffer).length;
    if (total > maxBytes) throw new ParseError(`Document larger than ${maxBytes} bytes`);
    chunks.push(chunk as Buffer);
  }
  let text = Buffer.concat(chunks).toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ParseError(`Malformed JSON: ${(error as Error).message}`);
  }
}
