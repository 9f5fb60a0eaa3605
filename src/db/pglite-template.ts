import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PGlite } from '@electric-sql/pglite';
import { migrations } from './migrations/index.ts';

/**
 * A migrated PGlite data directory made at build time (`npm run build`), so a first start on the
 * embedded database loads it instead of creating a cluster (seconds and ~900 MB of memory) and
 * running every migration. The same path from `src/db/` (tsx) and `dist/db/` (compiled).
 */
export const TEMPLATE_FILE = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'dist',
  'pglite-template.tgz',
);
const MANIFEST_FILE = `${TEMPLATE_FILE}.json`;

/** Writes `instance`'s data directory (migrated, job tables created) as the template. */
export async function writeTemplate(instance: PGlite, applied: readonly string[]): Promise<void> {
  const dump = await instance.dumpDataDir('gzip');
  writeFileSync(TEMPLATE_FILE, Buffer.from(await dump.arrayBuffer()));
  writeFileSync(MANIFEST_FILE, `${JSON.stringify({ migrations: applied }, null, 2)}\n`);
}

/**
 * The template for a new data directory, when one was built and holds only migrations this code
 * knows (an older template is fine: the start applies the rest); otherwise undefined.
 */
export function readTemplate(): Blob | undefined {
  if (!existsSync(TEMPLATE_FILE) || !existsSync(MANIFEST_FILE)) return undefined;
  const manifest = JSON.parse(readFileSync(MANIFEST_FILE, 'utf8')) as { migrations?: unknown };
  const known = new Set(Object.keys(migrations));
  const applied = Array.isArray(manifest.migrations) ? manifest.migrations : [];
  if (!applied.every((name) => typeof name === 'string' && known.has(name))) return undefined;
  return new Blob([readFileSync(TEMPLATE_FILE)], { type: 'application/x-gzip' });
}
