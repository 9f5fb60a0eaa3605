import { posix } from 'node:path';

const FILE_SCHEME = /^file:(\/\/(localhost)?)?/i;
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;
/** A Windows drive (`C:`) is not a URI scheme. */
const DRIVE = /^[a-z]:[\\/]/i;
/**
 * What `unified` could change: a file URI, a backslash, a `.` or `..` segment, an empty segment, a
 * leading or trailing slash. Most reported paths have none (a 100k upload unifies each path twice;
 * normalizing every one was 0.35 s of its parse).
 */
const NOT_UNIFIED = /^file:|\\|(^|\/)\.{1,2}(\/|$)|\/\/|^\/|\/$/i;

function decode(uri: string): string {
  if (!uri.includes('%')) return uri;
  try {
    return decodeURIComponent(uri);
  } catch {
    return uri; // a stray '%' is more likely a literal than an encoding error
  }
}

/**
 * A local path in one spelling: `file://` dropped (and percent-decoding undone), separators unified,
 * `..` resolved, leading `/` or `./` and trailing slash dropped.
 */
function unified(path: string): string {
  if (!NOT_UNIFIED.test(path)) return path;
  const local = FILE_SCHEME.test(path) ? decode(path.replace(FILE_SCHEME, '')) : path;
  // `file:///C:/src` leaves `/C:/src`: the drive is the start of the path.
  const withoutSlashBeforeDrive = /^\/[a-z]:\//i.test(local) ? local.slice(1) : local;
  const normalized = posix.normalize(withoutSlashBeforeDrive.replaceAll('\\', '/'));
  // Absolute and relative spellings compare alike: parsers already drop leading slashes.
  return normalized.replace(/^(\.?\/)+/, '').replace(/\/+$/, '');
}

/**
 * The checkout-independent spelling of a root (an upload's `root`, a SARIF `workingDirectory`):
 * what `repositoryPath` strips from the front of a path. Null when there is nothing to strip.
 */
export function normalizedRoot(root: string | null | undefined): string | null {
  if (root === null || root === undefined || root.trim() === '') return null;
  const path = unified(root.trim());
  return path === '' || path === '.' ? null : path;
}

/**
 * A finding's path as identity and display use it: relative to the repository. Strips `file://`,
 * the first of `roots` the path lies under, then `./` and leading slashes. URLs of other schemes
 * (a DAST finding's `https://…`) are not repository files and are returned as given.
 */
export function repositoryPath(path: string | null, roots: readonly string[] = []): string | null {
  if (path === null) return null;
  const trimmed = path.trim();
  if (trimmed === '') return null;
  if (SCHEME.test(trimmed) && !DRIVE.test(trimmed) && !FILE_SCHEME.test(trimmed)) return trimmed;
  let local = unified(trimmed);
  const root = roots.find((candidate) => local === candidate || local.startsWith(`${candidate}/`));
  if (root !== undefined) local = local.slice(root.length + 1);
  return local === '' || local === '.' ? null : local;
}
