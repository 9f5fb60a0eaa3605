import { normalizedRoot, repositoryPath as repositoryPathIn } from '../../repository-path.ts';
import { asIndex, asRecord, asText, type JsonRecord } from './json-value.ts';
import type { RunMeta } from './sarif-run.ts';
import { decodePercent } from './text.ts';

/** Where in the repository one SARIF location points. */
export interface SarifPlace {
  filePath: string | null;
  line: number | null;
  column: number | null;
  endLine: number | null;
  snippet: string | null;
}

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;
/** A Windows drive (`C:`) is not a URI scheme. */
const DRIVE = /^[a-z]:[\\/]/i;
const FILE_SCHEME = /^file:/i;
const MAX_BASE_CHAIN = 8;

const isAbsoluteUri = (uri: string): boolean => SCHEME.test(uri) && !DRIVE.test(uri);

/**
 * The repository-relative prefix a `uriBaseId` stands for. A base whose own URI is absolute
 * (`file:///home/ci/src/`) is the checkout root, so it adds nothing; a relative one (`test/`,
 * itself maybe based on another id) adds its path. Unknown ids (`%SRCROOT%` without a definition)
 * are conventionally the root as well.
 */
function basePrefix(meta: RunMeta, baseId: string | undefined, depth = 0): string {
  if (baseId === undefined || depth > MAX_BASE_CHAIN) return '';
  const base = asRecord(meta.originalUriBaseIds[baseId]);
  const uri = asText(base?.['uri']);
  if (uri === undefined || isAbsoluteUri(uri)) return '';
  const parent = basePrefix(meta, asText(base?.['uriBaseId']), depth + 1);
  return `${parent}${uri.endsWith('/') ? uri : `${uri}/`}`;
}

/**
 * The run's checkout roots, longest first: absolute `originalUriBaseIds` (`file:///home/ci/src/`)
 * and the invocations' `workingDirectory`. A path under one of them is made relative to it, so the
 * same tree scanned at two places gives the same paths.
 */
function roots(meta: RunMeta): string[] {
  const uris = [
    ...Object.values(meta.originalUriBaseIds).map((value) => asText(asRecord(value)?.['uri'])),
    ...meta.workingDirectories,
  ];
  const found = uris
    .filter((uri): uri is string => uri !== undefined && (isAbsoluteUri(uri) || uri.startsWith('/')))
    .map((uri) => normalizedRoot(uri))
    .filter((root): root is string => root !== null);
  return [...new Set(found)].sort((a, b) => b.length - a.length);
}

/** Turns a SARIF `artifactLocation` into a repository-relative path, or null when there is none. */
export function repositoryPath(meta: RunMeta, artifactLocation: unknown): string | null {
  const location = asRecord(artifactLocation);
  if (!location) return null;
  const artifact = meta.artifacts[asIndex(location['index']) ?? -1];
  const rawUri = asText(location['uri']) ?? artifact?.uri;
  if (rawUri === undefined) return null;
  const baseId =
    asText(location['uriBaseId']) ?? (location['uri'] === undefined ? artifact?.uriBaseId : undefined);
  if (isAbsoluteUri(rawUri) && !FILE_SCHEME.test(rawUri)) return rawUri; // http(s): not a repository file
  meta.roots ??= roots(meta);
  // file: URIs are decoded by repositoryPathIn; relative references are percent-encoded too.
  const path = isAbsoluteUri(rawUri) ? rawUri : decodePercent(basePrefix(meta, baseId) + rawUri);
  return repositoryPathIn(path, meta.roots);
}

const snippetOf = (region: JsonRecord | undefined): string | undefined =>
  asText(asRecord(region?.['snippet'])?.['text']);

/** File, region and snippet of one `location` object. */
export function placeOf(meta: RunMeta, location: unknown): SarifPlace {
  const physical = asRecord(asRecord(location)?.['physicalLocation']);
  const region = asRecord(physical?.['region']);
  const context = asRecord(physical?.['contextRegion']);
  const line = asIndex(region?.['startLine']) ?? null;
  return {
    filePath: repositoryPath(meta, physical?.['artifactLocation']),
    line,
    column: asIndex(region?.['startColumn']) ?? null,
    // SARIF §3.30.7: an absent endLine means the region ends on its start line.
    endLine: asIndex(region?.['endLine']) ?? line,
    snippet: snippetOf(region) ?? snippetOf(context) ?? null,
  };
}
