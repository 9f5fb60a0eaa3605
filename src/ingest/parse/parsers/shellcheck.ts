import { shellcheckConcern } from '../../../domain/findings/concern.ts';
import { openJson, requireJsonShape } from './json-input.ts';
import { streamJsonValues } from './json-stream.ts';
import { isRecord, type JsonRecord, nonBlank, positiveInt } from './json-value.ts';
import { reportPath } from './report-path.ts';
import { severityIn } from './severity.ts';
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
 * ShellCheck `-f json1`: `{ "comments": [...] }`, and the older `-f json`: the bare array. Each
 * comment is `{ file, line, endLine, column, endColumn, level, code, message, fix }` with a numeric
 * `code` (2086 for SC2086). One finding per comment: ShellCheck's own count.
 *
 * Severity on the linter scale shared with ESLint and Pylint: error → medium, warning → low, info
 * and style → info. (Hadolint, which embeds ShellCheck, writes `"code": "SC2086"` as a string and
 * has no `endLine`; that is how the two are told apart.)
 */

const TOOL = 'ShellCheck';
const SEVERITY: Record<string, Severity> = { error: 'medium', warning: 'low', info: 'info', style: 'info' };
const NUMERIC_CODE = /"code"\s*:\s*\d/;

function detect(sniff: Sniff): boolean {
  if (sniff.shape === 'json-array') {
    const keys = sniff.itemKeys;
    return (
      ['level', 'code', 'endLine', 'endColumn'].every((key) => keys.includes(key)) &&
      NUMERIC_CODE.test(sniff.head)
    );
  }
  if (sniff.shape !== 'json-object' || sniff.topKeys.length !== 1 || sniff.topKeys[0] !== 'comments')
    return false;
  // A clean run is literally {"comments":[]}.
  return NUMERIC_CODE.test(sniff.head) || /^\s*\{\s*"comments"\s*:\s*\[\s*\]\s*\}\s*$/.test(sniff.head);
}

function toFinding(comment: JsonRecord): NormalizedFinding {
  const code = positiveInt(comment['code']);
  const ruleId = code === null ? null : `SC${code}`;
  const message = nonBlank(comment['message']) ?? ruleId ?? 'ShellCheck comment';
  return {
    ...emptyFinding({
      kind: 'code',
      concern: shellcheckConcern(),
      title: message,
      severity: severityIn(SEVERITY, nonBlank(comment['level'])) ?? 'info',
      toolName: TOOL,
    }),
    ruleId,
    filePath: reportPath(comment['file']),
    line: positiveInt(comment['line']),
    column: positiveInt(comment['column']),
    endLine: positiveInt(comment['endLine']),
    references: ruleId === null ? [] : [`https://www.shellcheck.net/wiki/${ruleId}`],
  };
}

async function* parse(input: ParserInput): AsyncIterable<NormalizedFinding> {
  requireJsonShape(input, ['json-array', 'json-object'], TOOL);
  const { sniff } = input;
  if (sniff.shape === 'json-object' && sniff.topKeysComplete && !sniff.topKeys.includes('comments')) {
    throw new ParseError('ShellCheck: the json1 report has no "comments" list');
  }
  const paths = input.sniff.shape === 'json-array' ? ['$.*'] : ['$.comments.*'];
  for await (const { value } of streamJsonValues(openJson(input), { paths })) {
    if (!isRecord(value)) throw new ParseError('ShellCheck: each comment must be an object');
    yield toFinding(value);
  }
}

export const shellcheck: ParserModule = { name: 'shellcheck', displayName: 'ShellCheck', detect, parse };
