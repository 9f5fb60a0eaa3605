import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DigestFilter, RepeatedDigests } from './repeated-digests.ts';

const digest = (n: number) => createHash('sha256').update(`identity ${n}`).digest('hex');

/** A RepeatedDigests fed as stage.ts feeds it, through a filter of every digest. */
function repeatedDigests() {
  const seen = new DigestFilter();
  const repeated = new RepeatedDigests();
  return {
    add: (digest: string) => repeated.add(digest, seen.add(digest)),
    repeated: () => repeated.repeated(),
  };
}

describe('RepeatedDigests', () => {
  it('lists every digest added more than once, whatever the order', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 300 }), { maxLength: 600 }), (identities) => {
        const filter = repeatedDigests();
        for (const n of identities) filter.add(digest(n));
        const counts = new Map<number, number>();
        for (const n of identities) counts.set(n, (counts.get(n) ?? 0) + 1);
        const repeated = new Set(filter.repeated());
        for (const [n, count] of counts) if (count > 1) expect(repeated.has(digest(n))).toBe(true);
      }),
    );
  });

  it('lists almost nothing else: 100k distinct digests give (nearly) no candidates', () => {
    const filter = repeatedDigests();
    for (let n = 0; n < 100_000; n++) filter.add(digest(n));
    expect(filter.repeated()!.length).toBeLessThan(10);
    filter.add(digest(42));
    expect(filter.repeated()).toContain(digest(42));
  });

  it('gives up (null: any may repeat) beyond its cap, or on a digest that is not hex', () => {
    const many = repeatedDigests();
    for (let n = 0; n < 50_001; n++) {
      many.add(digest(n));
      many.add(digest(n));
    }
    expect(many.repeated()).toBeNull();
    const odd = repeatedDigests();
    odd.add('not a digest');
    expect(odd.repeated()).toBeNull();
  });
});

describe('DigestFilter', () => {
  it('never takes a digest added before for new, even crowded (64 bits for hundreds of digests)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 300 }), { maxLength: 600 }),
        fc.boolean(),
        (identities, tiny) => {
          const filter = new DigestFilter(tiny ? 64 : undefined);
          const added = new Set<number>();
          for (const n of identities) {
            const maybeSeen = filter.add(digest(n));
            if (added.has(n)) expect(maybeSeen).toBe(true);
            added.add(n);
          }
        },
      ),
    );
  });

  it('takes (nearly) no new digest for seen at its full size: 100k distinct digests', () => {
    const filter = new DigestFilter();
    let falseAlarms = 0;
    for (let n = 0; n < 100_000; n++) if (filter.add(digest(n))) falseAlarms++;
    expect(falseAlarms).toBeLessThan(10);
    expect(filter.add(digest(7))).toBe(true);
    expect(new DigestFilter().add('not a digest')).toBe(true);
  });
});
