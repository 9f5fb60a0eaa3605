import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * What a server start imports: the static import graph from `src/main.ts` and `src/app.ts`, which
 * `serve` imports (type-only imports and other `await import()`s are not followed: they load nothing
 * at start). Libraries that no first request
 * needs are imported where they are used, and this keeps them out of the start.
 */

const SRC = resolve(import.meta.dirname, '..', '..', 'src');
const STATIC_IMPORT = /^import\s+(?!type\s)(?:[^'"]*?\sfrom\s+)?['"]([^'"]+)['"]/gm;

function startImports(...entries: string[]): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const pending = [...entries];
  while (pending.length > 0) {
    const file = pending.pop() as string;
    if (files.has(file)) continue;
    files.add(file);
    for (const match of readFileSync(file, 'utf8').matchAll(STATIC_IMPORT)) {
      const specifier = match[1] as string;
      if (specifier.startsWith('.')) pending.push(join(dirname(file), specifier));
      else if (!specifier.startsWith('node:'))
        packages.add(
          specifier
            .split('/')
            .slice(0, specifier.startsWith('@') ? 2 : 1)
            .join('/'),
        );
    }
  }
  return { files, packages };
}

describe('a server start', () => {
  it('imports no issue-tracker client library (each is imported when a tracker is first called)', () => {
    // `serve` imports the HTTP stack (app.ts) itself, while the database opens.
    const { files, packages } = startImports(join(SRC, 'main.ts'), join(SRC, 'app.ts'));
    expect(files.has(join(SRC, 'runtime.ts'))).toBe(true); // the walk does reach the start's modules
    expect(packages.has('fastify')).toBe(true);
    for (const library of ['jira.js', '@octokit/rest', '@gitbeaker/rest', 'axios'])
      expect(packages, library).not.toContain(library);
  });
});
