import { jsLintConcern } from '../../../domain/findings/concern.ts';
import { openJson, requireJsonShape } from './json-input.ts';
import { streamJsonValues } from './json-stream.ts';
import { asArray, childRecord, isRecord, type JsonRecord, nonBlank, positiveInt } from './json-value.ts';
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
 * warningCount, source?, ... }`; `-f json-with-metadata`: `{ results: [the same], metadata: { cwd,
 * rulesMeta } }`, whose `cwd` makes the absolute paths repository-relative and whose rule docs give
 * descriptions and links. One finding per message, so the count is ESLint's own
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
  if (sniff.shape === 'json-array')
    return sniff.itemKeys.includes('filePath') && sniff.itemKeys.includes('messages');
  return (
    sniff.shape === 'json-object' &&
    sniff.topKeys.includes('results') &&
    sniff.topKeys.includes('metadata') &&
    /"filePath"\s*:/.test(sniff.head)
  );
}

interface RuleDocs {
  description: string | null;
  url: string | null;
}

/** What json-with-metadata says about the run: its working directory and each rule's docs. */
interface Metadata {
  cwd: string | null;
  rules: Map<string, RuleDocs>;
}

/** First pass over json-with-metadata: `metadata` follows the (large) results, so it is read alone. */
async function readMetadata(input: ParserInput): Promise<Metadata> {
  const metadata: Metadata = { cwd: null, rules: new Map() };
  const paths = ['$.metadata.cwd', '$.metadata.rulesMeta.*'];
  for await (const { value, path } of streamJsonValues(openJson(input), { paths })) {
    if (path[1] === 'cwd') metadata.cwd = reportPath(value)?.replace(/\/+$/, '') ?? null;
    else if (typeof path[2] === 'string') {
      const docs = childRecord(value, 'docs');
      metadata.rules.set(path[2], { description: nonBlank(docs['description']), url: nonBlank(docs['url']) });
    }
  }
  return metadata;
}

/** Core rules have no namespace (`no-eval`); plugin rules (`react/jsx-key`) document themselves. */
function ruleUrl(ruleId: string | null, docs: RuleDocs | undefined): string[] {
  if (docs?.url) return [docs.url];
  return ruleId !== null && /^[a-z-]+$/.test(ruleId)
    ? [`https://eslint.org/docs/latest/rules/${ruleId}`]
    : [];
}

/** A path under the run's working directory, made relative to it. */
function relativeTo(cwd: string | null, path: string | null): string | null {
  return cwd !== null && path !== null && path.startsWith(`${cwd}/`) ? path.slice(cwd.length + 1) : path;
}

function sourceLine(lines: string[] | null, line: number | null): string | null {
  if (lines === null || line === null) return null;
  const text = lines[line - 1]?.trim();
  return text === undefined || text === '' ? null : text.slice(0, MAX_SNIPPET);
}

function toFinding(
  message: JsonRecord,
  filePath: string | null,
  lines: string[] | null,
  metadata: Metadata,
): NormalizedFinding {
  const ruleId = nonBlank(message['ruleId']);
  const docs = ruleId === null ? undefined : metadata.rules.get(ruleId);
  const text = nonBlank(message['message']) ?? ruleId ?? 'ESLint message';
  const severity = typeof message['severity'] === 'number' ? SEVERITY[message['severity']] : undefined;
  const line = positiveInt(message['line']);
  return {
    ...emptyFinding({
      kind: 'code',
      concern: jsLintConcern(ruleId),
      title: text,
      severity: severity ?? 'medium',
      toolName: TOOL,
    }),
    description:
      message['fatal'] === true ? `${text} (ESLint could not parse this file)` : (docs?.description ?? null),
    ruleId,
    filePath,
    line,
    column: positiveInt(message['column']),
    endLine: positiveInt(message['endLine']),
    snippet: sourceLine(lines, line),
    references: ruleUrl(ruleId, docs),
  };
}

async function* parse(input: ParserInput): AsyncIterable<NormalizedFinding> {
  requireJsonShape(input, ['json-array', 'json-object'], TOOL);
  const { sniff } = input;
  const withMetadata = sniff.shape === 'json-object';
  if (withMetadata && sniff.topKeysComplete && !sniff.topKeys.includes('results')) {
    throw new ParseError('ESLint: the report has no "results" list');
  }
  const metadata: Metadata = withMetadata ? await readMetadata(input) : { cwd: null, rules: new Map() };
  const paths = withMetadata ? ['$.results.*'] : ['$.*'];
  for await (const { value } of streamJsonValues(openJson(input), { paths })) {
    if (!isRecord(value) || !Array.isArray(value['messages'])) {
      throw new ParseError('ESLint: each result must be an object with a "messages" list');
    }
    const filePath = relativeTo(metadata.cwd, reportPath(value['filePath']));
    const source = nonBlank(value['source']);
    const lines = source === null ? null : source.split(/\r?\n/);
    for (const message of asArray(value['messages'])) {
      if (!isRecord(message)) throw new ParseError('ESLint: each message must be an object');
      yield toFinding(message, filePath, lines, metadata);
    }
  }
}

export const eslint: ParserModule = { name: 'eslint', displayName: 'ESLint', detect, parse };
