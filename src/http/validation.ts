import { AjvCompiler } from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { FastifyRouteSchemaDef } from 'fastify/types/schema.js';
import type { Options as AjvOptions } from 'ajv';
import { badRequest } from '../errors.ts';
import { serializerSchema } from './serializer-schema.ts';

/**
 * Two Ajv configurations, chosen per part of the request:
 * - JSON bodies are taken as typed: no coercion (`{"is_default": "true"}` is not `true`, `{"name": 42}`
 *   is not `"42"`) and no silent removal of unknown fields (body schemas say
 *   `additionalProperties: false`, so an unknown field is a 400 instead of being dropped);
 * - query strings and path parameters arrive as text, so they are coerced (`?page=2`, `?severity=a&severity=b`).
 */
const SHARED: AjvOptions = { allErrors: true, useDefaults: true };
const BODY_OPTIONS: AjvOptions = { ...SHARED, coerceTypes: false, removeAdditional: false };
const TEXT_OPTIONS: AjvOptions = { ...SHARED, coerceTypes: 'array', removeAdditional: true };

type Compile = (route: FastifyRouteSchemaDef<unknown>) => unknown;
type BuildFromPool = (
  externalSchemas: Record<string, unknown>,
  options: { customOptions: AjvOptions },
) => Compile;
type CompiledFunction = ((...args: unknown[]) => unknown) & Record<string, unknown>;

/**
 * A compiled function that is compiled when first called, not when the route is registered.
 * Fastify compiles every route's validators and serializers when the server gets ready; with ~100
 * routes that was about half a second of each start (Ajv and fast-json-stringify code generation),
 * spent before the first request could be answered, for routes most starts never see. Compiled on
 * first use, each costs a few milliseconds once, on its route's first request. The properties
 * Fastify reads from a validator (`errors` after a call, `schemaEnv` to pass Ajv the parent data)
 * are the compiled function's own, so Fastify cannot tell the difference.
 */
export function compiledOnFirstUse(compile: () => unknown): CompiledFunction {
  let compiled: CompiledFunction | undefined;
  const get = (): CompiledFunction => (compiled ??= compile() as CompiledFunction);
  const onFirstUse = (...args: unknown[]) => get()(...args);
  Object.defineProperties(onFirstUse, {
    errors: { get: () => get().errors, enumerable: true },
    schemaEnv: { get: () => get().schemaEnv, enumerable: true },
  });
  return onFirstUse as CompiledFunction;
}

/**
 * Fastify's validator factory, one Ajv instance per configuration (the library's own pool keyed by
 * options): bodies go to the strict one, everything else to the coercing one.
 */
function buildValidator(externalSchemas: Record<string, unknown>): Compile {
  // The typings describe the pool's result as Ajv's `compile`; at runtime it takes Fastify's route
  // schema definition, as Fastify calls it.
  const fromPool = AjvCompiler() as unknown as BuildFromPool;
  const strict = fromPool(externalSchemas, { customOptions: BODY_OPTIONS });
  const coercing = fromPool(externalSchemas, { customOptions: TEXT_OPTIONS });
  return (route) => compiledOnFirstUse(() => (route.httpPart === 'body' ? strict(route) : coercing(route)));
}

type BuildSerializer = (
  externalSchemas: unknown,
  options: unknown,
) => (route: { schema: unknown; method: string; url: string; httpStatus: string }) => unknown;

/**
 * Fastify's own serializer factory (fast-json-stringify), each serializer compiled on first use,
 * from the schema with nullable fields as type lists (serializer-schema.ts).
 */
function buildSerializer(externalSchemas: unknown, options: unknown) {
  const compile = (SerializerSelector as unknown as () => BuildSerializer)()(externalSchemas, options);
  return (route: Parameters<typeof compile>[0]) =>
    compiledOnFirstUse(() => compile({ ...route, schema: serializerSchema(route.schema) }));
}

/** The `schemaController` server option that installs the per-part validators. */
export const schemaController = {
  compilersFactory: { buildValidator, buildSerializer },
} as unknown as FastifyServerOptions['schemaController'];

/**
 * Where a request carries a NUL character (`\u0000` in a JSON string or key, `%00` in the path or
 * query), or `null` when none does. PostgreSQL text cannot hold one (SQLSTATE 22021), and no field
 * of this API means one, so it is refused at the edge. Iterative: a 10,000-level body must not
 * overflow the stack here.
 */
export function nulBytePath(root: unknown, rootName: string): string | null {
  const pending: [unknown, string][] = [[root, rootName]];
  while (pending.length > 0) {
    const [value, path] = pending.pop() as [unknown, string];
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return path;
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => pending.push([item, `${path}.${index}`]));
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        if (key.includes('\u0000')) return path;
        pending.push([item, `${path}.${key}`]);
      }
    }
  }
  return null;
}

/** Refuses NUL characters in the body, query and path parameters of every route, before validation. */
/**
 * A request target must be a path (origin form) or an absolute URL (absolute form, which servers
 * must accept). The asterisk form (`OPTIONS * HTTP/1.1`) asks about the server, not a resource, and
 * anything else is malformed: both are a 400 before routing, where the web app's fallback would
 * have answered them with its page.
 */
export function registerRequestTargetGuard(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    const target = request.raw.url ?? '';
    if (target.startsWith('/') || /^[a-z][a-z0-9+.-]*:\/\//i.test(target)) return;
    throw badRequest('invalid_request_target', 'The request target must be a path', [
      { path: 'request-target', message: 'must start with /' },
    ]);
  });
}

export function registerNulByteGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    const parts: [unknown, string][] = [
      [request.params, 'params'],
      [request.query, 'querystring'],
      [request.body, 'body'],
    ];
    for (const [value, name] of parts) {
      const path = nulBytePath(value, name);
      if (path !== null) {
        const issue = { path, message: 'must not contain a NUL character' };
        throw badRequest('validation_failed', 'The request is invalid', [issue]);
      }
    }
  });
}
