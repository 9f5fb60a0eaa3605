/** Bits of the filter: 1 MiB, whatever the upload's size. */
const BITS = 1 << 23;
const MASK = BITS - 1;
const PROBES = 4;
/** Beyond this many candidates the list is not kept (the merge then looks at every staged twin). */
const MAX_CANDIDATES = 50_000;

/**
 * Which of a stream of hex digests (identity bases) may repeat, in fixed memory: a Bloom filter
 * over the digests seen, and the digests that found all their bits set. Those are a superset of
 * the digests added more than once (a filter has no false negatives), so the merge looks for twin
 * groups among them only, instead of grouping every staged row of the upload (186 ms of a 100k
 * upload where no identity repeats). At 100k digests a false candidate is rare (~1 in 10^6 adds);
 * at 500k about one add in 400 is one, far below the cap.
 */
export class RepeatedDigests {
  private readonly bits = new Int32Array(BITS / 32);
  private readonly candidates = new Set<string>();
  private overflowed = false;

  add(digest: string): void {
    // Two 32-bit halves of a cryptographic hash: independent enough for double hashing.
    const first = Number.parseInt(digest.slice(0, 8), 16);
    const step = Number.parseInt(digest.slice(8, 16), 16) | 1;
    if (Number.isNaN(first) || Number.isNaN(step)) {
      this.overflowed = true; // Not a hex digest: no promise can be kept about it.
      return;
    }
    let seen = true;
    for (let probe = 0; probe < PROBES; probe++) {
      const bit = (first + probe * step) & MASK;
      const word = bit >>> 5;
      const flag = 1 << (bit & 31);
      const value = this.bits[word] ?? 0;
      if ((value & flag) === 0) {
        seen = false;
        this.bits[word] = value | flag;
      }
    }
    if (!seen || this.overflowed) return;
    if (this.candidates.size >= MAX_CANDIDATES) {
      this.overflowed = true;
      this.candidates.clear();
    } else this.candidates.add(digest);
  }

  /** Every digest added more than once, and maybe a few others; null when they were too many to keep. */
  repeated(): string[] | null {
    return this.overflowed ? null : [...this.candidates];
  }
}
