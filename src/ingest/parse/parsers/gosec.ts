import { isRecord, type JsonRecord, nonBlank } from './json-value.ts';
import { openJson } from './json-input.ts';
import { JsonShapeScanner } from './json-shape.ts';
import { streamJsonValues } from './json-stream.ts';
import { severityIn } from './severity.ts';
import { emptyFinding, ParseError } from './types.ts';
import type { NormalizedFinding, ParserInput, ParserModule, Severity, Sniff } from './types.ts';
import { DISMISSED_BY_TOOL } from '../../../domain/findings/lifecycle.ts';

/** gosec (Go SAST) `-fmt json` output: `{ "Golang errors"?, Issues: [...], Stats, GosecVersion? }`. */

const SEVERITY: Record<string, Severity> = { HIGH: 'high', MEDIUM: 'medium', LOW: 'low' };

function detect(sniff: Sniff): boolean {
  // `Issues` (capitalised, Go struct field) is unique to gosec among the supported formats.
  return (
    sniff.shape === 'json-object' &&
    sniff.topKeys.includes('Issues') &&
    (sniff.topKeys.includes('Stats') ||
      sniff.topKeys.includes('Golang errors') ||
      /"rule_id"\s*:/.test(sniff.head))
  );
}

/** gosec numbers are strings: line "79" or a range "36-39"; column "14". */
function lineRange(value: unknown): [number | null, number | null] {
  const raw = typeof value === 'number' ? String(value) : nonBlank(value);
  const match = raw === null ? null : /^\s*(\d+)(?:\s*-\s*(\d+))?\s*$/.exec(raw);
  if (!match) return [null, null];
  const start = Number(match[1]);
  return [start, match[2] === undefined ? start : Number(match[2])];
}

/**
 * Newer gosec gives numbered context lines ("12: ...\n13: ..."). Only the flagged lines are kept and
 * their numbers dropped, because line numbers are not identity; older output is the bare line.
 */
function codeSnippet(code: string | null, line: number | null, endLine: number | null): string | null {
  if (code === null) return null;
  const lines = code.split('\n').filter((l) => l.trim() !== '');
  const numbered = lines.map((l) => /^(\d+): ?(.*)$/.exec(l));
  const picked = numbered.every((m) => m !== null)
    ? numbered
        .filter((m) => line === null || (Number(m[1]) >= line && Number(m[1]) <= (endLine ?? line)))
        .map((m) => m[2] ?? '')
    : lines;
  const snippet = picked.join('\n').trim();
  return snippet === '' ? null : snippet;
}

function toFinding(issue: JsonRecord, toolVersion: string | null): NormalizedFinding {
  const ruleId = nonBlank(issue['rule_id']);
  const details = nonBlank(issue['details']);
  const [line, endLine] = lineRange(issue['line']);
  const [column] = lineRange(issue['column']);
  const cwe = isRecord(issue['cwe']) ? issue['cwe'] : {};
  const cweId = Number(cwe['id']);
  const cweUrl = nonBlank(cwe['url']);
  const confidence = nonBlank(issue['confidence']);
  // Suppressed issues only appear with -track-suppressions; they are the tool's own "not a problem".
  const suppressed =
    issue['nosec'] === true || (Array.isArray(issue['suppressions']) && issue['suppressions'].length > 0);
  return {
    ...emptyFinding({
      kind: 'code',
      title: details ?? ruleId ?? 'gosec finding',
      severity: severityIn(SEVERITY, nonBlank(issue['severity'])) ?? 'info',
      toolName: 'gosec',
    }),
    description:
      [details, ruleId ? `Rule: ${ruleId}` : null, confidence ? `Confidence: ${confidence}` : null]
        .filter(Boolean)
        .join('\n') || null,
    remediation: nonBlank(issue['autofix']),
    ruleId,
    filePath: nonBlank(issue['file']),
    line,
    column,
    endLine,
    snippet: codeSnippet(nonBlank(issue['code']), line, endLine),
    cweIds: Number.isInteger(cweId) && cweId > 0 ? [cweId] : [],
    references: cweUrl ? [cweUrl] : [],
    initialStatus: suppressed ? DISMISSED_BY_TOOL : null,
    toolVersion,
  };
}

async function* parse(input: ParserInput): AsyncIterable<NormalizedFinding> {
  const { sniff } = input;
  if (sniff.shape !== 'json-object') throw new ParseError('gosec report must be a JSON object');
  const scanner = new JsonShapeScanner({ members: ['Issues'] });
  // GosecVersion comes after the issues; it is only known up front when the head holds it.
  const version = /"GosecVersion"\s*:\s*"([^"]+)"/.exec(sniff.head)?.[1] ?? null;
  for await (const { value } of streamJsonValues(openJson(input, scanner), { paths: ['$.Issues.*'] })) {
    if (!isRecord(value)) throw new ParseError('gosec issue must be a JSON object');
    yield toFinding(value, version);
  }
  // Streamed selectors cannot tell a missing list from an empty one; the guard saw the members.
  const issues = scanner.topLevel.get('Issues')?.start;
  if (issues !== '[' && issues !== 'n') throw new ParseError('gosec report has no "Issues" list');
}

export const gosec: ParserModule = { name: 'gosec', displayName: 'gosec', detect, parse };
