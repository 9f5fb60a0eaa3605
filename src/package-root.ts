import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

function findPackageRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`No package.json above ${start}`);
  }
}

/**
 * scanhub's own directory (the first package.json above this file). Found, not counted in `..`s:
 * the sources run from `src/<room>/` while the build bundles this code into whichever file of
 * `dist/` the bundler chose, so no fixed relative path fits both.
 */
export const PACKAGE_ROOT = findPackageRoot(import.meta.dirname);

/** scanhub's version, from its package.json (read once, at import). */
export const PACKAGE_VERSION: string = (
  JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }
).version;
