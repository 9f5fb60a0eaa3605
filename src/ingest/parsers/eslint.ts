import { openJson, requireJsonShape } from './json-input.ts';
import { streamJsonValues } from './json-stream.ts';
import { asArray, isRecord, type JsonRecord, nonBlank, positiveInt } from './json-value.ts';
import { reportPath } from './report-path.ts';
import {
  emptyFinding,
  type NormalizedFinding,
  ParseError,
  type ParserInput,
  type ParserModule,
  type Severity,
  type Sniff,
} from './types.ts';

/**
 * ESLint `-f json`: an array with one result per linted file, `{ filePath, messages[], errorCount,
 * warningCount, source?, ... }`. One finding per message, so the count is ESLint's own
 * `errorCount + warningCount`; `suppressedMessages` (eslint-disable comments) are not findings.
 *
 * Severity: ESLint has two levels, and a lint error is a code-quality breach rather than a proven
 * vulnerability, so 2 (error, also fatal parse errors) → medium and 1 (warning) → low.
 */

const TOOL = 'ESLint';
const SEVERITY: Record<number, Severity> = { 2: 'medium', 1: 'low' };
/** Longest source line kept as the snippet; minified bundles have megabyte-long lines. */
const MAX_SNIPPET = 500;

function detect(sniff: Sniff): boolean {
  const keys = sniff.itemKeys;
  return sniff.shape === 'json-array' && keys.includes('filePath') && keys.includes('messages');
}

/** Core rules have no namespace (`no-eval`); plugin rules (`react/jsx-key`) document themselves. */
function ruleUrl(ruleId: string | null): string[] {
  return ruleId !== null && /^[a-z-]+$/.test(ruleId)
    ? [`https://eslint.org/docs/latest/rules/${ruleId}`]
    : [];
}

function sourceLine(lines: string[] | null, line: number | null): string | null {
  if (lines === null || line === null) return null;
  const text = lines[line - 1]?.trim();
  return text === undefined || text === '' ? null : text.slice(0, MAX_SNIPPET);
}

function toFinding(message: JsonRecord, filePath: string | null, lines: string[] | null): NormalizedFinding {
  const ruleId = nonBlank(message['ruleId']);
  const text = nonBlank(message['message']) ?? ruleId ?? 'ESLint message';
  const severity = typeof message['severity'] === 'number' ? SEVERITY[message['severity']] : undefined;
  const line = positiveInt(message['line']);
  return {
    ...emptyFinding({ kind: 'code', title: text, severity: severity ?? 'medium', toolName: TOOL }),
    description: message['fatal'] === true ? `${text} (ESLint could not parse this file)` : null,
    ruleId,
    filePath,
    line,
    column: positiveInt(message['column']),
    endLine: positiveInt(message['endLine']),
    snippet: sourceLine(lines, line),
    references: ruleUrl(ruleId),
  };
}

async function* parse(input: ParserInput): AsyncIterable<NormalizedFinding> {
  requireJsonShape(input, ['json-array'], TOOL);
  for await (const { value } of streamJsonValues(openJson(input), { paths: ['$.*'] })) {
    if (!isRecord(value) || !Array.isArray(value['messages'])) {
      throw new ParseError('ESLint: each result must be an object with a "messages" list');
    }
    const filePath = reportPath(value['filePath']);
    const source = nonBlank(value['source']);
    const lines = source === null ? null : source.split(/\r?\n/);
    for (const message of asArray(value['messages'])) {
      if (!isRecord(message)) throw new ParseError('ESLint: each message must be an object');
      yield toFinding(message, filePath, lines);
    }
  }
}

export const eslint: ParserModule = { name: 'eslint', displayName: 'ESLint', detect, parse };
