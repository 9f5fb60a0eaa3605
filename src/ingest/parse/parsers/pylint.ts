import { pylintConcern } from '../../../domain/findings/concern.ts';
import { openJson, requireJsonShape } from './json-input.ts';
import { streamJsonValues } from './json-stream.ts';
import { isRecord, type JsonRecord, nonBlank, nonNegativeInt, positiveInt } from './json-value.ts';
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
 * Pylint `--output-format=json`: an array of messages `{ type, module, obj, line, column, endLine,
 * endColumn, path, symbol, message, message-id }`; and `json2` (pylint ≥ 3.0): `{ messages: [...],
 * statistics: {...} }` with `messageId` and `absolutePath`. One finding per message, so the count is
 * pylint's own message count.
 *
 * Severity on the linter scale shared with ESLint and ShellCheck: fatal and error (pylint could not
 * analyse, or the code will fail at run time) → medium, warning → low, refactor, convention and
 * info → info.
 */

const TOOL = 'Pylint';
const SEVERITY: Record<string, Severity> = {
  fatal: 'medium',
  error: 'medium',
  warning: 'low',
  refactor: 'info',
  convention: 'info',
  info: 'info',
};

/** The json (legacy) item: `message-id` with a dash is pylint's own spelling. */
const isJsonItem = (keys: string[]): boolean =>
  keys.includes('message-id') && keys.includes('symbol') && keys.includes('module');

function detect(sniff: Sniff): boolean {
  if (sniff.shape === 'json-array') return isJsonItem(sniff.itemKeys);
  if (sniff.shape !== 'json-object') return false;
  const keys = sniff.topKeys;
  return (
    keys.includes('messages') &&
    keys.includes('statistics') &&
    /"messageTypeCount"\s*:|"messageId"\s*:\s*"[CRWEFI]\d{4}"/.test(sniff.head)
  );
}

/** A json2 document must carry its `messages`; a complete head without them is some other file. */
function requireListKey(sniff: Sniff, key: string): void {
  if (sniff.shape === 'json-object' && sniff.topKeysComplete && !sniff.topKeys.includes(key)) {
    throw new ParseError(`${TOOL}: the report has no "${key}" list`);
  }
}

function toFinding(message: JsonRecord): NormalizedFinding {
  const type = nonBlank(message['type']);
  const symbol = nonBlank(message['symbol']);
  const messageId = nonBlank(message['message-id']) ?? nonBlank(message['messageId']);
  const text = nonBlank(message['message']) ?? symbol ?? 'Pylint message';
  const where = [nonBlank(message['module']), nonBlank(message['obj'])].filter(Boolean).join('.');
  const column = nonNegativeInt(message['column']);
  return {
    ...emptyFinding({
      kind: 'code',
      concern: pylintConcern(symbol, messageId),
      title: text,
      severity: severityIn(SEVERITY, type) ?? 'info',
      toolName: TOOL,
    }),
    description:
      [messageId && symbol ? `${messageId} (${symbol})` : null, where ? `in ${where}` : null]
        .filter(Boolean)
        .join(' ') || null,
    ruleId: symbol ?? messageId,
    filePath: reportPath(message['path']),
    line: positiveInt(message['line']),
    // pylint counts columns from 0, every other tool here from 1.
    column: column === null ? null : column + 1,
    endLine: positiveInt(message['endLine']),
    references:
      type !== null && symbol !== null
        ? [`https://pylint.readthedocs.io/en/latest/user_guide/messages/${type}/${symbol}.html`]
        : [],
  };
}

async function* parse(input: ParserInput): AsyncIterable<NormalizedFinding> {
  requireJsonShape(input, ['json-array', 'json-object'], TOOL);
  requireListKey(input.sniff, 'messages');
  const paths = input.sniff.shape === 'json-array' ? ['$.*'] : ['$.messages.*'];
  for await (const { value } of streamJsonValues(openJson(input), { paths })) {
    if (!isRecord(value)) throw new ParseError('Pylint: each message must be an object');
    yield toFinding(value);
  }
}

export const pylint: ParserModule = { name: 'pylint', displayName: 'Pylint', detect, parse };
