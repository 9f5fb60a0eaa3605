import { ParseError } from './parsers/types.ts';

/**
 * Splits a JSON byte stream into the values found at given paths, without tokenizing those values:
 * it walks the structure only down to the selected paths, finds where each selected value starts
 * and ends (tracking strings and brackets), and hands the raw bytes of each one to `JSON.parse`.
 * Values off the selected paths are skipped the same way, never built.
 *
 * Why not a general streaming parser: one that emits tokens costs 10–20× `JSON.parse` per byte in
 * JavaScript, which made parsing the largest cost of an upload. Here the native parser does the
 * work per value, strings are skipped with `indexOf`, and memory holds one value at a time.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

/**
 * Largest single value handed to `JSON.parse`. V8 cannot make a string past ~512 Mi characters, and
 * one finding or tool record this big is a hostile or broken report, not a scan result.
 */
export const MAX_VALUE_BYTES = 256 * 1024 * 1024;

const isSpace = (byte: number): boolean => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
const isDelimiter = (byte: number): boolean =>
  isSpace(byte) || byte === COMMA || byte === CLOSE_OBJECT || byte === CLOSE_ARRAY;

/** Consecutive backslashes ending just before `end`, counted no further back than `floor`. */
export function backslashRun(chunk: Buffer, end: number, floor: number): number {
  let run = 0;
  for (let k = end - 1; k >= floor && chunk[k] === BACKSLASH; k--) run++;
  return run;
}

/** `$`, `$.a`, `$.a.*.b` → segments; `*` matches any key or index. */
function parseSelector(path: string): string[] {
  if (path !== '$' && !path.startsWith('$.')) throw new Error(`Unsupported JSON path "${path}"`);
  return path === '$' ? [] : path.slice(2).split('.');
}

interface Frame {
  kind: 'object' | 'array';
  /** Key of the member being read (objects) or index of the current element (arrays). */
  key: string | number | undefined;
  /** Expecting a key, a colon, a value, or a comma/end after a value. */
  expect: 'key' | 'colon' | 'value' | 'next';
  /** Values read so far: a closing bracket right after a comma is a trailing comma. */
  count: number;
}

export interface SplitValue {
  value: unknown;
  path: (string | number)[];
}

type Mode = 'struct' | 'key' | 'scan';

export class JsonSplitter {
  private readonly selectors: string[][];
  private readonly frames: Frame[] = [];
  private mode: Mode = 'struct';
  /** Scan state: bracket stack of the value being skipped or captured. */
  private readonly brackets: number[] = [];
  private scanInString = false;
  private scanEscaped = false;
  private scanScalar = false;
  private capturing = false;
  private captured: Buffer[] = [];
  private capturedBytes = 0;
  private capturePath: (string | number)[] = [];
  private keyBytes: Buffer[] = [];
  private keyChunkStart = 0;
  /** Where the value being captured starts in the current chunk. */
  private scanChunkStart = 0;
  private keyEscaped = false;
  private rootValues = 0;

  constructor(
    paths: string[],
    private readonly maxDepth: number,
    private readonly multipleRoots: boolean,
  ) {
    this.selectors = paths.map(parseSelector);
  }

  /** Feeds one chunk; returns the values completed within it. Keeps no reference to `chunk`. */
  write(chunk: Buffer): SplitValue[] {
    const out: SplitValue[] = [];
    let i = 0;
    while (i < chunk.length) {
      if (this.mode === 'scan') i = this.scan(chunk, i, out);
      else if (this.mode === 'key') i = this.readKey(chunk, i);
      else i = this.struct(chunk, i, out);
    }
    // What is still open at the chunk's end carries over; the next chunk continues from its start.
    // Copied, not sliced: the caller may reuse `chunk`'s memory for the next read (readInPlace).
    if (this.mode === 'scan' && this.capturing)
      this.capture(Buffer.from(chunk.subarray(this.scanChunkStart)));
    if (this.mode === 'key') this.keyBytes.push(Buffer.from(chunk.subarray(this.keyChunkStart)));
    this.scanChunkStart = 0;
    this.keyChunkStart = 0;
    return out;
  }

  /** Checks the document ended where a document may end. */
  end(): SplitValue[] {
    const out: SplitValue[] = [];
    // A number at the very end of the input is complete once the input ends.
    if (this.mode === 'scan' && this.scanScalar && !this.scanInString && this.brackets.length === 0) {
      this.finishValue(out);
    }
    if (this.mode !== 'struct' || this.frames.length > 0) {
      throw new ParseError('Malformed JSON: the document ends before it is complete (truncated upload?)');
    }
    if (this.rootValues === 0) throw new ParseError('Malformed JSON: the document is empty');
    return out;
  }

  private currentPath(): (string | number)[] {
    const path: (string | number)[] = [];
    for (const frame of this.frames) if (frame.key !== undefined) path.push(frame.key);
    return path;
  }

  private matches(path: (string | number)[], exact: boolean): boolean {
    return this.selectors.some((selector) => {
      if (exact ? selector.length !== path.length : selector.length <= path.length) return false;
      for (let k = 0; k < path.length; k++) {
        const segment = selector[k];
        if (segment !== '*' && segment !== String(path[k])) return false;
      }
      return true;
    });
  }

  private struct(chunk: Buffer, start: number, out: SplitValue[]): number {
    let i = start;
    while (i < chunk.length) {
      const byte = chunk[i] as number;
      if (isSpace(byte)) {
        i++;
        continue;
      }
      const frame = this.frames[this.frames.length - 1];
      if (!frame) {
        if (this.rootValues > 0 && !this.multipleRoots)
          throw new ParseError('Malformed JSON: unexpected data after the document');
        this.rootValues++;
        return this.startValue(chunk, i, out);
      }
      if (frame.kind === 'object') {
        if (frame.expect === 'key') {
          if (byte === QUOTE) {
            this.mode = 'key';
            this.keyBytes = [];
            this.keyEscaped = false;
            this.keyChunkStart = i + 1;
            return i + 1;
          }
          if (byte === CLOSE_OBJECT && frame.count === 0) return this.closeContainer(i);
          throw new ParseError(
            `Malformed JSON: expected a property name, found "${String.fromCharCode(byte)}"`,
          );
        }
        if (frame.expect === 'colon') {
          if (byte !== COLON) throw new ParseError('Malformed JSON: expected ":"');
          frame.expect = 'value';
          i++;
          continue;
        }
        if (frame.expect === 'value') {
          frame.expect = 'next';
          frame.count++;
          return this.startValue(chunk, i, out);
        }
        if (byte === COMMA) {
          frame.expect = 'key';
          i++;
          continue;
        }
        if (byte === CLOSE_OBJECT) return this.closeContainer(i);
        throw new ParseError('Malformed JSON: expected "," or "}"');
      }
      // array
      if (frame.expect === 'value') {
        if (byte === CLOSE_ARRAY && frame.count === 0) return this.closeContainer(i);
        frame.expect = 'next';
        frame.count++;
        return this.startValue(chunk, i, out);
      }
      if (byte === COMMA) {
        frame.key = (frame.key as number) + 1;
        frame.expect = 'value';
        i++;
        continue;
      }
      if (byte === CLOSE_ARRAY) return this.closeContainer(i);
      throw new ParseError('Malformed JSON: expected "," or "]"');
    }
    return i;
  }

  private closeContainer(i: number): number {
    this.frames.pop();
    return i + 1;
  }

  private readKey(chunk: Buffer, start: number): number {
    let i = start;
    while (i < chunk.length) {
      const byte = chunk[i] as number;
      if (this.keyEscaped) this.keyEscaped = false;
      else if (byte === BACKSLASH) this.keyEscaped = true;
      else if (byte === QUOTE) {
        this.keyBytes.push(chunk.subarray(this.keyChunkStart, i));
        const raw = Buffer.concat(this.keyBytes).toString('utf8');
        const frame = this.frames[this.frames.length - 1] as Frame;
        try {
          frame.key = JSON.parse(`"${raw}"`) as string;
        } catch {
          throw new ParseError('Malformed JSON: invalid property name');
        }
        frame.expect = 'colon';
        this.mode = 'struct';
        return i + 1;
      }
      i++;
    }
    return i;
  }

  /** At the first byte of a value: descend into it, capture it, or skip it. */
  private startValue(chunk: Buffer, i: number, out: SplitValue[]): number {
    const byte = chunk[i] as number;
    if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT || byte === COMMA || byte === COLON) {
      throw new ParseError(`Malformed JSON: unexpected "${String.fromCharCode(byte)}"`);
    }
    const path = this.currentPath();
    const container = byte === OPEN_OBJECT || byte === OPEN_ARRAY;
    if (!this.matches(path, true) && container && this.matches(path, false)) {
      if (this.frames.length >= this.maxDepth)
        throw new ParseError(`JSON nested deeper than ${this.maxDepth} levels`);
      const isArray = byte === OPEN_ARRAY;
      this.frames.push({
        kind: isArray ? 'array' : 'object',
        key: isArray ? 0 : undefined,
        expect: isArray ? 'value' : 'key',
        count: 0,
      });
      return i + 1;
    }
    this.mode = 'scan';
    this.capturing = this.matches(path, true);
    this.capturePath = path;
    this.captured = [];
    this.capturedBytes = 0;
    this.scanChunkStart = i;
    this.brackets.length = 0;
    this.scanInString = false;
    this.scanEscaped = false;
    this.scanScalar = !container && byte !== QUOTE;
    if (container) {
      this.brackets.push(byte);
      return this.scan(chunk, i + 1, out);
    }
    if (byte === QUOTE) {
      this.scanInString = true;
      return this.scan(chunk, i + 1, out);
    }
    return this.scan(chunk, i, out);
  }

  /** Skips or captures the current value; returns the index after it (or the chunk's end). */
  private scan(chunk: Buffer, start: number, out: SplitValue[]): number {
    let i = start;
    const length = chunk.length;
    while (i < length) {
      if (this.scanInString) {
        if (this.scanEscaped) {
          this.scanEscaped = false;
          i++;
          continue;
        }
        const segmentStart = i;
        const quote = chunk.indexOf(QUOTE, i);
        if (quote === -1) {
          // The string goes on in the next chunk; an odd run of backslashes escapes its first byte.
          this.scanEscaped = backslashRun(chunk, length, segmentStart) % 2 === 1;
          return length;
        }
        i = quote + 1;
        // An odd run of backslashes right before the quote escapes it: the string goes on.
        if (backslashRun(chunk, quote, segmentStart) % 2 === 1) continue;
        this.scanInString = false;
        if (this.brackets.length === 0) return this.completeScan(chunk, i, out);
        continue;
      }
      const byte = chunk[i] as number;
      if (this.scanScalar) {
        if (isDelimiter(byte)) return this.completeScan(chunk, i, out);
        i++;
        continue;
      }
      if (byte === QUOTE) this.scanInString = true;
      else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
        this.brackets.push(byte);
        if (this.frames.length + this.brackets.length > this.maxDepth) {
          throw new ParseError(`JSON nested deeper than ${this.maxDepth} levels`);
        }
      } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
        const open = this.brackets.pop();
        if (open !== (byte === CLOSE_OBJECT ? OPEN_OBJECT : OPEN_ARRAY)) {
          throw new ParseError('Malformed JSON: mismatched brackets');
        }
        if (this.brackets.length === 0) return this.completeScan(chunk, i + 1, out);
      }
      i++;
    }
    return i;
  }

  private completeScan(chunk: Buffer, end: number, out: SplitValue[]): number {
    if (this.capturing) this.capture(chunk.subarray(this.scanChunkStart, end));
    this.finishValue(out);
    return end;
  }

  private capture(bytes: Buffer): void {
    this.capturedBytes += bytes.length;
    if (this.capturedBytes > MAX_VALUE_BYTES) {
      throw new ParseError(
        `A single JSON value at ${this.capturePath.join('.') || 'the root'} is larger than ${MAX_VALUE_BYTES / 1024 / 1024} MiB`,
      );
    }
    this.captured.push(bytes);
  }

  private finishValue(out: SplitValue[]): void {
    this.mode = 'struct';
    if (!this.capturing) return;
    const text =
      this.captured.length === 1
        ? (this.captured[0] as Buffer).toString('utf8')
        : Buffer.concat(this.captured).toString('utf8');
    this.captured = [];
    this.capturedBytes = 0;
    this.capturing = false;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new ParseError(`Malformed JSON: ${(error as Error).message}`);
    }
    out.push({ value, path: this.capturePath });
  }
}
