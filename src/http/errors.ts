import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export interface ValidationIssue {
  path: string;
  message: string;
}

/** The one error type services throw; the error handler turns it into problem+json. */
export class AppError extends Error {
  override name = 'AppError';

  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(detail);
  }
}

export const notFound = (what: string): AppError => new AppError(404, 'not_found', `${what} not found`);
export const forbidden = (detail = 'You may read this resource but not change it'): AppError =>
  new AppError(403, 'forbidden', detail);
export const unauthorized = (detail = 'Authentication required'): AppError =>
  new AppError(401, 'unauthorized', detail);
export const badRequest = (code: string, detail: string, errors?: ValidationIssue[]): AppError =>
  new AppError(400, code, detail, errors ? { errors } : {});
export const conflict = (code: string, detail: string, extra: Record<string, unknown> = {}): AppError =>
  new AppError(409, code, detail, extra);

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** Writes an RFC 9457 problem document. */
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
      detail,
      code,
      ...extra,
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
};

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

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof AppError)
      return sendProblem(reply, error.status, error.code, error.detail, error.extra);
    if (error.validation) {
      const errors = validationIssues(error);
      return sendProblem(reply, 400, 'validation_failed', 'The request is invalid', { errors });
    }
    const state = sqlState(error);
    if (state && SQLSTATE[state]) {
      const mapped = SQLSTATE[state];
      return sendProblem(reply, mapped.status, mapped.code, mapped.detail);
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const code = status === 413 ? 'payload_too_large' : status === 429 ? 'rate_limited' : 'bad_request';
      return sendProblem(reply, status, code, error.message);
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendProblem(reply, 500, 'internal_error', 'An unexpected error occurred');
  });
}
