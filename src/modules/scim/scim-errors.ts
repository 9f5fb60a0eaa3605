import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.ts';
import { truncateText } from '../../http/errors.ts';

/**
 * Errors in SCIM's own shape (RFC 7644 §3.12): an identity provider's provisioning client reads
 * `status` (a string) and `scimType`, not problem+json. Every error a SCIM route gives — bad
 * credentials, validation, a conflict — goes through `sendScimError`.
 */
export const SCIM_ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';
export const SCIM_MEDIA_TYPE = 'application/scim+json';

/** The `scimType` values of RFC 7644 §3.12 this server gives. */
export type ScimType =
  | 'invalidFilter'
  | 'tooMany'
  | 'uniqueness'
  | 'mutability'
  | 'invalidSyntax'
  | 'invalidPath'
  | 'noTarget'
  | 'invalidValue';

export class ScimError extends Error {
  override name = 'ScimError';
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly scimType?: ScimType,
  ) {
    super(detail);
  }
}

export const scimBadRequest = (scimType: ScimType, detail: string): ScimError =>
  new ScimError(400, detail, scimType);
export const scimNotFound = (what: string, id: string): ScimError =>
  new ScimError(404, `${what} ${truncateText(id, 80)} not found`);

function fromFastify(error: FastifyError): ScimError {
  if (error.validation) {
    const context = error.validationContext ?? 'body';
    const issues = error.validation.map((issue) => {
      const params = issue.params as { missingProperty?: string; additionalProperty?: string };
      const field = params.missingProperty ?? params.additionalProperty;
      const path = [context, issue.instancePath.replace(/^\//, '').replaceAll('/', '.'), field]
        .filter(Boolean)
        .join('.');
      return `${path}: ${issue.message ?? 'is invalid'}`;
    });
    return new ScimError(
      400,
      issues.slice(0, 10).join('; '),
      context === 'body' ? 'invalidValue' : 'invalidSyntax',
    );
  }
  const status =
    error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
  return new ScimError(
    status,
    status === 500 ? 'Internal error' : error.message,
    status === 400 ? 'invalidSyntax' : undefined,
  );
}

/** The SCIM error for anything a SCIM route throws; unexpected errors are logged and a bare 500. */
export function toScimError(error: unknown, request: FastifyRequest): ScimError {
  if (error instanceof ScimError) return error;
  if (error instanceof AppError) {
    // The issues' paths (`body.userName`, `querystring.filter`) go into the detail: SCIM's error has no list.
    const issues = Array.isArray(error.extra.errors)
      ? (error.extra.errors as { path: string; message: string }[])
      : [];
    const listed = issues.slice(0, 10).map((issue) => `${issue.path}: ${issue.message}`);
    const detail = listed.length > 0 ? `${listed.join('; ')} (${error.detail})` : error.detail;
    return new ScimError(error.status, detail, error.status === 400 ? 'invalidValue' : undefined);
  }
  const state = (error as { code?: unknown }).code;
  // A unique key the service's own checks did not see first (two provisioning calls at once).
  if (state === '23505')
    return new ScimError(409, 'A resource with these values already exists', 'uniqueness');
  if (error instanceof Error && 'statusCode' in error) {
    const mapped = fromFastify(error as FastifyError);
    if (mapped.status !== 500) return mapped;
  }
  request.log.error({ err: error }, 'SCIM request failed');
  return new ScimError(500, 'Internal error');
}

export function sendScimError(reply: FastifyReply, error: ScimError): FastifyReply {
  if (error.status === 401) void reply.header('www-authenticate', 'Bearer realm="scanhub SCIM"');
  return reply
    .status(error.status)
    .type(SCIM_MEDIA_TYPE)
    .send({
      schemas: [SCIM_ERROR_SCHEMA],
      status: String(error.status),
      ...(error.scimType ? { scimType: error.scimType } : {}),
      detail: truncateText(error.detail, 500),
    });
}
