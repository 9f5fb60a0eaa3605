import { hadolintConcern } from '../../../domain/findings/concern.ts';
import { isRecord, type JsonRecord, nonBlank, nonNegativeInt } from './json-value.ts';
import { openJson } from './json-input.ts';
import { streamJsonValues } from './json-stream.ts';
import { severityIn } from './severity.ts';
import { emptyFinding, ParseError } from './types.ts';
import type { NormalizedFinding, ParserInput, ParserModule, Severity, Sniff } from './types.ts';

/** Hadolint (Dockerfile linter) `--format json`: a flat array of `{ file, line, column, code, message, level }`. */

/**
 * Hadolint's own four levels, one step each. DefectDojo maps error → Critical and warning → High,
 * which ranks an unpinned apt package above most CVEs; a linter's top level is `high` here.
 */
const SEVERITY: Record<string, Severity> = { error: 'high', warning: 'medium', info: 'low', style: 'info' };

function detect(sniff: Sniff): boolean {
  // Rule codes are DLxxxx (hadolint) or SCxxxx (embedded ShellCheck); `level` is hadolint's field name.
  return (
    sniff.shape === 'json-array' &&
    /"code"\s*:\s*"(DL|SC)\d{4}"/.test(sniff.head) &&
    /"level"\s*:\s*"(error|warning|info|style)"/.test(sniff.head)
  );
}

function ruleUrl(code: string | null): string | null {
  if (code === null) return null;
  if (/^DL\d+$/.test(code)) return `https://github.com/hadolint/hadolint/wiki/${code}`;
  if (/^SC\d+$/.test(code)) return `https://www.shellcheck.net/wiki/${code}`;
  return null;
}

function toFinding(item: JsonRecord): NormalizedFinding {
  const code = nonBlank(item['code']);
  const message = nonBlank(item['message']);
  const url = ruleUrl(code);
  return {
    ...emptyFinding({
      kind: 'infrastructure',
      concern: hadolintConcern(code),
      title: message ?? code ?? 'Hadolint finding',
      severity: severityIn(SEVERITY, nonBlank(item['level'])) ?? 'info',
      toolName: 'Hadolint',
    }),
    description: code && message ? `${code}: ${message}` : message,
    ruleId: code,
    // Reports made on Windows use backslashes; one separator keeps fingerprints OS-independent.
    filePath: nonBlank(item['file'])?.replaceAll('\\', '/') ?? null,
    line: nonNegativeInt(item['line']),
    column: nonNegativeInt(item['column']),
    references: url ? [url] : [],
  };
}

async function* parse(input: ParserInput): AsyncIterable<NormalizedFinding> {
  if (input.sniff.shape !== 'json-array') throw new ParseError('Hadolint report must be a JSON array');
  // Hadolint repeats a finding when a Dockerfile is linted twice in one run; keep the first copy.
  const seen = new Set<string>();
  for await (const { value } of streamJsonValues(openJson(input), { paths: ['$.*'] })) {
    if (!isRecord(value)) throw new ParseError('Hadolint item must be a JSON object');
    const finding = toFinding(value);
    const key = JSON.stringify([finding.filePath, finding.line, finding.column, finding.ruleId]);
    if (seen.has(key)) continue;
    seen.add(key);
    yield finding;
  }
}

export const hadolint: ParserModule = { name: 'hadolint', displayName: 'Hadolint', detect, parse };
