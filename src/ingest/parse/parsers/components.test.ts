import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { storedComponent } from './components.ts';

/** Every string a stored component holds, keys of its hashes included. */
const strings = (value: unknown): string[] =>
  typeof value === 'string'
    ? [value]
    : Array.isArray(value)
      ? value.flatMap(strings)
      : typeof value === 'object' && value !== null
        ? Object.entries(value).flatMap(([key, inner]) => [key, ...strings(inner)])
        : [];

describe('storedComponent', () => {
  it('stores what a report with NUL characters names, without them (grype lists a JVM version "17.0.10+7\\0-J-ms8m")', () => {
    const stored = storedComponent({
      purl: null,
      ecosystem: 'binary',
      namespace: null,
      name: 'java',
      version: '17.0.10+7\u0000-J-ms8m',
      licenses: 'MIT\u0000',
      scope: null,
      direct: null,
      hashes: { 'sha\u0000256': 'ab\u0000cd' },
    });
    expect(stored.version).toBe('17.0.10+7-J-ms8m');
    expect(strings(stored).filter((text) => text.includes('\u0000'))).toEqual([]);
  });

  it('names a component whose report gives a blank name `unknown` (a purl needs a name)', () => {
    const stored = storedComponent({
      purl: null,
      ecosystem: 'npm',
      namespace: null,
      name: '\t',
      version: null,
      licenses: null,
      scope: null,
      direct: null,
      hashes: {},
    });
    expect(stored).toMatchObject({ name: 'unknown', purl: 'pkg:npm/unknown' });
  });

  it('holds no NUL and no lone surrogate at a cut, whatever the report says', () => {
    const text = fc.string({ unit: 'binary', maxLength: 1200 });
    fc.assert(
      fc.property(text, fc.option(text), fc.option(text), (name, version, licenses) => {
        const stored = storedComponent({
          purl: null,
          ecosystem: 'npm',
          namespace: null,
          name: name || 'x',
          version,
          licenses,
          scope: null,
          direct: null,
          hashes: {},
        });
        for (const value of strings(stored)) {
          expect(value).not.toContain('\u0000');
          // A lone surrogate survives a round trip through UTF-8 only as U+FFFD.
          expect(Buffer.from(value, 'utf8').toString('utf8')).toBe(value);
        }
      }),
    );
  });
});
