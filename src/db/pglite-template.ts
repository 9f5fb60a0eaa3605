import { cpSync, existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../package-root.ts';
import { migrations } from './migrations/index.ts';

/**
 * A migrated PGlite data directory made at build time (`npm run build`), which a first start on the
 * embedded database copies into place and opens like any existing one, instead of creating a cluster
 * (seconds and ~900 MB of memory) and running every migration. A plain directory, not a
 * `dumpDataDir` archive: `loadDataDir` unpacks the archive through PGlite's file system in the
 * process's memory, which took about 1 s more and ~90 MB more peak RSS than copying the files.
 */
export const TEMPLATE_DIR = join(PACKAGE_ROOT, 'dist', 'pglite-template');

/** The migrations the template holds, beside it. */
function manifestFile(templateDir: string): string {
  return `${templateDir}.json`;
}

/** Records which migrations the template at `templateDir` (closed, cleanly shut down) holds. */
export function writeTemplateManifest(templateDir: string, applied: readonly string[]): void {
  writeFileSync(manifestFile(templateDir), `${JSON.stringify({ migrations: applied }, null, 2)}\n`);
}

/**
 * The template directory for a new data directory, when one was built and holds only migrations
 * this code knows (an older template is fine: the start applies the rest); otherwise undefined.
 */
export function usableTemplate(templateDir = TEMPLATE_DIR): string | undefined {
  if (!existsSync(join(templateDir, 'PG_VERSION')) || !existsSync(manifestFile(templateDir)))
    return undefined;
  const manifest = JSON.parse(readFileSync(manifestFile(templateDir), 'utf8')) as { migrations?: unknown };
  const known = new Set(Object.keys(migrations));
  const applied = Array.isArray(manifest.migrations) ? manifest.migrations : [];
  if (!applied.every((name) => typeof name === 'string' && known.has(name))) return undefined;
  return templateDir;
}

/**
 * Copies the template to `dataDir`, which must not hold a database yet. The copy goes to a sibling
 * first and is renamed into place, so a start interrupted mid-copy leaves no half database that a
 * later start would take for a whole one. Synchronous on purpose: nothing else runs this early, and
 * the sync copy was 3× faster than `fs.promises.cp` (one thread-pool round trip per file; ~1,200 files then).
 */
export function copyTemplate(templateDir: string, dataDir: string): void {
  const partial = `${dataDir}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  cpSync(templateDir, partial, { recursive: true });
  // An empty directory (made by hand, or by a start that failed before creating anything) is replaced.
  if (existsSync(dataDir) && readdirSync(dataDir).length === 0) rmSync(dataDir, { recursive: true });
  renameSync(partial, dataDir);
}
