import fc from 'fast-check';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { isoString, timestamptzParser } from './timestamps.ts';

const TIMESTAMPTZ_OID = 1184;
const general = pg.types.getTypeParser(TIMESTAMPTZ_OID, 'text') as (text: string) => unknown;
const parse = timestamptzParser(general);

const pad = (value: number, width: number) => String(value).padStart(width, '0');

/** `instant` as PostgreSQL prints a timestamptz (DateStyle ISO) in a zone `offsetSeconds` east of UTC. */
function postgresText(instantMs: number, micros: number, offsetSeconds: number): string {
  const local = new Date(instantMs + offsetSeconds * 1000);
  const fraction = (local.getUTCMilliseconds() * 1000 + micros)
    .toString()
    .padStart(6, '0')
    .replace(/0+$/, '');
  const sign = offsetSeconds < 0 ? '-' : '+';
  const size = Math.abs(offsetSeconds);
  const [hours, minutes, seconds] = [Math.floor(size / 3600), Math.floor(size / 60) % 60, size % 60];
  const offset = `${sign}${pad(hours, 2)}${minutes || seconds ? `:${pad(minutes, 2)}` : ''}${seconds ? `:${pad(seconds, 2)}` : ''}`;
  return (
    `${pad(local.getUTCFullYear(), 4)}-${pad(local.getUTCMonth() + 1, 2)}-${pad(local.getUTCDate(), 2)} ` +
    `${pad(local.getUTCHours(), 2)}:${pad(local.getUTCMinutes(), 2)}:${pad(local.getUTCSeconds(), 2)}` +
    `${fraction ? `.${fraction}` : ''}${offset}`
  );
}

const timeOf = (value: unknown) => (value instanceof Date ? value.getTime() : value);

describe('timestamptz text', () => {
  it("parses to the instant pg's own parser gives, in any zone, to the millisecond", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(1, 0, 1), max: Date.UTC(9999, 11, 30) }),
        fc.integer({ min: 0, max: 999 }),
        fc.integer({ min: -15 * 3600 - 59 * 60 - 59, max: 15 * 3600 + 59 * 60 + 59 }),
        fc.constantFrom(0, 60, 1800, 2700, 1172),
        (instant, micros, anyOffset, roundOffset) => {
          for (const offset of [anyOffset, roundOffset, -roundOffset]) {
            const text = postgresText(instant, micros, offset);
            expect(timeOf(parse(text))).toEqual(timeOf(general(text)));
          }
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('reads years before 100 as themselves', () => {
    for (const text of ['0005-01-01 00:00:00+00', '0044-03-15 12:00:00.5+01', '0099-12-31 23:59:59+00']) {
      expect(timeOf(parse(text))).toEqual(timeOf(general(text)));
    }
    expect((parse('0005-06-07 08:09:10+00') as Date).toISOString()).toBe('0005-06-07T08:09:10.000Z');
  });

  it("leaves every other text to pg's parser", () => {
    const others = [
      'infinity',
      '-infinity',
      '2024-02-29 12:00:00+00 BC',
      '12024-01-01 00:00:00+00',
      '2024-01-01T00:00:00Z',
      '2024-01-01 00:00:00',
      '2024-13-01 00:00:00+00',
      '2024-01-01 00:00:00+0',
      '2024-01-01 00:00:00.+00',
    ];
    for (const text of others) expect(timeOf(parse(text))).toEqual(timeOf(general(text)));
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (text) => {
        expect(timeOf(parse(text))).toEqual(timeOf(general(text)));
      }),
    );
  });
});

describe('isoString', () => {
  it('is toISOString, for every date', () => {
    fc.assert(
      fc.property(fc.integer({ min: -8.64e15, max: 8.64e15 }), (time) => {
        const date = new Date(time);
        expect(isoString(date)).toBe(date.toISOString());
      }),
      { numRuns: 5000 },
    );
    for (const time of [
      Date.UTC(1000, 0, 1),
      Date.UTC(9999, 11, 31, 23, 59, 59, 999),
      Date.UTC(999, 11, 31),
    ]) {
      expect(isoString(new Date(time))).toBe(new Date(time).toISOString());
    }
  });

  it('throws as toISOString does for an invalid date', () => {
    expect(() => isoString(new Date(Number.NaN))).toThrow(RangeError);
  });
});
