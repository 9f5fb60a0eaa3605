import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MOCKING_FILES } from './support/mocking-files.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
// Built from parts so that this file does not match itself.
const MOCKS_A_MODULE = new RegExp(['\\bvi', 'mock\\('].join('\\.'));

function testFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) =>
      relative(ROOT, join(ROOT, dir, name))
        .split('\\')
        .join('/'),
    );
}

// A file that mocks a module in a fork whose files share modules would see the mock only when no
// earlier file of that fork had imported the module: a test that passes or fails by file order.
describe('test files that mock a module', () => {
  it('are exactly those given modules of their own (test/support/mocking-files.ts)', () => {
    const mocking = [...testFiles('src'), ...testFiles('test')]
      .filter((file) => MOCKS_A_MODULE.test(readFileSync(join(ROOT, file), 'utf8')))
      .sort();
    expect(mocking).toEqual([...MOCKING_FILES].sort());
  });
});
