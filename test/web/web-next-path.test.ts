import { describe, expect, it } from 'vitest';
import { sameOriginPath } from '../../web/src/next-path.ts';

const ORIGIN = 'https://scanhub.example.test';

describe('the sign-in page’s next= destination', () => {
  it('keeps a path on this origin, with its query and fragment', () => {
    expect(sameOriginPath('/findings?status=open#top', ORIGIN)).toBe('/findings?status=open#top');
    expect(sameOriginPath('/applications/3', ORIGIN)).toBe('/applications/3');
  });

  it('goes home for anything that leaves the origin or is no path, as the browser would read it', () => {
    for (const next of [
      null,
      '',
      'https://evil.example',
      '//evil.example',
      '/\\evil.example',
      '/\\/evil.example',
      '/\t/evil.example',
      'javascript:alert(1)',
      'findings',
    ]) {
      expect(sameOriginPath(next, ORIGIN), String(next)).toBe('/');
    }
  });
});
