import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stagedRanges } from './target.ts';

describe('stagedRanges', () => {
  it('cuts every staged row into exactly one range, in report order, none larger than asked', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 200_000 }),
        fc.integer({ min: 100, max: 10_000 }),
        (rows, per) => {
          const ranges = stagedRanges(rows, per);
          // Plain checks per range, one expect per case: thousands of expects made this take minutes.
          const joined = ranges.every((range, index) => range.from === (ranges[index - 1]?.to ?? 0));
          const sized = ranges.every(
            (range) => range.to - range.from <= per && (rows === 0 || range.to > range.from),
          );
          expect({ count: ranges.length, end: ranges.at(-1)?.to, joined, sized }).toEqual({
            count: Math.max(1, Math.ceil(rows / per)),
            end: rows,
            joined: true,
            sized: true,
          });
        },
      ),
    );
  });
});
