import { JSONParser } from '@streamparser/json';
import type { Readable } from 'node:stream';
import { ParseError } from './types.ts';

/** A value found at one of the requested JSON paths, with the keys that lead to it. */
export interface JsonPathValue {
  value: unknown;
  /** Keys from the root to the value, e.g. `['runs', 0, 'results', 12]`. */
  path: (string | number)[];
}

export interface StreamJsonOptions {
  /** JSONPath-like selectors understood by @streamparser/json: `$`, `$.a.*`, `$.*.b`. */
  paths: string[];
  /** Separator for multi-document input; `''` accepts JSON Lines / concatenated documents. */
  separator?: string;
}

/**
 * Streams the values at `paths` out of a JSON document without holding the document in memory.
 * Emitted values are dropped from the parser's stack, so memory stays flat in the number of elements.
 * Malformed or truncated JSON throws `ParseError`.
 */
export async function* streamJsonValues(
  stream: Readable,
  options: StreamJsonOptions,
): AsyncGenerator<JsonPathValue> {
  const parser = new JSONParser({
    paths: options.paths,
    keepStack: false,
    ...(options.separator === undefined ? {} : { separator: options.separator }),
  });
  let pending: JsonPathValue[] = [];
  let ended = false;
  parser.onValue = ({ value, key, stack }) => {
    const path: (string | number)[] = [];
    for (const frame of stack.slice(1)) if (frame.key !== undefined) path.push(frame.key);
    if (key !== undefined) path.push(key);
    pending.push({ value, path });
  };
  parser.onEnd = () => {
    ended = true;
  };
  parser.onError = (error: Error) => {
    throw new ParseError(`Malformed JSON: ${error.message}`);
  };
  try {
    for await (const chunk of stream) {
      parser.write(chunk as Uint8Array);
      if (pending.length > 0) {
        const ready = pending;
        pending = [];
        yield* ready;
      }
    }
    if (!ended && options.separator === undefined) {
      throw new ParseError('Malformed JSON: the document ends before it is complete (truncated upload?)');
    }
    if (options.separator !== undefined && !ended) parser.end();
  } catch (error) {
    if (error instanceof ParseError) throw error;
    throw new ParseError(`Malformed JSON: ${(error as Error).message}`);
  } finally {
    stream.destroy();
  }
  yield* pending;
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
