import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { twinFingerprint } from '../fingerprint.ts';
import { matchTwins, type StoredTwin } from './identical-findings.ts';

const base = 'b'.repeat(64);
const stored = (lines: number[]): StoredTwin[] =>
  lines.map((line, n) => ({ id: n + 1, fingerprint: twinFingerprint(base, n), line, column: null }));
const staged = (lines: number[]) => lines.map((line, seq) => ({ seq, line, column: null }));
/** Which stored line each staged line was matched to (null: new). */
function matchedLines(now: number[], before: number[]): (number | null)[] {
  const found = stored(before);
  const result = matchTwins(base, staged(now), found);
  return now.map((_, seq) => found.find((f) => f.fingerprint === result.get(seq))?.line ?? null);
}

describe('matchTwins', () => {
  it('twins at 32 and 34, line 32 fixed and 34 moved to 33: the 34 one is kept', () => {
    expect(matchedLines([33], [32, 34])).toEqual([34]);
  });

  it('matches by nearest line whatever the order of either side', () => {
    expect(matchedLines([92, 11], [90, 10, 50])).toEqual([90, 10]);
    expect(matchedLines([51, 11, 92], [90, 10])).toEqual([null, 10, 90]);
  });

  it('gives new twins the lowest ordinals no stored finding uses', () => {
    const found = stored([10]);
    const result = matchTwins(base, staged([10, 20, 30]), found);
    expect([...result.values()]).toEqual([0, 1, 2].map((n) => twinFingerprint(base, n)));
  });

  it('gives each result of a re-upload the fingerprint it had, whatever order the findings were inserted in', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ line: fc.integer({ min: 1, max: 4 }), column: fc.constantFrom(null, 1, 5) }), {
          minLength: 2,
          maxLength: 8,
        }),
        fc.infiniteStream(fc.integer()),
        (results, randomness) => {
          const report = results.map((result, seq) => ({ seq, ...result }));
          const first = matchTwins(base, report, []);
          // Insertion order (and so id order) is unrelated to report order: ranges of fingerprints,
          // or whatever order the database inserts a set in.
          const keys = report.map(() => randomness.next().value as number);
          const ids = report.map((_, seq) => seq).sort((a, b) => keys[a]! - keys[b]! || a - b);
          const found: StoredTwin[] = report.map((result) => ({
            id: ids.indexOf(result.seq) + 1,
            fingerprint: first.get(result.seq)!,
            line: result.line,
            column: result.column,
          }));
          expect(matchTwins(base, report, found)).toEqual(first);
        },
      ),
    );
  });

  it('minimises the total line distance (checked against every assignment of small groups)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: 60 }), { minLength: 1, maxLength: 5 }),
        fc.uniqueArray(fc.integer({ min: 1, max: 60 }), { minLength: 1, maxLength: 5 }),
        (now, before) => {
          const lines = matchedLines(now, before);
          const cost = lines.reduce<number>(
            (sum, line, i) => sum + (line === null ? 0 : Math.abs(line - now[i]!)),
            0,
          );
          expect(lines.filter((line) => line !== null)).toHaveLength(Math.min(now.length, before.length));
          expect(cost).toBe(bestCost(now, before));
        },
      ),
      { numRuns: 300 },
    );
  });
});

/** The least total distance over every way to match min(n, m) pairs: brute force. */
function bestCost(a: number[], b: number[]): number {
  if (a.length === 0 || b.length === 0) return 0;
  const [first, ...rest] = a;
  let best = Infinity;
  if (a.length > b.length) best = bestCost(rest, b);
  for (let j = 0; j < b.length; j++) {
    best = Math.min(best, Math.abs(first! - b[j]!) + bestCost(rest, [...b.slice(0, j), ...b.slice(j + 1)]));
  }
  return best;
}
