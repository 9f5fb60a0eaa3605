// Whether the compiled runtime in dist/ was built from the sources as they are now: the build
// stamp must be newer than every file under src/. Plain JavaScript: it runs before anything is built.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

const STAMP = '.build-stamp';

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
    built = statSync(join(root, 'dist', STAMP)).mtimeMs;
  } catch {
    return false;
  }
  try {
    return newestBelow(join(root, 'src')) <= built;
  } catch {
    return true; // an installed package without sources: dist is all there is
  }
}

/** The web UI's build (web/dist) is newer than every file it is built from. */
export function webIsFresh(root = ROOT) {
  let built;
  try {
    built = statSync(join(root, 'web', 'dist', STAMP)).mtimeMs;
  } catch {
    return false;
  }
  const sources = [
    join(root, 'web', 'src'),
    join(root, 'web', 'index.html'),
    join(root, 'web', 'vite.config.ts'),
  ];
  return sources.every(
    (path) =>
      !existsSync(path) ||
      (statSync(path).isDirectory() ? newestBelow(path) : statSync(path).mtimeMs) <= built,
  );
}

/**
 * The locked dependency tree a build was made with: both builds bundle dependencies, so an install
 * that changed them (a pull that changed package-lock.json) needs a new build though no source changed.
 */
function lockDigest(root) {
  try {
    return createHash('sha256')
      .update(readFileSync(join(root, 'package-lock.json')))
      .digest('hex');
  } catch {
    return 'no lockfile';
  }
}

/** Marks `directory` (dist or web/dist, under `root`) as built now from the current dependencies. */
export function writeBuildStamp(directory, root = ROOT) {
  writeFileSync(
    join(root, directory, STAMP),
    `${JSON.stringify({ built_at: new Date().toISOString(), lock: lockDigest(root) })}\n`,
  );
}

/** Whether `directory`'s stamp was written with the dependencies locked now. */
export function builtWithCurrentLock(directory, root = ROOT) {
  try {
    const stamp = JSON.parse(readFileSync(join(root, directory, STAMP), 'utf8'));
    return stamp.lock === lockDigest(root);
  } catch {
    return false;
  }
}
