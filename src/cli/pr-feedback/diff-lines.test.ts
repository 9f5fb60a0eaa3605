import { describe, expect, it } from 'vitest';
import { addedLines } from './diff-lines.ts';

describe('addedLines', () => {
  it('numbers head-side lines across hunks, skipping removed lines and the no-newline marker', () => {
    const patch = [
      '@@ -1,3 +1,3 @@',
      ' keep',
      '-old',
      '+new',
      ' keep',
      '@@ -20,2 +20,4 @@ function f() {',
      ' a',
      '+b',
      '+c',
      ' d',
      '\\ No newline at end of file',
    ].join('\n');
    expect([...addedLines(patch)]).toEqual([2, 21, 22]);
  });
  it('is empty for a patch that only removes', () => {
    expect(addedLines('@@ -1,2 +1,0 @@\n-a\n-b').size).toBe(0);
  });
});
