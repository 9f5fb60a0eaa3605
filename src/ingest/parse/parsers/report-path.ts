import { nonBlank } from './json-value.ts';

/**
 * A file path as a linter wrote it, with one separator and no leading `./`, so the same file reads
 * the same from a Windows runner or a `./*.sh` glob. Absolute paths are kept: the upload's `root`
 * makes them repository-relative.
 */
export function reportPath(value: unknown): string | null {
  const path = nonBlank(value)
    ?.trim()
    .replaceAll('\\', '/')
    .replace(/^(\.\/)+/, '');
  return path === undefined || path === '' ? null : path;
}
