import { isRecord, type JsonRecord, nonBlank, nonNegativeInt } from './json-value.ts';
import { openJson } from './json-input.ts';
import { JsonShapeScanner } from './json-shape.ts';
import { streamJsonValues } from './json-stream.ts';
import { severityIn } from './severity.ts';
import { emptyFinding, ParseError } from './types.ts';
import type { NormalizedFinding, ParserInput, ParserModule, Severity, Sniff } from './types.ts';

/** Bandit (Python SAST) `bandit -f json` output: `{ errors, generated_at, metrics, results: [...] }`. */

const SEVERITY: Record<string, Severity> = { HIGH: 'high', MEDIUM: 'medium', LOW: 'low' };

function detect(sniff: Sniff): boolean {
  // Bandit's metrics block uses its own "SEVERITY.HIGH"/"CONFIDENCE.HIGH" counters; semgrep,
  // checkov and osv-scanner also have a top-level `results`, but never `metrics` with those counters.
  return (
    sniff.shape === 'json-object' &&
    sniff.topKeys.includes('metrics') &&
    /"(SEVERITY|CONFIDENCE)\.(HIGH|UNDEFINED)"\s*:/.test(sniff.head)
  );
}

/**
 * `code` is a numbered excerpt ("52 import x\n53 y()\n"). The numbers are stripped (line numbers
 * are not identity) and only the flagged lines are kept, so the snippet survives code moving.
 */
function flaggedCode(code: string | null, lines: number[]): string | null {
  if (code === null) return null;
  const picked: string[] = [];
  for (const raw of code.split('\n')) {
    const match = /^(\d+) ?(.*)$/.exec(raw);
    if (match && lines.includes(Number(match[1]))) picked.push(match[2] ?? '');
  }
  const snippet = picked.join('\n').trim();
  return snippet === '' ? null : snippet;
}

function toFinding(result: JsonRecord): NormalizedFinding {
  const testId = nonBlank(result['test_id']);
  const testName = nonBlank(result['test_name']);
  const issueText = nonBlank(result['issue_text']);
  const line = nonNegativeInt(result['line_number']);
  const range = Array.isArray(result['line_range'])
    ? result['line_range'].filter((n): n is number => nonNegativeInt(n) !== null)
    : [];
  const lines = range.length > 0 ? range : line === null ? [] : [line];
  const confidence = nonBlank(result['issue_confidence']);
  const moreInfo = nonBlank(result['more_info']);
  // Bandit ≥ 1.7.5 adds `issue_cwe: { id, link }`.
  const cwe = isRecord(result['issue_cwe']) ? result['issue_cwe'] : {};
  const cweId = nonNegativeInt(cwe['id']);
  const cweLink = nonBlank(cwe['link']);
  const column = nonNegativeInt(result['col_offset']);
  return {
    ...emptyFinding({
      kind: 'code',
      title: issueText ?? testName ?? testId ?? 'Bandit finding',
      severity: severityIn(SEVERITY, nonBlank(result['issue_severity'])) ?? 'info',
      toolName: 'Bandit',
    }),
    description:
      [
        issueText,
        testName || testId ? `Test: ${[testName, testId].filter(Boolean).join(' ')}` : null,
        confidence ? `Confidence: ${confidence}` : null,
      ]
        .filter(Boolean)
        .join('\n') || null,
    ruleId: testId,
    // Reports made on Windows use backslashes; one separator keeps fingerprints OS-independent.
    filePath: nonBlank(result['filename'])?.replaceAll('\\', '/') ?? null,
    line,
    column: column === null ? null : column + 1,
    endLine: lines.length > 1 ? Math.max(...lines) : line,
    snippet: flaggedCode(nonBlank(result['code']), lines),
    cweIds: cweId !== null && cweId > 0 ? [cweId] : [],
    references: [moreInfo, cweLink].filter((ref): ref is string => ref !== null),
  };
}

async function* parse(input: ParserInput): AsyncIterable<NormalizedFinding> {
  if (input.sniff.shape !== 'json-object') throw new ParseError('Bandit report must be a JSON object');
  const scanner = new JsonShapeScanner({ members: ['results'] });
  for await (const { value } of streamJsonValues(openJson(input, scanner), { paths: ['$.results.*'] })) {
    if (!isRecord(value)) throw new ParseError('Bandit result must be a JSON object');
    yield toFinding(value);
  }
  // Streamed selectors cannot tell a missing list from an empty one; the guard saw the members.
  if (scanner.topLevel.get('results')?.start !== '[')
    throw new ParseError('Bandit report has no "results" list');
}

export const bandit: ParserModule = { name: 'bandit', displayName: 'Bandit', detect, parse };
