import { createHash } from 'node:crypto';
import { headIsWholeDocument, readBytes } from './json-input.ts';
import { isRecord, type JsonRecord, nonBlank, positiveIntOrDigits } from './json-value.ts';
import { streamJsonValues } from './json-stream.ts';
import { severityIn, STANDARD_SEVERITIES } from './severity.ts';
import { emptyFinding, ParseError } from './types.ts';
import type { NormalizedFinding, ParserInput, ParserModule, Severity, Sniff } from './types.ts';

/**
 * KICS (Checkmarx infrastructure-as-code scanner) `--report-formats json`:
 * `{ kics_version?, files_scanned, ..., queries: [{ query_name, query_id, query_url, severity, platform,
 * category, description, cwe?, files: [{ file_name, similarity_id, line, issue_type, search_key,
 * expected_value, actual_value, remediation? }] }], severity_counters, total_counter }`.
 * Each entry of a query's `files` is one finding.
 */

const SEVERITY: Record<string, Severity> = { ...STANDARD_SEVERITIES, trace: 'info' };

function detect(sniff: Sniff): boolean {
  const keys = sniff.topKeys;
  return (
    sniff.shape === 'json-object' &&
    keys.includes('queries') &&
    (keys.includes('kics_version') || keys.includes('queries_total') || keys.includes('severity_counters'))
  );
}

/**
 * KICS's similarity_id covers query, file and search key but not which key failed, so a query that
 * flags several keys of one block (RBAC wildcard in apiGroups, resources and verbs) gives them one id.
 * The expected value tells them apart and is as stable as the query text.
 */
function fingerprintOf(similarityId: string | null, expected: string | null): string | null {
  if (similarityId === null) return null;
  if (expected === null) return similarityId;
  return `${similarityId}:${createHash('sha256').update(expected).digest('hex').slice(0, 16)}`;
}

function toFindings(query: JsonRecord, toolVersion: string | null): NormalizedFinding[] {
  const name = nonBlank(query['query_name']) ?? nonBlank(query['query_id']) ?? 'KICS query';
  const category = nonBlank(query['category']);
  const queryDescription = nonBlank(query['description']);
  const url = nonBlank(query['query_url']);
  const cwe = positiveIntOrDigits(query['cwe']);
  const files = Array.isArray(query['files']) ? query['files'] : [];
  return files.map((file) => {
    if (!isRecord(file)) throw new ParseError('KICS query file entry must be a JSON object');
    const expected = nonBlank(file['expected_value']);
    const actual = nonBlank(file['actual_value']);
    const issue = [
      ['Platform', nonBlank(query['platform'])],
      ['Issue type', nonBlank(file['issue_type'])],
      ['Resource', nonBlank(file['resource_name'])],
      ['Search key', nonBlank(file['search_key'])],
      ['Expected', expected],
      ['Actual', actual],
    ]
      .filter((entry): entry is [string, string] => entry[1] !== null)
      .map(([label, value]) => `${label}: ${value}`);
    const description = [queryDescription, issue.join('\n')].filter((part) => part !== null && part !== '');
    return {
      ...emptyFinding({
        kind: 'infrastructure',
        title: category !== null ? `${category}: ${name}` : name,
        severity: severityIn(SEVERITY, nonBlank(query['severity'])) ?? 'info',
        toolName: 'KICS',
      }),
      description: description.length > 0 ? description.join('\n\n') : null,
      // KICS 1.6+ states a fix; older reports only say what the value should be.
      remediation: nonBlank(file['remediation']) ?? expected,
      ruleId: nonBlank(query['query_id']),
      filePath: nonBlank(file['file_name'])?.replace(/^\.\//, '') ?? null,
      line: positiveIntOrDigits(file['line']),
      cweIds: cwe !== null ? [cwe] : [],
      references: url !== null ? [url] : [],
      toolFingerprint: fingerprintOf(nonBlank(file['similarity_id']), expected),
      toolVersion,
    };
  });
}

async function* parse(input: ParserInput): AsyncIterable<NormalizedFinding> {
  const { sniff } = input;
  if (sniff.shape === 'empty') throw new ParseError('KICS report is empty');
  if (sniff.shape !== 'json-object') throw new ParseError('KICS report must be a JSON object');
  if (headIsWholeDocument(sniff) && !sniff.topKeys.includes('queries')) {
    throw new ParseError('KICS report has no "queries"');
  }
  let toolVersion: string | null = null;
  for await (const { value, path } of streamJsonValues(readBytes(input), {
    paths: ['$.kics_version', '$.queries.*'],
  })) {
    if (path[0] === 'kics_version') {
      // Written first, before the queries.
      toolVersion = nonBlank(value);
      continue;
    }
    if (typeof path[1] !== 'number') throw new ParseError('KICS "queries" must be an array');
    if (!isRecord(value)) throw new ParseError('KICS query must be a JSON object');
    yield* toFindings(value, toolVersion);
  }
}

export const kics: ParserModule = { name: 'kics', displayName: 'KICS', detect, parse };
