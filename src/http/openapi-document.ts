import { accessRule, type RouteAccess } from '../access/route-access.ts';
import { ProblemSchema } from './schemas.ts';

/**
 * The parts of the OpenAPI document that the route schemas cannot say themselves: the problem
 * answers each route can give (derived from what it declares it needs), the security schemes it
 * takes, and shared schemas referenced by name from `components` instead of repeated inline.
 */

type Json = Record<string, unknown>;

/** Every problem answer the API gives, as a reusable response; routes reference them by status. */
const PROBLEM_RESPONSES: Record<number, { name: string; description: string }> = {
  400: {
    name: 'BadRequest',
    description: 'The request is malformed or a field is invalid; `errors` lists each issue with its path.',
  },
  401: {
    name: 'Unauthorized',
    description: 'No credentials, or credentials that are invalid, expired or revoked.',
  },
  403: {
    name: 'Forbidden',
    description:
      'The caller may read the resource but not do this (`forbidden`, `admin_required`), a cookie session sent no valid `X-CSRF-Token` (`csrf_failed`), a read-only API key asked to change something (`read_only_key`), or an API key asked to create a key (`session_required`).',
  },
  404: { name: 'NotFound', description: 'The resource does not exist, or the caller may not read it.' },
  409: {
    name: 'Conflict',
    description: 'The request conflicts with the current state (the `code` says how).',
  },
  413: {
    name: 'PayloadTooLarge',
    description: 'The upload (counted inflated when gzip) is above the limit.',
  },
  415: { name: 'UnsupportedMediaType', description: 'The body is not in a content type this route reads.' },
  422: {
    name: 'UnprocessableContent',
    description: 'The `Idempotency-Key` was used before with a different request (`idempotency_key_reused`).',
  },
  429: {
    name: 'TooManyRequests',
    description: 'Rate limited; retry after the number of seconds in `Retry-After`.',
  },
  503: {
    name: 'ServiceUnavailable',
    description:
      'The upload could not be parsed to the end because the staging thread stopped under it (`staging_interrupted`); nothing of it was kept, send it again.',
  },
};

const USER_SECURITY = [{ apiKey: [] }, { bearer: [] }, { session: [] }];
const TOKEN_SECURITY = [{ applicationToken: [] }];
const STATE_CHANGING = new Set(['post', 'put', 'patch', 'delete']);

/** The `x-` keys a route schema carries from the route to the document pass below. */
export const ACCESS_KEY = 'x-required-permission';
export const PROBLEMS_KEY = 'x-problems';
export const RATE_LIMITED_KEY = 'x-rate-limited';

/** The security requirement and problem statuses of one operation. */
function operationAnswers(method: string, operation: Json): { security: Json[]; statuses: number[] } {
  const access = operation[ACCESS_KEY] as RouteAccess;
  const rule = accessRule(access);
  const statuses = new Set<number>((operation[PROBLEMS_KEY] as number[] | undefined) ?? []);
  const takesInput =
    operation.requestBody !== undefined || ((operation.parameters as unknown[]) ?? []).length > 0;
  if (takesInput) statuses.add(400);
  // Presented but invalid credentials are a 401 even on public routes, so a typo'd key is noticed.
  statuses.add(401);
  if (rule.authentication !== 'public') {
    if (rule.authentication === 'admin' || rule.level === 'write' || STATE_CHANGING.has(method))
      statuses.add(403);
  }
  if (operation[RATE_LIMITED_KEY] === true) statuses.add(429);
  if (rule.resource) statuses.add(404);
  const security =
    rule.authentication === 'public'
      ? []
      : rule.authentication === 'metrics_token'
        ? [{ metricsToken: [] }, {}]
        : rule.authentication === 'application_token'
          ? TOKEN_SECURITY
          : rule.authentication === 'user_or_application_token'
            ? [...USER_SECURITY, ...TOKEN_SECURITY]
            : USER_SECURITY;
  return { security, statuses: [...statuses].sort() };
}

/**
 * Moves every schema that carries a `title` into `components.schemas` and refers to it there, so a
 * generated client gets one named type per record. Two different schemas with one title are a bug.
 */
function hoistTitledSchemas(
  node: unknown,
  schemas: Record<string, unknown>,
  seen: Map<string, string>,
): unknown {
  if (Array.isArray(node)) return node.map((item) => hoistTitledSchemas(item, schemas, seen));
  if (node === null || typeof node !== 'object') return node;
  const object = node as Json;
  const walked: Json = {};
  for (const [key, value] of Object.entries(object)) walked[key] = hoistTitledSchemas(value, schemas, seen);
  const title = walked.title;
  if (typeof title !== 'string' || (walked.type !== 'object' && walked.properties === undefined))
    return walked;
  const text = JSON.stringify(walked);
  const earlier = seen.get(title);
  if (earlier !== undefined && earlier !== text) throw new Error(`Two different schemas are titled ${title}`);
  seen.set(title, text);
  schemas[title] = walked;
  return { $ref: `#/components/schemas/${title}` };
}

/** Completes the generated document: problem responses, per-operation security, shared schemas. */
export function completeDocument(document: Json): Json {
  const components = (document.components ?? {}) as Json;
  const schemas = (components.schemas ?? {}) as Record<string, unknown>;
  const responses: Json = {};
  const paths = (document.paths ?? {}) as Record<string, Record<string, Json>>;
  const used = new Set<number>();
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      if (typeof operation.operationId !== 'string') throw new Error(`${method} ${path} has no operationId`);
      if (!operation.description) throw new Error(`${method} ${path} has no description`);
      const { security, statuses } = operationAnswers(method, operation);
      operation.security = security;
      const answers = (operation.responses ?? {}) as Json;
      for (const status of statuses) {
        answers[String(status)] ??= { $ref: `#/components/responses/${PROBLEM_RESPONSES[status]?.name}` };
        used.add(status);
      }
      for (const answer of Object.values(answers)) {
        const described = answer as Json;
        if (described.description === 'Default Response') described.description = String(operation.summary);
      }
      operation.responses = answers;
      delete operation[PROBLEMS_KEY];
      delete operation[RATE_LIMITED_KEY];
    }
  }
  const seen = new Map<string, string>();
  document.paths = hoistTitledSchemas(paths, schemas, seen);
  for (const status of [...used].sort()) {
    const { name, description } = PROBLEM_RESPONSES[status] as { name: string; description: string };
    responses[name] = {
      description,
      content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
    };
  }
  schemas.Problem = ProblemSchema;
  return { ...document, components: { ...components, schemas, responses } };
}
