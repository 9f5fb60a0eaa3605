import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { relativeUri } from './findings-sarif.presenter.ts';

describe('relativeUri', () => {
  it.each([
    ['javascript:alert(1)', 'javascript%3Aalert(1)'],
    ['data:text/html,<b>', 'data%3Atext/html,%3Cb%3E'],
    ['file:///home/ci/src/a.ts', 'home/ci/src/a.ts'],
    ['C:\\src\\a.ts', 'src/a.ts'],
    ['//evil.example/x', 'evil.example/x'],
    ['https://evil.example/x', 'https%3A//evil.example/x'],
    ['src/a?b#c.ts', 'src/a%3Fb%23c.ts'],
    ['src/x:y.ts', 'src/x:y.ts'],
  ])('%s → %s', (path, uri) => {
    expect(relativeUri(path)).toBe(uri);
  });

  it('whatever a scanner wrote, the URI resolves inside the repository it is read against', () => {
    const base = 'https://repo.example/acme/app/blob/main/';
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.webUrl(), fc.constantFrom('javascript:', 'data:', 'file:', 'C:')),
        (head) => {
          const uri = relativeUri(head);
          expect(uri).not.toMatch(/^[A-Za-z][A-Za-z0-9+.-]*:/);
          expect(uri).not.toMatch(/^\//);
          const resolved = new URL(uri, base);
          expect(resolved.origin).toBe('https://repo.example');
          expect(resolved.search + resolved.hash).toBe('');
        },
      ),
      { numRuns: 500 },
    );
  });
});
