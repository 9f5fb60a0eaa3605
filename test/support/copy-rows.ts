import type { CopyType, CopyValue } from '../../src/db/copy-binary.ts';

/**
 * Reads binary COPY rows (as `CopyBinaryWriter` writes them, no header or trailer) back into values,
 * for tests that look at what staging handed the database.
 */
export function readCopyRows(bytes: Buffer, types: readonly CopyType[]): CopyValue[][] {
  const rows: CopyValue[][] = [];
  let at = 0;
  const field = (type: CopyType | 'element', elementOid = 0): CopyValue => {
    const length = bytes.readInt32BE(at);
    at += 4;
    if (length === -1) return null;
    const end = at + length;
    const kind = type === 'element' ? (elementOid === 23 ? 'int4' : 'text') : type;
    let value: CopyValue;
    switch (kind) {
      case 'text':
        value = bytes.toString('utf8', at, end);
        break;
      case 'int2':
        value = bytes.readInt16BE(at);
        break;
      case 'int4':
        value = bytes.readInt32BE(at);
        break;
      case 'float8':
        value = bytes.readDoubleBE(at);
        break;
      case 'bool':
        value = bytes[at] === 1;
        break;
      case 'timestamptz':
        value = new Date(Number(bytes.readBigInt64BE(at) / 1000n) + 946_684_800_000);
        break;
      default: {
        const dimensions = bytes.readInt32BE(at);
        const oid = bytes.readInt32BE(at + 8);
        const count = dimensions === 0 ? 0 : bytes.readInt32BE(at + 12);
        at += dimensions === 0 ? 12 : 20;
        const items: (string | number)[] = [];
        for (let index = 0; index < count; index++) items.push(field('element', oid) as string | number);
        if (at !== end) throw new Error('array length does not match its elements');
        return items;
      }
    }
    at = end;
    return value;
  };
  while (at < bytes.length) {
    const count = bytes.readInt16BE(at);
    at += 2;
    if (count !== types.length) throw new Error(`row of ${count} fields, expected ${types.length}`);
    rows.push(types.map((type) => field(type)));
  }
  return rows;
}
