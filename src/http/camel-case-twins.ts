import { isDeepStrictEqual } from 'node:util';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { badRequest } from '../errors.ts';

/**
 * camelCase twins, folded once at the edge. Schemas declare the snake_case spelling only; a body or
 * query field that is not declared but whose snake_case form is (`dueDate` → `due_date`) is renamed
 * before validation, so services and their types see one spelling. Both spellings with different
 * values are a 400 naming the camelCase one; with the same value they are one field. In a query
 * string the other way round too, where a parameter is declared in camelCase (`declaredTwin`).
 */

export const snakeCase = (name: string): string =>
  name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
export const camelCase = (name: string): string =>
  name.replace(/_([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase());

/**
 * The declared spelling a field sent as `name` stands for, if another: its snake_case form, or, in a
 * query string, its camelCase form (a few query parameters are declared in camelCase, as the
 * dashboard's `applicationId`, and `?application_id=` must mean the same there as on every list).
 */
function declaredTwin(name: string, declared: Record<string, unknown>, where: 'body' | 'querystring') {
  const snake = snakeCase(name);
  if (snake !== name && Object.hasOwn(declared, snake)) return snake;
  const camel = camelCase(name);
  if (where === 'querystring' && camel !== name && Object.hasOwn(declared, camel)) return camel;
  return undefined;
}

type Schema = { properties?: Record<string, unknown> } | undefined;

/** Per request: `body.due_date` → `body.dueDate` for each field folded, so errors name what was sent. */
const folded = new WeakMap<FastifyRequest, Map<string, string>>();

function fold(request: FastifyRequest, target: unknown, schema: Schema, where: 'body' | 'querystring'): void {
  const declared = schema?.properties;
  if (!declared || target === null || typeof target !== 'object' || Array.isArray(target)) return;
  const fields = target as Record<string, unknown>;
  for (const name of Object.keys(fields)) {
    if (Object.hasOwn(declared, name)) continue;
    const canonical = declaredTwin(name, declared, where);
    if (canonical === undefined) continue;
    if (Object.hasOwn(fields, canonical) && !isDeepStrictEqual(fields[canonical], fields[name])) {
      throw badRequest('validation_failed', `${name} and ${canonical} disagree`, [
        { path: `${where}.${name}`, message: `differs from ${canonical}; send one` },
      ]);
    }
    fields[canonical] = fields[name];
    delete fields[name];
    const renames = folded.get(request) ?? new Map<string, string>();
    renames.set(`${where}.${canonical}`, `${where}.${name}`);
    folded.set(request, renames);
  }
}

/** Issue paths as the client spelled the fields (`body.dueDate` when it sent `dueDate`). */
export function spelledAsSent<T extends { path: string }>(
  request: FastifyRequest,
  issues: readonly T[],
): T[] {
  const renames = folded.get(request);
  if (!renames) return [...issues];
  return issues.map((issue) => {
    for (const [canonical, sent] of renames) {
      if (issue.path === canonical || issue.path.startsWith(`${canonical}.`)) {
        return { ...issue, path: sent + issue.path.slice(canonical.length) };
      }
    }
    return issue;
  });
}

export function registerTwinFolding(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    const schema = request.routeOptions.schema as { body?: Schema; querystring?: Schema } | undefined;
    if (!schema) return;
    fold(request, request.body, schema.body, 'body');
    fold(request, request.query, schema.querystring, 'querystring');
  });
}
