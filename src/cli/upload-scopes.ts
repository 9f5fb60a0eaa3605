import { relative } from 'node:path';
import { detectFormat } from '../ingest/parse/detect.ts';
import type { ReportFacts } from '../ingest/parse/parsers/types.ts';
import { inputFromFile } from '../ingest/upload-input.ts';
import { usageError } from './errors.ts';

/** Formats that name their tools inside the report: two such files may speak for different tools. */
const TOOL_NAMING_FORMATS = new Set(['sarif', 'cyclonedx']);

/**
 * What a file's findings are scoped to on the server (scanner, tool, category): an upload closes
 * the open findings of its scope that it no longer reports. Detected here the way the server
 * detects it; `null` when the content names no format (the server will refuse it and say why).
 */
export async function scopesOf(
  path: string,
  scannerType: string | undefined,
  category: string | undefined,
): Promise<string[] | null> {
  const input = await inputFromFile(path);
  const detection = await detectFormat(input);
  const parser = scannerType
    ? detection.parsers.find((candidate) => candidate.name === scannerType)
    : detection.parsers[0];
  const format = scannerType ?? parser?.name;
  if (format === undefined) return null;
  if (!parser || !TOOL_NAMING_FORMATS.has(parser.name)) return [`${format}\0${format}\0${category ?? ''}`];
  // SARIF and CycloneDX name their tools (and SARIF its category) in the report: read them.
  const scopes = new Set<string>();
  const facts: ReportFacts = {
    scope: (toolName, reportCategory) =>
      scopes.add(`${format}\0${toolName}\0${category ?? reportCategory ?? ''}`),
    coveredFile: () => {},
  };
  try {
    for await (const finding of parser.parse(detection.input, facts))
      scopes.add(`${format}\0${finding.toolName}\0${category ?? finding.category ?? ''}`);
  } catch {
    return [`${format}\0*\0${category ?? ''}`]; // unreadable: the server will say why
  }
  return [...scopes];
}

/** `--category-from-path`: the file's path from the scanned directory, with forward slashes. */
export function categoryFromPath(path: string, root: string): string {
  const fromRoot = relative(root, path);
  return (fromRoot.startsWith('..') ? path : fromRoot).split('\\').join('/');
}

/**
 * Refuses (exit 2) an upload of several files whose findings share a scope in one version: each
 * later file would close the findings of the earlier ones (two Trivy reports: the second "fixes"
 * the first's findings), as GitHub's upload-sarif refuses two runs with one category.
 */
export async function refuseSharedScopes(
  files: { path: string; category: string | undefined }[],
  scannerType: string | undefined,
): Promise<void> {
  if (files.length < 2) return;
  const owner = new Map<string, string>();
  for (const file of files) {
    for (const scope of (await scopesOf(file.path, scannerType, file.category)) ?? []) {
      const earlier = owner.get(scope);
      if (earlier !== undefined && earlier !== file.path) {
        const [format, tool] = scope.split('\0');
        throw usageError(
          `${relative(process.cwd(), earlier)} and ${relative(process.cwd(), file.path)} are both ${tool === format ? format : `${format} (${tool})`} reports for one version: ` +
            'the second would close the findings of the first. Upload them one at a time, each with ' +
            'its own --category (e.g. --category backend), or pass --category-from-path to use each file path as its category.',
        );
      }
      owner.set(scope, file.path);
    }
  }
}
