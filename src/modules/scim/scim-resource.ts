import { Value } from 'typebox/value';
import type { TSchema } from 'typebox';
import {
  scimPatch,
  ScimError as PatchLibraryError,
  type ScimResource,
  type ScimPatchOperation,
} from 'scim-patch';
import { scimBadRequest } from './scim-errors.ts';
import {
  LIST_RESPONSE_SCHEMA,
  PATCH_OP_SCHEMA,
  type ScimListQueryInput,
  type ScimPatchInput,
} from './scim.schema.ts';

/**
 * What SCIM's Users and Groups share: PATCH as "apply the operations to the resource as we show
 * it, check the result like a PUT body, then store it like a PUT" (so a PATCH can do nothing a PUT
 * could not), list paging, and `attributes`/`excludedAttributes`.
 */

/** Attributes a client may not set; dropped from a patched resource before it is checked. */
const READ_ONLY = ['id', 'meta', 'groups'];

type Operation = ScimPatchInput['Operations'][number];

/**
 * Entra ID removes members as `{op: "Remove", path: "members", value: [{value: "7"}]}`, which the
 * library matches against whole member objects (with `display`, `$ref`); as `members[value eq "7"]`
 * each one is matched by its value alone, as RFC 7644 §3.5.2.2 reads it.
 */
function removalsByValue(operation: Operation): Operation[] {
  const values = operation.value;
  if (operation.op.toLowerCase() !== 'remove' || !operation.path || /[[\].]/.test(operation.path))
    return [operation];
  if (!Array.isArray(values) || values.length === 0) return [operation];
  const ids = values.map((item) =>
    item !== null && typeof item === 'object' && typeof (item as { value?: unknown }).value === 'string'
      ? (item as { value: string }).value
      : undefined,
  );
  if (ids.some((id) => id === undefined || id.includes('"'))) return [operation];
  return ids.map((id) => ({ op: 'remove', path: `${operation.path}[value eq "${id}"]` }));
}

/** Applies a PatchOp body to `current` and returns the resulting body, checked against `schema`. */
export function patched<T>(current: Record<string, unknown>, body: ScimPatchInput, schema: TSchema): T {
  if (!body.schemas.includes(PATCH_OP_SCHEMA))
    throw scimBadRequest('invalidSyntax', `A PATCH body's schemas must list ${PATCH_OP_SCHEMA}`);
  const resource = structuredClone(current) as unknown as ScimResource;
  const operations = body.Operations.flatMap(removalsByValue);
  let result: Record<string, unknown>;
  try {
    result = scimPatch(resource, operations as ScimPatchOperation[], {
      mutateDocument: true,
    }) as unknown as Record<string, unknown>;
  } catch (error) {
    if (error instanceof PatchLibraryError || (error instanceof Error && /SCIM Patch/i.test(error.message)))
      throw scimBadRequest('invalidPath', (error as Error).message);
    throw error;
  }
  for (const attribute of READ_ONLY) delete result[attribute];
  if (!Value.Check(schema, result)) {
    const first = Value.Errors(schema, result)[0];
    const where = first ? `${first.instancePath || '/'}: ${first.message}` : 'the result is invalid';
    throw scimBadRequest('invalidValue', `The patched resource is not valid (${where})`);
  }
  return result as T;
}

/** `startIndex` (1-based) and `count` as SQL's offset and limit; at most MAX_RESULTS per page. */
export const MAX_RESULTS = 1_000;
export function page(query: ScimListQueryInput): { offset: number; limit: number; startIndex: number } {
  const startIndex = query.startIndex ?? 1;
  return { startIndex, offset: startIndex - 1, limit: Math.min(query.count ?? 100, MAX_RESULTS) };
}

function attributeList(text: string | undefined): string[] | undefined {
  if (text === undefined) return undefined;
  return text
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
}

/**
 * `attributes` keeps only the named top-level attributes (with `id`, `schemas` and `meta`, which are
 * always returned); `excludedAttributes` drops the named ones (RFC 7644 §3.4.2.5).
 */
export function projected(
  resource: Record<string, unknown>,
  query: ScimListQueryInput,
): Record<string, unknown> {
  const only = attributeList(query.attributes);
  const without = new Set(attributeList(query.excludedAttributes) ?? []);
  const always = new Set(['id', 'schemas', 'meta']);
  return Object.fromEntries(
    Object.entries(resource).filter(([name]) => {
      const lower = name.toLowerCase();
      if (always.has(lower)) return true;
      if (only) return only.some((wanted) => wanted === lower || wanted.startsWith(`${lower}.`));
      return !without.has(lower);
    }),
  );
}

export function listResponse(
  resources: Record<string, unknown>[],
  totalResults: number,
  startIndex: number,
): Record<string, unknown> {
  return {
    schemas: [LIST_RESPONSE_SCHEMA],
    totalResults,
    startIndex,
    itemsPerPage: resources.length,
    Resources: resources,
  };
}

/** A multi-valued SCIM reference: a group's member, a user's group. */
export interface ScimReference {
  value: string;
  display: string;
}

/** Membership rows (whose list, the id and name referenced) as each owner's references, in row order. */
export function referencesByOwner(
  rows: readonly { owner: number; id: number; name: string }[],
): Map<number, ScimReference[]> {
  const byOwner = new Map<number, ScimReference[]>();
  for (const row of rows) {
    const list = byOwner.get(row.owner) ?? [];
    list.push({ value: String(row.id), display: row.name });
    byOwner.set(row.owner, list);
  }
  return byOwner;
}
