import { isDeepStrictEqual } from 'node:util';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { badRequest } from '../errors.ts';

/**
 * camelCase twins, folded once at the edge. Schemas declare the snake_case spelling only; a body or
 * query field that is not declared but whose snake_case form is (`dueDate` → `due_date`) is renamed
 * before validation, so services and their types see one spelling. Both spellings with different
 * values are a 400 naming the camelCase one; with the same value they are one field.
 */

const snakeCase = (name: string): string => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

type Schema = { properties?: Record<string, unknown> } | undefined;

/** Per request: `body.due_date` → `body.dueDate` for each field folded, so errors name what was sent. */
const folded = new WeakMap<FastifyRequest, Map<string, string>>();

function fold(request: FastifyRequest, target: unknown, schema: Schema, where: 'body' | 'querystring'): void {
  const declared = schema?.properties;
  if (!declared || target === null || typeof target !== 'object' || Array.isArray(target)) return;
  const fields = target as Record<string, unknown>;
  for (const name of Object.keys(fields)) {
    if (Object.hasOwn(declared, name)) continue;
    const canonical = snakeCase(name);
    if (canonical === name || !Object.hasOwn(declared, canonical)) continue;
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
