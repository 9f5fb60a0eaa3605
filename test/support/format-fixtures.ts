import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { inputFromFile } from '../../src/ingest/upload-input.ts';
import type { NormalizedFinding, ParserModule } from '../../src/ingest/parse/parsers/types.ts';
import { collectFindings } from './parser-suite.ts';

/**
 * The real tool reports under test/fixtures/formats (made by its regen.sh) for formats the shared
 * corpus lacks.
 */
export function formatFixturePath(relative: string): string {
  return resolve(import.meta.dirname, '../fixtures/formats', relative);
}

/** A fixture report parsed as JSON, to read the tool's own counts from it. */
export function readFixtureJson(relative: string): unknown {
  return JSON.parse(readFileSync(formatFixturePath(relative), 'utf8'));
}

export async function parseFixture(parser: ParserModule, relative: string): Promise<NormalizedFinding[]> {
  return collectFindings(parser, await inputFromFile(formatFixturePath(relative)));
}

type Json = Record<string, unknown>;
const list = (value: unknown): Json[] => (Array.isArray(value) ? (value as Json[]) : []);

/** ESLint's results: the bare `-f json` array, or `results` of `-f json-with-metadata`. */
const eslintResults = (report: unknown): Json[] =>
  Array.isArray(report) ? (report as Json[]) : list((report as Json)['results']);

/**
 * Each fixture report's issue count as its tool counts it, read from the report itself: what a
 * user sees in the tool's summary and must see in scanhub.
 */
export const TOOL_ISSUE_COUNTS: Record<string, (relative: string) => number> = {
  eslint: (relative) =>
    eslintResults(readFixtureJson(relative)).reduce(
      (sum, result) => sum + Number(result['errorCount']) + Number(result['warningCount']),
      0,
    ),
  pylint: (relative) => list(readFixtureJson(relative)).length,
  shellcheck: (relative) => {
    const report = readFixtureJson(relative);
    return Array.isArray(report) ? report.length : list((report as Json)['comments']).length;
  },
  gitlab_code_quality: (relative) => list(readFixtureJson(relative)).length,
  retirejs: (relative) =>
    list((readFixtureJson(relative) as Json)['data'])
      .flatMap((entry) => list(entry['results']))
      .reduce((sum, library) => sum + list(library['vulnerabilities']).length, 0),
  cppcheck: (relative) => (readFileSync(formatFixturePath(relative), 'utf8').match(/<error\s/g) ?? []).length,
};
