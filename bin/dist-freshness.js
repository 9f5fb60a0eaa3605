// Whether the compiled runtime in dist/ was built from the sources as they are now: the build
// stamp must be newer than every file under src/. Plain JavaScript: it runs before anything is built.
import { readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

function newestBelow(directory) {
  let newest = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestBelow(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** `root` is the package root (this package's by default; tests give a folder of their own). */
export function distIsFresh(root = ROOT) {
  let built;
  try {
    built = statSync(join(root, 'dist', '.build-stamp')).mtimeMs;
  } catch {
    return false;
  }
  try {
    return newestBelow(join(root, 'src')) <= built;
  } catch {
    return true; // an installed package without sources: dist is all there is
  }
}
