/**
 * PostgreSQL's binary COPY format, written by hand: a header, then per row a field count and each
 * field as a length and the type's binary representation (`typsend`), then a trailer.
 * https://www.postgresql.org/docs/current/sql-copy.html#id-1.9.3.55.9.4
 *
 * Why binary and not COPY text: text must be searched for the four characters it escapes, field by
 * field, and every number printed; binary writes each string once, as UTF-8 with its length. For
 * the staging rows of a 100k-result upload: 0.49 s of encoding in text, 0.23 s in binary, and the
 * COPY itself 0.51 → 0.40 s on PostgreSQL and about half on PGlite (measured in one process over the
 * same 100k rows). The one library for it (pg-copy-streams-binary) encodes through object-mode
 * streams and six dependencies, which is the cost this removes.
 *
 * Each row makes room once, for its largest encoding, and its fields are then written through a
 * DataView, short ASCII texts byte by byte: the 100k finding rows of the bench's SARIF file (45
 * fields each, 132 MB) in 0.23–0.33 s, against 0.57–0.83 s with Buffer's checked writers and a room
 * check per field (one process, alternating).
 */

/** The column types staged rows (and the bench's copies) carry; each must match its column exactly. */
export type CopyType = 'text' | 'int2' | 'int4' | 'float8' | 'bool' | 'timestamptz' | 'text[]' | 'int4[]';

/**
 * A field's value: null is SQL NULL; arrays hold no nulls. A timestamp is a Date, or a bigint of
 * microseconds since the Unix epoch (PostgreSQL's own precision, which a Date would cut to ms).
 */
export type CopyValue =
  string | number | bigint | boolean | Date | null | undefined | readonly (string | number)[];

/** `PGCOPY\n\377\r\n\0`, no flags, no header extension. */
export const COPY_BINARY_HEADER: Buffer = Buffer.from([
  0x50, 0x47, 0x43, 0x4f, 0x50, 0x59, 0x0a, 0xff, 0x0d, 0x0a, 0x00, 0, 0, 0, 0, 0, 0, 0, 0,
]);
/** A field count of -1 ends the data. */
export const COPY_BINARY_TRAILER: Buffer = Buffer.from([0xff, 0xff]);

/** Element type OIDs an array's binary form names (`array_recv` checks them). */
const ELEMENT_OID = { 'text[]': 25, 'int4[]': 23 } as const;
/** PostgreSQL's epoch, 2000-01-01T00:00:00Z, in JavaScript milliseconds. */
const POSTGRES_EPOCH_MS = 946_684_800_000;
const POSTGRES_EPOCH_MICROS = BigInt(POSTGRES_EPOCH_MS) * 1000n;
/** UTF-8 takes at most three bytes per UTF-16 code unit. */
const MAX_UTF8_PER_UNIT = 3;
/** Texts up to this many UTF-16 units are tried as ASCII first (`CopyBinaryWriter.text`). */
const SHORT_TEXT = 64;

function checkedInteger(value: number, bits: 16 | 32): number {
  const limit = 2 ** (bits - 1);
  if (!Number.isInteger(value) || value < -limit || value >= limit) {
    throw new RangeError(`COPY field is not a ${bits}-bit integer: ${value}`);
  }
  return value;
}

/** A timestamp field's value as microseconds since PostgreSQL's epoch. */
function sincePostgresEpoch(value: Exclude<CopyValue, null | undefined>): bigint {
  if (typeof value === 'bigint') return value - POSTGRES_EPOCH_MICROS;
  const ms = (value instanceof Date ? value : new Date(String(value))).getTime();
  if (!Number.isFinite(ms)) throw new RangeError(`COPY field is not a timestamp: ${String(value)}`);
  return BigInt(ms - POSTGRES_EPOCH_MS) * 1000n;
}

/**
 * Rows in binary COPY format, appended to one buffer that grows as needed and is reused after each
 * `take`. Numbers must be finite (no column here wants NaN or Infinity) and integers in their
 * column's range; strings must be free of NUL, which PostgreSQL text cannot hold (the ingest caps
 * and cleans them first, cap-fields.ts).
 */
export class CopyBinaryWriter {
  private buffer: Buffer;
  /** The buffer as a DataView, whose setters check only the offset (values are checked before). */
  private view: DataView;
  private at = 0;

  constructor(
    private readonly types: readonly CopyType[],
    initialBytes = 64 * 1024,
  ) {
    this.buffer = Buffer.allocUnsafeSlow(initialBytes);
    this.view = new DataView(this.buffer.buffer, this.buffer.byteOffset, this.buffer.length);
  }

  /** Bytes written since the last `take`. */
  get length(): number {
    return this.at;
  }

  /**
   * Appends one row: `values` in the order of the writer's types. Room for the row's largest
   * encoding is made once, so no field checks it (a 100k upload's finding rows: ~5M fields).
   */
  row(values: readonly CopyValue[]): void {
    if (values.length !== this.types.length) {
      throw new RangeError(`COPY row has ${values.length} fields, expected ${this.types.length}`);
    }
    const start = this.at;
    this.reserve(this.largestRow(values));
    try {
      this.view.setInt16(this.at, values.length);
      this.at += 2;
      for (let index = 0; index < values.length; index++) {
        this.field(this.types[index] as CopyType, values[index]);
      }
    } catch (error) {
      // A refused value leaves no half-written row behind.
      this.at = start;
      throw error;
    }
  }

  /**
   * The rows written since the last `take` (no header or trailer: `copyFrom` adds them), as a view
   * of the writer's buffer: valid until the next row is written.
   */
  take(): Buffer {
    const rows = this.buffer.subarray(0, this.at);
    this.at = 0;
    return rows;
  }

  /**
   * The most bytes `values` can take: the field count, then per field its length word and at most
   * 8 bytes (scalars), 3 per UTF-16 unit (text), or an array's 20-byte header and its elements.
   */
  private largestRow(values: readonly CopyValue[]): number {
    let bytes = 2;
    for (let index = 0; index < values.length; index++) {
      const value = values[index];
      const type = this.types[index];
      if (value === null || value === undefined) bytes += 4;
      else if (type === 'text') bytes += 4 + String(value).length * MAX_UTF8_PER_UNIT;
      else if ((type === 'text[]' || type === 'int4[]') && Array.isArray(value)) {
        bytes += 4 + 20;
        for (const item of value as readonly unknown[]) {
          bytes += type === 'int4[]' ? 4 + 4 : 4 + String(item).length * MAX_UTF8_PER_UNIT;
        }
      } else bytes += 4 + 8;
    }
    return bytes;
  }

  private reserve(bytes: number): void {
    if (this.at + bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafeSlow(Math.max(this.buffer.length * 2, this.at + bytes));
    this.buffer.copy(grown, 0, 0, this.at);
    this.buffer = grown;
    this.view = new DataView(grown.buffer, grown.byteOffset, grown.length);
  }

  private int32(value: number): void {
    this.view.setInt32(this.at, value);
    this.at += 4;
  }

  private field(type: CopyType, value: CopyValue): void {
    if (value === null || value === undefined) return this.int32(-1);
    switch (type) {
      case 'text':
        return this.text(typeof value === 'string' ? value : String(value));
      case 'int2':
        this.int32(2);
        this.view.setInt16(this.at, checkedInteger(Number(value), 16));
        this.at += 2;
        return;
      case 'int4':
        this.int32(4);
        return this.int32(checkedInteger(Number(value), 32));
      case 'float8': {
        const number = Number(value);
        if (!Number.isFinite(number)) throw new RangeError(`COPY field is not a finite number: ${number}`);
        this.int32(8);
        this.view.setFloat64(this.at, number);
        this.at += 8;
        return;
      }
      case 'bool':
        this.int32(1);
        this.buffer[this.at++] = value === true ? 1 : 0;
        return;
      case 'timestamptz': {
        const micros = sincePostgresEpoch(value);
        this.int32(8);
        this.view.setBigInt64(this.at, micros);
        this.at += 8;
        return;
      }
      case 'text[]':
      case 'int4[]':
        return this.array(type, value as readonly (string | number)[]);
    }
  }

  /**
   * Short ASCII text (most of a finding's fields: ids, paths, rule ids, severities) is copied byte
   * by byte, which costs less than a call into the encoder; anything else goes through it.
   */
  private text(value: string): void {
    const at = this.at + 4;
    let bytes = -1;
    if (value.length <= SHORT_TEXT) {
      const buffer = this.buffer;
      let index = 0;
      for (; index < value.length; index++) {
        const unit = value.charCodeAt(index);
        if (unit >= 0x80) break;
        buffer[at + index] = unit;
      }
      if (index === value.length) bytes = index;
    }
    if (bytes < 0) bytes = this.buffer.write(value, at, 'utf8');
    this.int32(bytes);
    this.at += bytes;
  }

  /** One-dimensional, no nulls, lower bound 1; an empty array has no dimension. */
  private array(type: 'text[]' | 'int4[]', items: readonly (string | number)[]): void {
    if (!Array.isArray(items)) throw new RangeError(`COPY field of type ${type} is not an array`);
    const lengthAt = this.at;
    this.at += 4;
    this.int32(items.length === 0 ? 0 : 1);
    this.int32(0);
    this.int32(ELEMENT_OID[type]);
    if (items.length > 0) {
      this.int32(items.length);
      this.int32(1);
    }
    for (const item of items) this.field(type === 'text[]' ? 'text' : 'int4', item);
    this.view.setInt32(lengthAt, this.at - lengthAt - 4);
  }
}
