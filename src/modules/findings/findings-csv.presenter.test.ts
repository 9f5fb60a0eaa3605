import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { csvCell } from './findings-csv.presenter.ts';

const FORMULA_START = /^[=+\-@\t\r]/;

/** The text of one quoted RFC 4180 field. */
function unquote(cell: string): string {
  expect(cell.startsWith('"') && cell.endsWith('"')).toBe(true);
  const inner = cell.slice(1, -1);
  // Every quote inside is doubled.
  expect(inner.replaceAll('""', '')).not.toContain('"');
  return inner.replaceAll('""', '"');
}

/** Characters a formula hides behind, weighted so that generated strings often hold them. */
const hostileText = fc.string({
  unit: fc.oneof(
    fc.constantFrom('=', '+', '-', '@', '\t', '\r', '\n', ';', ',', ' ', '"', "'"),
    fc.string({ minLength: 1, maxLength: 1, unit: 'binary' }),
  ),
  maxLength: 40,
});

describe('csvCell', () => {
  it('quotes every text; no part a spreadsheet may split it into, on any separator, starts a formula', () => {
    fc.assert(
      fc.property(hostileText, (text) => {
        const field = csvCell(text);
        const inner = unquote(field);
        for (const part of inner.split(/[;,\t\r\n]/)) {
          // A reader may drop spaces and quotes in front of a part; what follows still is no formula.
          expect(part.replace(/^[ "]*/, '')).not.toMatch(/^[=+\-@]/);
        }
        for (const part of field.split(/[;,\t]/))
          expect(part.replace(/^[ "]*/, '')).not.toMatch(FORMULA_START);
        // Only apostrophes are added: the text is all there, in order.
        expect(inner.replaceAll("'", '')).toBe(text.replaceAll("'", ''));
      }),
      { numRuns: 2000 },
    );
  });

  it('neutralises the review’s reproductions', () => {
    expect(csvCell('Hardcoded secret;=2*21;')).toBe(`"Hardcoded secret;'=2*21;"`);
    expect(csvCell("src/x;=cmd|' /C calc'!A0;.js")).toBe(`"src/x;'=cmd|' /C calc'!A0;.js"`);
    expect(csvCell('12')).toBe('"12"');
    expect(csvCell(-12)).toBe('-12');
  });
});
