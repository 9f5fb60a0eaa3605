import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizedRoot, repositoryPath } from './repository-path.ts';

describe('repositoryPath', () => {
  const roots = ['/home/ci/work/', 'file:///C:/agent/s'].map(normalizedRoot).filter((r) => r !== null);

  it('strips file://, the root and ./, and unifies separators', () => {
    expect(repositoryPath('file:///home/ci/work/src/a.c', roots)).toBe('src/a.c');
    expect(repositoryPath('/home/ci/work/src/a.c', roots)).toBe('src/a.c');
    expect(repositoryPath('C:\\agent\\s\\src\\a.c', roots)).toBe('src/a.c');
    expect(repositoryPath('file:///C:/agent/s/a%20b.c', roots)).toBe('a b.c');
    expect(repositoryPath('./src/./lib/../a.c')).toBe('src/a.c');
  });

  it('keeps paths outside the root (without their leading slash) and URLs of other schemes', () => {
    expect(repositoryPath('/opt/other/a.c', roots)).toBe('opt/other/a.c');
    expect(repositoryPath('/home/ci/workspace/a.c', roots)).toBe('home/ci/workspace/a.c');
    expect(repositoryPath('https://example.test/login?x=1', roots)).toBe('https://example.test/login?x=1');
  });

  it('has no path for empty input or the root itself', () => {
    expect(repositoryPath(null)).toBeNull();
    expect(repositoryPath('  ')).toBeNull();
    expect(repositoryPath('/home/ci/work', roots)).toBeNull();
    expect(normalizedRoot('/')).toBeNull();
  });

  it('gives a path the same spelling whether or not it needed unifying', () => {
    // A leading `./` always takes the full normalization; the path itself may take the shortcut.
    const segment = fc.constantFrom('a', 'b.c', '.x', '..', '.', '', 'd\\e', 'f%20g');
    // Relative: `./` before an absolute path would make it relative to `.` (`/../a` is `a`, `.//../a` is `../a`).
    const first = segment.filter((part) => part !== '');
    const path = fc
      .tuple(first, fc.array(segment, { maxLength: 5 }))
      .map(([head, rest]) => [head, ...rest].join('/'));
    fc.assert(
      fc.property(path, (candidate) => {
        expect(repositoryPath(candidate)).toBe(repositoryPath(`./${candidate}`));
        const once = repositoryPath(candidate);
        if (once !== null) expect(repositoryPath(once)).toBe(once);
      }),
    );
  });
});
