import { describe, expect, it } from 'vitest';
import { cvss3BaseScore } from './dependency-helpers.ts';
import { cveIdsFrom, parseCweIds } from './identifiers.ts';
import { severityFromScore, severityFromWord } from './severity.ts';

describe('dependency parser helpers', () => {
  it.each([
    ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', 9.8],
    ['CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:C/C:H/I:N/A:N', 7.7],
    ['CVSS:3.0/AV:L/AC:L/PR:L/UI:N/S:C/C:N/I:H/A:N', 6.5],
    ['CVSS:3.1/AV:A/AC:H/PR:H/UI:N/S:U/C:H/I:N/A:N', 4.2],
    ['AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H', 10],
    ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:N', 0],
  ])('scores %s as %d (FIRST calculator values)', (vector, score) => {
    expect(cvss3BaseScore(vector)).toBe(score);
  });

  it('refuses incomplete or non-v3 vectors', () => {
    expect(cvss3BaseScore('AV:N/AC:M/Au:N/C:C/I:C/A:C')).toBeNull();
    expect(cvss3BaseScore('CVSS:3.1/AV:N/AC:L')).toBeNull();
  });

  it('reads every CWE shape tools use', () => {
    expect(parseCweIds(['CWE-79', 79, '["CWE-400"]', 'CWE-', { cweId: 'CWE-506' }])).toEqual([79, 400, 506]);
    expect(parseCweIds('["CWE-918","CWE-1333"]')).toEqual([918, 1333]);
  });

  it('maps severity words and scores', () => {
    expect(['CRITICAL', 'moderate', 'Negligible', 'UNKNOWN', 'bogus', null].map(severityFromWord)).toEqual([
      'critical',
      'medium',
      'info',
      'info',
      'info',
      'info',
    ]);
    expect([9, 8.9, 7, 4, 0.1, 0].map(severityFromScore)).toEqual([
      'critical',
      'high',
      'high',
      'medium',
      'low',
      'info',
    ]);
  });

  it('keeps only CVE identifiers, once', () => {
    expect(cveIdsFrom(['GHSA-xxxx-yyyy-zzzz', 'cve-2021-44228', 'CVE-2021-44228', null])).toEqual([
      'CVE-2021-44228',
    ]);
  });
});
