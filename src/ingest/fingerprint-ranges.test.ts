import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { twinFingerprint } from './fingerprint.ts';
import { fingerprintRanges, type FingerprintRange } from './merge.ts';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Whether `fingerprint` is in `range` as the merge's SQL reads it: `from` inclusive, `to` exclusive, bytewise. */
const holds = (range: FingerprintRange, fingerprint: string) =>
  (range.from === null || fingerprint >= range.from) && (range.to === null || fingerprint < range.to);

describe('fingerprintRanges', () => {
  it('cuts one open-ended run of ranges, about one per rowsPerRange, in ascending order', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 5_000_000 }),
        fc.integer({ min: 1000, max: 10_000 }),
        (rows, per) => {
          const ranges = fingerprintRanges(rows, per);
          expect(ranges.length).toBe(Math.max(1, Math.ceil(rows / per)));
          expect(ranges[0]?.from).toBeNull();
          expect(ranges.at(-1)?.to).toBeNull();
          for (let i = 1; i < ranges.length; i++) {
            expect(ranges[i]?.from).toBe(ranges[i - 1]?.to);
            if (i > 1) expect(String(ranges[i]?.from) > String(ranges[i - 1]?.from)).toBe(true);
          }
        },
      ),
    );
  });

  it('puts every string, fingerprint or not, in exactly one range', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200_000 }),
        fc.array(fc.oneof(fc.stringMatching(/^[0-9a-f]{64}$/), fc.string()), { minLength: 1, maxLength: 50 }),
        (rows, fingerprints) => {
          const ranges = fingerprintRanges(rows, 1000);
          for (const fingerprint of fingerprints) {
            expect(ranges.filter((range) => holds(range, fingerprint)).length).toBe(1);
          }
        },
      ),
    );
  });

  it('gives ranges of about the size asked for, twins included', () => {
    const fingerprints = Array.from({ length: 100_000 }, (_, i) =>
      i % 10 === 0 ? twinFingerprint(sha256(`base ${i}`), 1 + (i % 3)) : sha256(`result ${i}`),
    );
    const ranges = fingerprintRanges(fingerprints.length, 1000);
    const sizes = ranges.map(
      (range) => fingerprints.filter((fingerprint) => holds(range, fingerprint)).length,
    );
    expect(ranges.length).toBe(100);
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBe(100_000);
    // Binomial spread: ±3.5 standard deviations (~31 rows) of 1000 around the mean.
    expect(Math.max(...sizes)).toBeLessThan(1150);
    expect(Math.min(...sizes)).toBeGreaterThan(850);
  });
});
