import { describe, expect, it } from 'vitest';
import { allowedNextStatuses, checkTransition } from './lifecycle.ts';

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
