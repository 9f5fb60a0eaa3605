/**
 * What of an error may be written to a log. Database errors carry the statement and its bound
 * parameters (PGlite: `query`, `params`; pg: `detail` with row values, `where`, `internalQuery`), and
 * those held plaintext passwords, sealed tokens and password hashes in the log (issue 10 item 13).
 * So this is a whitelist: a name, a stable code, a message, a stack and the schema object names,
 * never any other property; and for database errors the quoted values in the message (PostgreSQL
 * quotes the offending input, e.g. `invalid input syntax for type integer: "…"`) are blanked.
 */
export type LoggableError = {
  type: string;
  message: string;
  stack: string;
  code?: string;
  statusCode?: number;
  /** PostgreSQL's names of what was involved; names, never values. */
  table?: string;
  column?: string;
  constraint?: string;
  cause?: LoggableError;
};

const SQLSTATE = /^[0-9A-Z]{5}$/;
const MAX_MESSAGE = 500;

const stringField = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

function isDatabaseError(error: Record<string, unknown>): boolean {
  const code = stringField(error.code);
  return (
    'query' in error ||
    'params' in error ||
    'severity' in error ||
    'internalQuery' in error ||
    (code !== undefined && SQLSTATE.test(code) && error.name !== 'FastifyError')
  );
}

const blankQuoted = (message: string): string => message.replace(/"[^"]*"/g, '"…"');

/**
 * A thrown non-Error, or an already loggable object (the logger's serializer sees what a call site
 * made loggable): only the whitelisted fields are copied, so this stays idempotent and safe.
 */
function nonError(value: unknown): LoggableError {
  if (typeof value === 'string') return { type: 'string', message: value.slice(0, MAX_MESSAGE), stack: '' };
  if (value === null || typeof value !== 'object') return { type: typeof value, message: '', stack: '' };
  const fields = value as Record<string, unknown>;
  const result: LoggableError = {
    type: stringField(fields.type) ?? 'object',
    message: (stringField(fields.message) ?? '').slice(0, MAX_MESSAGE),
    stack: stringField(fields.stack) ?? '',
  };
  for (const name of ['code', 'table', 'column', 'constraint'] as const) {
    const field = stringField(fields[name]);
    if (field) result[name] = field;
  }
  if (typeof fields.statusCode === 'number') result.statusCode = fields.statusCode;
  return result;
}

export function loggableError(value: unknown, depth = 0): LoggableError {
  if (!(value instanceof Error)) return nonError(value);
  const fields = value as unknown as Record<string, unknown>;
  const database = isDatabaseError(fields);
  const message = (database ? blankQuoted(value.message) : value.message).slice(0, MAX_MESSAGE);
  // The stack's first line repeats the message: keep only the frames.
  const frames = value.stack?.split('\n').filter((line) => /^\s+at /.test(line));
  const result: LoggableError = { type: value.name, message, stack: frames?.join('\n') ?? '' };
  const code = stringField(fields.code);
  if (code) result.code = code;
  if (typeof fields.statusCode === 'number') result.statusCode = fields.statusCode;
  for (const name of ['table', 'column', 'constraint'] as const) {
    const field = stringField(fields[name]);
    if (database && field) result[name] = field;
  }
  if (value.cause !== undefined && depth < 3) result.cause = loggableError(value.cause, depth + 1);
  return result;
}
