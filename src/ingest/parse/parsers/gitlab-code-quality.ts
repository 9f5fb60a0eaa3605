import { codeClimateConcern } from '../../../domain/findings/concern.ts';
import { openJson, requireJsonShape } from './json-input.ts';
import { streamJsonValues } from './json-stream.ts';
import {
  asStringArray,
  childRecord,
  isRecord,
  type JsonRecord,
  nonBlank,
  positiveInt,
} from './json-value.ts';
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
 * GitLab Code Quality report (the Code Climate issue subset GitLab reads): an array of
 * `{ description, check_name, fingerprint, severity, location: { path, lines: { begin, end? } |
 * positions: { begin: { line, column }, end } }, categories?, content?: { body }, engine_name? }`.
 * Written by many tools (eslint-formatter-gitlab, pylint-gitlab, codeclimate engines); one finding
 * per issue, the report's own count.
 *
 * `fingerprint` is not used as identity: eslint-formatter-gitlab hashes path + rule + message and
 * tells identical messages in one file apart by re-hashing in report order, so fixing the first of
 * two twins would "change" the second. Without it the finding is rule + path + message, and twins are
 * matched by nearest line like every other code finding.
 *
 * Severity words are Code Climate's: blocker → critical, critical → high, major → medium,
 * minor → low, info → info.
 */

const TOOL = 'GitLab Code Quality';
const SEVERITY: Record<string, Severity> = {
  blocker: 'critical',
  critical: 'high',
  major: 'medium',
  minor: 'low',
  info: 'info',
};

function detect(sniff: Sniff): boolean {
  const keys = sniff.itemKeys;
  return (
    sniff.shape === 'json-array' &&
    keys.includes('fingerprint') &&
    keys.includes('location') &&
    (keys.includes('check_name') || keys.includes('description'))
  );
}

/** `lines.begin` (line-based issues) or `positions.begin.line` (position-based issues). */
function lineAndColumn(location: JsonRecord): {
  line: number | null;
  column: number | null;
  endLine: number | null;
} {
  const lines = childRecord(location, 'lines');
  const positions = childRecord(location, 'positions');
  const begin = childRecord(positions, 'begin');
  return {
    line: positiveInt(lines['begin']) ?? positiveInt(begin['line']),
    column: positiveInt(begin['column']),
    endLine: positiveInt(lines['end']) ?? positiveInt(childRecord(positions, 'end')['line']),
  };
}

function toFinding(issue: JsonRecord): NormalizedFinding {
  const checkName = nonBlank(issue['check_name']);
  const description = nonBlank(issue['description']) ?? checkName ?? 'Code quality issue';
  const location = childRecord(issue, 'location');
  const categories = asStringArray(issue['categories']);
  const body = nonBlank(childRecord(issue, 'content')['body']);
  return {
    ...emptyFinding({
      kind: 'code',
      concern: codeClimateConcern(categories, checkName),
      title: description,
      severity: severityIn(SEVERITY, nonBlank(issue['severity'])) ?? 'info',
      toolName: nonBlank(issue['engine_name']) ?? TOOL,
    }),
    description:
      [body, categories.length > 0 ? `Categories: ${categories.join(', ')}` : null]
        .filter(Boolean)
        .join('\n\n') || null,
    ruleId: checkName,
    filePath: reportPath(location['path']),
    ...lineAndColumn(location),
  };
}

async function* parse(input: ParserInput): AsyncIterable<NormalizedFinding> {
  requireJsonShape(input, ['json-array'], TOOL);
  for await (const { value } of streamJsonValues(openJson(input), { paths: ['$.*'] })) {
    if (!isRecord(value)) throw new ParseError(`${TOOL}: each issue must be an object`);
    yield toFinding(value);
  }
}

export const gitlabCodeQuality: ParserModule = {
  name: 'gitlab_code_quality',
  displayName: 'GitLab Code Quality',
  detect,
  parse,
};
