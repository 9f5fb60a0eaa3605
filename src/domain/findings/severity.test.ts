import { describe, expect, it } from 'vitest';
import { compareSeverity, parseSeverity, SEVERITIES, severityRank } from './severity.ts';

describe('severity scale', () => {
  it('ranks the list most severe first, matching the stored severity_rank (critical 5 … info 1)', () => {
    expect(SEVERITIES.map(severityRank)).toEqual([5, 4, 3, 2, 1]);
    expect([...SEVERITIES].reverse().sort((a, b) => -compareSeverity(a, b))).toEqual([...SEVERITIES]);
    expect(compareSeverity('low', 'high')).toBeLessThan(0);
  });

  it('parses the level names in any case and nothing else', () => {
    expect(parseSeverity(' HIGH ')).toBe('high');
    expect(parseSeverity('Info')).toBe('info');
    expect(parseSeverity('moderate')).toBeUndefined();
    expect(parseSeverity('')).toBeUndefined();
    expect(parseSeverity(null)).toBeUndefined();
  });
});
