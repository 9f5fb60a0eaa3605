import { backslashRun } from '../json-splitter.ts';
import { ParseError } from './types.ts';

/**
 * Real reports nest 10–20 levels deep (SARIF code flows are the deepest seen). Anything far beyond is
 * hostile: the streaming parser's bookkeeping is quadratic in depth, and mapping code walks values.
 */
export const MAX_JSON_DEPTH = 128;

/** What a top-level member's value looks like, judged without parsing it. */
export interface TopLevelValue {
  /** First character of the value: `[`, `{`, `"`, a digit, `-`, `t`, `f` or `n`. */
  start: string;
  /** The decoded value when it is a short string (≤ 1 KiB), else null. */
  text: string | null;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MAX_CAPTURE = 1024;

type State = 'key' | 'colon' | 'value' | 'skip';

/**
 * Byte-level scanner of a JSON stream that never builds values: it enforces a nesting limit and
 * records the shape of each top-level member (`runs` is an array, `version` is "2.1.0", ...).
 * Streamed path selectors cannot tell `"runs": 5` from `"runs": []`, and asking for `$.runs` itself
 * would keep the whole array in memory, so this answers those questions instead.
 * Feed it any prefix of a document; it throws `ParseError` only for excessive nesting.
 */
export class JsonShapeScanner {
  readonly topLevel = new Map<string, TopLevelValue>();
  private depth = 0;
  private rootIsObject = false;
  private rootOpened = false;
  private rootClosed = false;
  private inString = false;
  private escaped = false;
  private state: State = 'skip';
  private key: string | null = null;
  private capture: number[] | null = null;
  private captureOverflow = false;
  private readonly maxDepth = MAX_JSON_DEPTH;
  private readonly members: readonly string[];

  /** `members`: the top-level members a caller will ask about (see `answered`). */
  constructor({ members = [] }: { members?: readonly string[] } = {}) {
    this.members = members;
  }

  /**
   * True once nothing later in the document can change what this scanner says about its `members`:
   * each has been recorded (the first occurrence wins), or the root has closed. Without `members`,
   * only the root's end answers.
   */
  get answered(): boolean {
    return (
      this.rootClosed || (this.members.length > 0 && this.members.every((key) => this.topLevel.has(key)))
    );
  }

  /**
   * True once the first document's root value has closed: `topLevel` then holds every top-level
   * member, not only those of a prefix. Later documents (JSON Lines) are still depth-checked but
   * add no members.
   */
  get rootComplete(): boolean {
    return this.rootClosed;
  }

  write(chunk: Uint8Array): void {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
    let i = 0;
    while (i < bytes.length) {
      if (this.inString && this.capture === null && !this.escaped) {
        // Strings that are not captured are skipped natively: this scanner sees every byte of the upload.
        const segmentStart = i;
        const quote = bytes.indexOf(QUOTE, i);
        if (quote === -1) {
          this.escaped = backslashRun(bytes, bytes.length, segmentStart) % 2 === 1;
          return;
        }
        i = quote + 1;
        if (backslashRun(bytes, quote, segmentStart) % 2 === 0) {
          this.inString = false;
          this.endString();
        }
        continue;
      }
      const byte = bytes[i] as number;
      if (this.inString) this.stringByte(byte);
      else this.structuralByte(byte);
      i++;
    }
  }

  private stringByte(byte: number): void {
    if (this.escaped) this.escaped = false;
    else if (byte === BACKSLASH) this.escaped = true;
    else if (byte === QUOTE) {
      this.inString = false;
      this.endString();
      return;
    }
    if (this.capture !== null) {
      if (this.capture.length < MAX_CAPTURE) this.capture.push(byte);
      else this.captureOverflow = true;
    }
  }

  private structuralByte(byte: number): void {
    if (byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09) return;
    const ch = String.fromCharCode(byte);
    const atTop = this.depth === 1 && this.rootIsObject && !this.rootClosed;
    if (ch === '"') {
      this.inString = true;
      if (atTop && (this.state === 'key' || this.state === 'value')) this.startCapture();
      return;
    }
    if (ch === ':') {
      if (atTop && this.state === 'colon') this.state = 'value';
      return;
    }
    if (ch === ',') {
      if (atTop) this.state = 'key';
      return;
    }
    if (atTop && this.state === 'value') this.record(ch, null);
    if (ch === '{' || ch === '[') {
      this.depth++;
      if (this.depth > this.maxDepth) {
        throw new ParseError(`JSON nested deeper than ${this.maxDepth} levels`);
      }
      if (this.depth === 1 && !this.rootOpened) {
        this.rootOpened = true;
        this.rootIsObject = ch === '{';
        this.state = 'key';
      }
    } else if (ch === '}' || ch === ']') {
      this.depth = Math.max(0, this.depth - 1);
      if (this.depth === 0 && this.rootOpened) this.rootClosed = true;
    }
  }

  private startCapture(): void {
    this.capture = [];
    this.captureOverflow = false;
  }

  private endString(): void {
    const raw = this.capture;
    if (raw === null) return;
    this.capture = null;
    const decoded = this.captureOverflow ? null : decodeJsonString(raw);
    if (this.state === 'key') {
      this.key = decoded;
      this.state = 'colon';
    } else this.record('"', decoded);
  }

  private record(start: string, text: string | null): void {
    // The first occurrence wins: duplicate keys are rare and JSON leaves them undefined anyway.
    if (this.key !== null && !this.topLevel.has(this.key)) this.topLevel.set(this.key, { start, text });
    this.state = 'skip';
  }
}

function decodeJsonString(raw: number[]): string | null {
  try {
    return JSON.parse(`"${Buffer.from(raw).toString('utf8')}"`) as string;
  } catch {
    return null;
  }
}
