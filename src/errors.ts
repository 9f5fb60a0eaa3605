/**
 * The error type services throw, with its stable codes; framework-free. src/http/errors.ts maps it
 * to problem+json (status, `code`, `detail`, and `extra` as further members).
 */
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
