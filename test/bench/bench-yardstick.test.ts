import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { formatYardstick, measureYardstick } from '../../bench/yardstick.ts';

const leftovers = () => readdirSync(tmpdir()).filter((name) => name.startsWith('scanhub-yardstick-'));

describe("the bench's machine yardstick", () => {
  it('times both workloads, leaves no files behind, and says what it timed', () => {
    const before = leftovers();
    const yardstick = measureYardstick(1);
    for (const ms of [yardstick.jsonMs, yardstick.filesMs]) {
      expect(Number.isFinite(ms)).toBe(true);
      expect(ms).toBeGreaterThan(0);
    }
    expect(leftovers()).toEqual(before);
    expect(formatYardstick('at start', yardstick)).toMatch(
      /^machine yardstick at start: JSON parse\+stringify of [3-5]\.\d MB [\d.]+ ms, 300 file creates [\d.]+ ms$/,
    );
  });
});
