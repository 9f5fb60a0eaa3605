import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';
import { camelCase, snakeCase } from './camel-case-twins.ts';

/**
 * Unknown query parameters are refused, not ignored: `GET /api/findings?scannerType=gitleaks` (the
 * filter is `scanner_type_id`) once answered with every finding, a wrong answer that looked right.
 * Every API route takes exactly the parameters its querystring schema declares (none without one),
 * each also in its other spelling, camelCase or snake_case (twins.ts folds those before this runs). A schema that says
 * `additionalProperties: true` keeps its door open on purpose (a tracker's webhook URL, where the
 * tracker may append parameters of its own).
 */

type QuerySchema = { properties?: Record<string, unknown>; additionalProperties?: unknown } | undefined;

/** The routes this applies to: the API and SCIM's, less the documentation UI's own pages and assets. */
export function takesStrictQuery(url: string): boolean {
  return (url.startsWith('/api/') && !url.startsWith('/api/docs')) || url.startsWith('/scim/');
}

/** The parameters a route accepts, as documented: `application_id (or applicationId)`. */
export function acceptedParameters(schema: QuerySchema): string[] {
  return Object.keys(schema?.properties ?? {}).map((name) => {
    const twin = name.includes('_') ? camelCase(name) : snakeCase(name);
    return twin === name ? name : `${name} (or ${twin})`;
  });
}

function unknownParameters(request: FastifyRequest, schema: QuerySchema): string[] {
  const query = request.query;
  if (query === null || typeof query !== 'object') return [];
  const declared = schema?.properties ?? {};
  return Object.keys(query).filter((name) => !Object.hasOwn(declared, name));
}

function refusal(method: string, url: string, unknown: string[], schema: QuerySchema): AppError {
  const accepted = acceptedParameters(schema);
  const named = `Unknown query parameter${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}`;
  const detail =
    accepted.length === 0
      ? `${named}: ${method} ${url} takes no query parameters`
      : `${named}; ${method} ${url} accepts ${accepted.join(', ')}`;
  return new AppError(400, 'unknown_query_parameter', detail, {
    unknown_parameters: unknown,
    accepted_parameters: Object.keys(schema?.properties ?? {}),
    errors: unknown.map((name) => ({
      path: `querystring.${name}`,
      message: 'is not a parameter of this endpoint',
    })),
  });
}

/** After the camelCase twins are folded, before validation: every unknown parameter is a 400. */
export function registerStrictQuery(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    const url = request.routeOptions.url;
    if (url === undefined || !takesStrictQuery(url)) return;
    const schema = (request.routeOptions.schema as { querystring?: QuerySchema } | undefined)?.querystring;
    if (schema?.additionalProperties === true) return;
    const unknown = unknownParameters(request, schema);
    if (unknown.length > 0) throw refusal(request.method, url, unknown, schema);
  });
}
