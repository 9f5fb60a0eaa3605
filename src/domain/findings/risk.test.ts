import { describe, expect, it } from 'vitest';
import { agePart, exploitationPart, riskScore, severityPart } from './risk.ts';

describe('risk formula', () => {
  it('weights severity, exploitation, age and asset criticality as docs/architecture.md ("Risk score") says', () => {
    // critical CVE in KEV, past its SLA, on a critical asset: the maximum.
    expect(riskScore({ severity: 10, exploitation: 1, age: 1, asset: 1 })).toBe(100);
    // high (8), no CVE (0.2), new (0), medium asset (0.65): 100 × 0.65 × (0.48 + 0.06) = 35.1
    expect(
      riskScore({ severity: severityPart('high', null, null), exploitation: 0.2, age: 0, asset: 0.65 }),
    ).toBe(35);
  });

  it('prefers a CVSS score, then the tool score, then the severity default', () => {
    expect(severityPart('low', 9.8, 3)).toBe(9.8);
    expect(severityPart('low', null, 3)).toBe(3);
    expect(severityPart('medium', null, null)).toBe(5.5);
    expect(severityPart('info', 42, null)).toBe(10);
  });

  it('maps EPSS bands and KEV onto exploitation', () => {
    expect(exploitationPart(false, null, false)).toBe(0.2);
    expect(exploitationPart(true, 0.6, false)).toBe(0.8);
    expect(exploitationPart(true, 0.2, false)).toBe(0.6);
    expect(exploitationPart(true, 0.05, false)).toBe(0.3);
    expect(exploitationPart(true, 0.001, false)).toBe(0.1);
    expect(exploitationPart(true, 0.001, true)).toBe(1);
  });

  it('grows age pressure to 1 at the SLA and no further', () => {
    expect(agePart('critical', 7.5)).toBe(0.5);
    expect(agePart('critical', 100)).toBe(1);
    expect(agePart('info', 0)).toBe(0);
  });
});
