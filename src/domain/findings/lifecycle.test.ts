import { describe, expect, it } from 'vitest';
import {
  allowedNextStatuses,
  checkTransition,
  CLOSED_STATUSES,
  FINDING_STATUSES,
  isOpenStatus,
  OPEN_STATUSES,
  statusOnAbsence,
  statusOnReturn,
} from './lifecycle.ts';

describe('finding lifecycle', () => {
  it('allows the spec transitions and reopening a dismissal', () => {
    expect(checkTransition('open', 'confirmed')).toBe('allowed');
    expect(checkTransition('open', 'false_positive')).toBe('allowed');
    expect(checkTransition('confirmed', 'fixed')).toBe('allowed');
    expect(checkTransition('confirmed', 'false_positive')).toBe('allowed');
    expect(checkTransition('fixed', 'open')).toBe('allowed');
    expect(checkTransition('false_positive', 'open')).toBe('allowed');
  });

  it('rejects shortcuts and treats the same status as no change', () => {
    expect(checkTransition('open', 'fixed')).toBe('invalid');
    expect(checkTransition('fixed', 'confirmed')).toBe('invalid');
    expect(checkTransition('false_positive', 'fixed')).toBe('invalid');
    expect(checkTransition('open', 'open')).toBe('same');
    expect(allowedNextStatuses('open')).toEqual(['confirmed', 'false_positive']);
  });
});

describe('system moves', () => {
  it('splits every status into open or closed, once', () => {
    expect([...OPEN_STATUSES, ...CLOSED_STATUSES].sort()).toEqual([...FINDING_STATUSES].sort());
  });

  it('fixes only open findings on absence, and reopens only fixed ones on return', () => {
    for (const status of FINDING_STATUSES) {
      expect(statusOnAbsence(status)).toBe(isOpenStatus(status) ? 'fixed' : status);
      expect(statusOnReturn(status)).toBe(status === 'fixed' ? 'open' : status);
      // A return never undoes a person's triage, and an absence never closes a dismissal again.
      if (status === 'false_positive' || status === 'confirmed') expect(statusOnReturn(status)).toBe(status);
    }
  });
});
