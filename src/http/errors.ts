import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type ValidationIssue } from '../errors.ts';
import { spelledAsSent } from './camel-case-twins.ts';
import { loggableError } from '../lib/loggable-error.ts';

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/**
 * Bounds on what an error body repeats. Details and messages often quote the input (a parser's
 * message, an unknown field's name, a JSON syntax error); a 1 MB stack of unclosed XML tags once came
 * back as a 3.5 MB error. The detail keeps its fixed text plus a short quote; every other string at
 * most ~200 characters; at most 50 validation issues.
 */
const MAX_DETAIL = 500;
const MAX_TEXT = 200;
const MAX_ISSUES = 50;
const TRUNCATED = '… (truncated)';

export function truncateText(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, max);
  // Never leave half of a surrogate pair.
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut}${TRUNCATED}`;
}

/** Every string inside bounded; arrays and objects kept (validation issues capped separately). */
function bounded(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return truncateText(value, MAX_TEXT);
  if (depth > 4 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => bounded(item, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, bounded(item, depth + 1)]));
}

function boundedExtra(extra: Record<string, unknown>): Record<string, unknown> {
  const result = bounded(extra) as Record<string, unknown>;
  if (Array.isArray(result.errors) && result.errors.length > MAX_ISSUES) {
    const total = result.errors.length;
    result.errors = [
      ...result.errors.slice(0, MAX_ISSUES),
      { path: '', message: `… and ${total - MAX_ISSUES} more issues` },
    ];
  }
  return result;
}

/** Writes an RFC 9457 problem document; texts from the input are bounded (see MAX_DETAIL). */
export function sendProblem(
  reply: FastifyReply,
  status: number,
  code: string,
  detail: string,
  extra: Record<string, unknown> = {},
): FastifyReply {
  return reply
    .status(status)
    .type('application/problem+json')
    .send({
      type: `https://scanhub.dev/problems/${code.replaceAll('_', '-')}`,
      title: TITLES[status] ?? 'Error',
      status,
      detail: truncateText(detail, MAX_DETAIL),
      code,
      ...boundedExtra(extra),
    });
}

/** PostgreSQL SQLSTATE codes mapped to client errors; by code, never by message text. */
const SQLSTATE: Record<string, { status: number; code: string; detail: string }> = {
  '23505': { status: 409, code: 'already_exists', detail: 'A record with these values already exists' },
  '23503': {
    status: 409,
    code: 'referenced',
    detail: 'The record is referenced by, or references, another record',
  },
  '23514': { status: 400, code: 'constraint_violated', detail: 'A value is outside what is allowed' },
  '22P02': { status: 400, code: 'invalid_value', detail: 'A value has the wrong type' },
  '22001': { status: 400, code: 'value_too_long', detail: 'A value is too long' },
  '22003': { status: 400, code: 'number_out_of_range', detail: 'A number is out of range' },
  '22007': { status: 400, code: 'invalid_date', detail: 'A date is invalid' },
  '22008': { status: 400, code: 'invalid_date', detail: 'A date is out of range' },
  // Backstop for what the edge already refuses (NUL characters, invalid encodings).
  '22021': {
    status: 400,
    code: 'invalid_text',
    detail: 'A text value holds a character that cannot be stored',
  },
  '22P05': {
    status: 400,
    code: 'invalid_text',
    detail: 'A text value holds a character that cannot be stored',
  },
};

/** Class 54, program limit exceeded (a value too large to index, a statement too complex). */
const LIMIT_EXCEEDED = { status: 400, code: 'value_too_large', detail: 'A value exceeds what can be stored' };

function mappedSqlState(state: string | undefined) {
  if (!state) return undefined;
  return SQLSTATE[state] ?? (state.startsWith('54') ? LIMIT_EXCEEDED : undefined);
}

function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/** Turns Ajv's errors into `{path, message}` items, one per issue. */
function validationIssues(error: FastifyError): ValidationIssue[] {
  const context = error.validationContext ?? 'body';
  return (error.validation ?? []).map((issue) => {
    const params = issue.params as { missingProperty?: string; additionalProperty?: string };
    const field = params.missingProperty ?? params.additionalProperty;
    const base = issue.instancePath.replace(/^\//, '').replaceAll('/', '.');
    const path = [context, base, field].filter(Boolean).join('.');
    return { path, message: issue.message ?? 'is invalid' };
  });
}

/**
 * Errors Fastify answers before routing (`frameworkErrors`): a malformed percent-encoding (400) or
 * a path parameter over the router's length limit (414); problem+json like every other error.
 */
export function sendFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const status = error.statusCode ?? 400;
  if (request.url.startsWith('/scim/')) {
    // Before routing, SCIM's routes (src/modules/scim/) cannot answer: their clients read SCIM's error shape.
    void reply
      .status(status)
      .type('application/scim+json')
      .send({
        schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
        status: String(status),
        detail: truncateText(error.message, MAX_DETAIL),
      });
    return;
  }
  const code = status === 414 ? 'uri_too_long' : 'bad_url';
  void sendProblem(reply, status, code, error.message);
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof AppError) {
      const issues = error.extra['errors'];
      const extra = Array.isArray(issues)
        ? { ...error.extra, errors: spelledAsSent(request, issues as ValidationIssue[]) }
        : error.extra;
      return sendProblem(reply, error.status, error.code, error.detail, extra);
    }
    if (error.validation) {
      const errors = spelledAsSent(request, validationIssues(error));
      return sendProblem(reply, 400, 'validation_failed', 'The request is invalid', { errors });
    }
    const mapped = mappedSqlState(sqlState(error));
    if (mapped) return sendProblem(reply, mapped.status, mapped.code, mapped.detail);
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const code = status === 413 ? 'payload_too_large' : status === 429 ? 'rate_limited' : 'bad_request';
      return sendProblem(reply, status, code, error.message);
    }
    request.log.error({ err: loggableError(error) }, 'unhandled error');
    return sendProblem(reply, 500, 'internal_error', 'An unexpected error occurred');
  });
}
