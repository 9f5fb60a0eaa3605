import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { endFileHygienically } from '../support/file-hygiene.ts';
import { MOCKING_FILES } from '../support/mocking-files.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// Built from parts so that this file does not match itself.
const MOCKS_A_MODULE = new RegExp(['\\bvi', 'mock\\('].join('\\.'));

function testFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => `${dir}/${name}`);
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

describe('the end of a test file', () => {
  it('fails a file that left fake timers on, and switches them off for the next file', () => {
    vi.useFakeTimers();
    expect(endFileHygienically).toThrow(/left fake timers on/);
    expect(vi.isFakeTimers()).toBe(false);
  });

  it('restores the spies a file left', () => {
    const target = { answer: () => 42 };
    vi.spyOn(target, 'answer').mockReturnValue(0);
    endFileHygienically();
    expect(target.answer()).toBe(42);
  });
});
