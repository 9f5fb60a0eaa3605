import { headIsWholeDocument, readBytes } from './json-input.ts';
import { isRecord, type JsonRecord, nonBlank, positiveInt } from './json-value.ts';
import { streamJsonValues } from './json-stream.ts';
import { severityIn, STANDARD_SEVERITIES } from './severity.ts';
import { emptyFinding, ParseError } from './types.ts';
import type { NormalizedFinding, ParserInput, ParserModule, Severity, Sniff } from './types.ts';

/**
 * Checkov `-o json`. Three shapes:
 * - one framework: `{ check_type, results: { failed_checks: [...], passed_checks, skipped_checks }, summary }`;
 * - several frameworks: an array of the object above, one per `check_type`;
 * - nothing scanned: the bare summary `{ passed, failed, ..., checkov_version }`.
 * Only failed checks are findings; passed ones are not problems and skipped ones were never evaluated.
 */

/**
 * Open-source Checkov only knows severities when connected to the Bridgecrew/Prisma platform, so most
 * reports carry `severity: null`. A failed policy check is not informational; like DefectDojo we call
 * it medium. A severity word we do not know is still `info`.
 */
function severityOf(value: unknown): Severity {
  const word = nonBlank(value);
  return word === null ? 'medium' : (severityIn(STANDARD_SEVERITIES, word) ?? 'info');
}

function detect(sniff: Sniff): boolean {
  if (sniff.shape === 'json-array') return sniff.itemKeys.includes('check_type');
  if (sniff.shape !== 'json-object') return false;
  const keys = sniff.topKeys;
  return (keys.includes('check_type') && keys.includes('results')) || keys.includes('checkov_version');
}

/** Checkov paths start with "/" meaning "the scanned directory"; scanhub paths are repository-relative. */
const relative = (path: string | null): string | null => (path === null ? null : path.replace(/^\/+/, ''));

/** `code_block` is `[[lineNumber, "line\n"], ...]`; line numbers are not part of the excerpt. */
function snippetOf(value: unknown): string | null {
  if (!Array.isArray(value)) return null;
  const lines = value
    .slice(0, 50)
    .map((entry) => (Array.isArray(entry) ? nonBlank(entry[1]) : null))
    .filter((line): line is string => line !== null);
  const snippet = lines.join('').replace(/\n$/, '');
  return snippet.trim() === '' ? null : snippet;
}

function toFinding(
  check: JsonRecord,
  checkType: string | null,
  toolVersion: string | null,
): NormalizedFinding {
  const checkId = nonBlank(check['check_id']);
  const checkName = nonBlank(check['check_name']);
  const resource = nonBlank(check['resource']);
  // `repo_file_path` is relative to the repository root, `file_path` only to the scanned directory.
  const filePath = relative(nonBlank(check['repo_file_path']) ?? nonBlank(check['file_path']));
  const range = Array.isArray(check['file_line_range']) ? check['file_line_range'] : [];
  const guideline = nonBlank(check['guideline']);
  const description = nonBlank(check['description']) ?? nonBlank(check['short_description']);
  const result = isRecord(check['check_result']) ? check['check_result'] : {};
  const evaluatedKeys = (Array.isArray(result['evaluated_keys']) ? result['evaluated_keys'] : [])
    .map(nonBlank)
    .filter((key): key is string => key !== null);
  const details = [
    checkName,
    description,
    checkType ? `Framework: ${checkType}` : null,
    resource ? `Resource: ${resource}` : null,
    evaluatedKeys.length > 0 ? `Evaluated keys: ${evaluatedKeys.join(', ')}` : null,
  ].filter(Boolean);
  return {
    ...emptyFinding({
      kind: 'infrastructure',
      title: checkName ?? checkId ?? 'Checkov failed check',
      severity: severityOf(check['severity']),
      toolName: 'Checkov',
    }),
    description: details.length > 0 ? details.join('\n') : null,
    ruleId: checkId,
    filePath,
    line: positiveInt(range[0]),
    endLine: positiveInt(range[1]),
    snippet: snippetOf(check['code_block']),
    references: guideline ? [guideline] : [],
    // Checkov's own baseline identifies a failure by file, check and resource; line numbers move.
    toolFingerprint: checkId !== null && resource !== null ? [checkId, filePath, resource].join('|') : null,
    toolVersion,
  };
}

/** The version sits in `summary`, after the results: read it in a first, cheap pass. */
async function readVersion(input: ParserInput, prefix: string): Promise<string | null> {
  const paths = [`${prefix}.summary.checkov_version`, `${prefix}.checkov_version`];
  for await (const { value } of streamJsonValues(readBytes(input), { paths })) {
    if (nonBlank(value) !== null) return nonBlank(value);
  }
  return null;
}

async function* parse(input: ParserInput): AsyncIterable<NormalizedFinding> {
  const { sniff } = input;
  if (sniff.shape === 'empty') throw new ParseError('Checkov report is empty');
  if (sniff.shape !== 'json-object' && sniff.shape !== 'json-array') {
    throw new ParseError('Checkov report must be a JSON object or an array of them');
  }
  const keys = sniff.topKeys;
  if (
    sniff.shape === 'json-object' &&
    headIsWholeDocument(sniff) &&
    !keys.includes('results') &&
    !keys.includes('checkov_version')
  ) {
    throw new ParseError('Checkov report has no "results"');
  }
  // The array form is one report object per framework, each starting with its check_type.
  if (sniff.shape === 'json-array' && !/^\s*\[\s*(\]|\{\s*"check_type"\s*:)/.test(sniff.head)) {
    throw new ParseError('Checkov multi-framework report must be an array of report objects');
  }
  const prefix = sniff.shape === 'json-array' ? '$.*' : '$';
  const toolVersion = await readVersion(input, prefix);
  const checkTypes = new Map<string | number, string | null>();
  const paths = [`${prefix}.check_type`, `${prefix}.results.failed_checks.*`];
  for await (const { value, path } of streamJsonValues(readBytes(input), { paths })) {
    // In the array form every path starts with the framework's index, which keys its check_type.
    const frame = sniff.shape === 'json-array' ? (path[0] ?? 0) : 0;
    const last = path.at(-1);
    if (last === 'check_type') {
      checkTypes.set(frame, nonBlank(value));
      continue;
    }
    if (typeof last !== 'number') throw new ParseError('Checkov "failed_checks" must be an array');
    if (!isRecord(value)) throw new ParseError('Checkov failed check must be a JSON object');
    yield toFinding(value, checkTypes.get(frame) ?? null, toolVersion);
  }
}

export const checkov: ParserModule = { name: 'checkov', displayName: 'Checkov', detect, parse };
