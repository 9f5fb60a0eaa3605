/**
 * Response schemas as the serializer should see them. TypeBox writes a nullable field as
 * `anyOf: [{type: 'null'}, X]`, and fast-json-stringify picks an `anyOf` branch by running Ajv on
 * the value, for every nullable field of every record: a page of 50 findings made ~1,000 such
 * calls, date-time patterns included. The same field written `type: [X's type, 'null']` is picked
 * by a `typeof` test. Both say the same thing, and the serializer still writes only declared
 * fields. The schemas themselves (validation, the OpenAPI document) keep TypeBox's form.
 */

type SchemaNode = Record<string, unknown>;

const isNode = (value: unknown): value is SchemaNode =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Keywords whose value is a schema, or a list or map of schemas, to rewrite inside. */
const SCHEMA_KEYWORDS = new Set(['items', 'additionalProperties', 'not', 'if', 'then', 'else']);
const SCHEMA_LIST_KEYWORDS = new Set(['anyOf', 'allOf', 'oneOf', 'prefixItems']);
const SCHEMA_MAP_KEYWORDS = new Set(['properties', 'patternProperties', '$defs', 'definitions']);

/** The branch that is not `{type: 'null'}` when `anyOf` is exactly null-or-one-typed-schema. */
function nullableBranch(node: SchemaNode): SchemaNode | null {
  const branches = node.anyOf;
  if (!Array.isArray(branches) || branches.length !== 2) return null;
  const nullAt = branches.findIndex(
    (branch) => isNode(branch) && branch.type === 'null' && Object.keys(branch).length === 1,
  );
  if (nullAt === -1) return null;
  const other: unknown = branches[1 - nullAt];
  if (!isNode(other)) return null;
  // An enum of strings alone (a nullable StringEnum) is a string to the serializer.
  if (
    other.type === undefined &&
    Array.isArray(other.enum) &&
    other.enum.every((v) => typeof v === 'string')
  ) {
    return { ...other, type: 'string' };
  }
  // A branch without one plain type (a union, a $ref, a mixed enum) keeps the anyOf.
  if (typeof other.type !== 'string' || other.type === 'null') return null;
  return other;
}

const rewritten = new WeakMap<object, unknown>();

/** `schema` with every nullable `anyOf` written as a type list; other schemas are returned as they are. */
export function serializerSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(serializerSchema);
  if (!isNode(schema)) return schema;
  const cached = rewritten.get(schema);
  if (cached !== undefined) return cached;
  const node: SchemaNode = {};
  for (const [key, value] of Object.entries(schema)) {
    if (SCHEMA_KEYWORDS.has(key) || SCHEMA_LIST_KEYWORDS.has(key)) node[key] = serializerSchema(value);
    else if (SCHEMA_MAP_KEYWORDS.has(key) && isNode(value)) {
      node[key] = Object.fromEntries(
        Object.entries(value).map(([name, sub]) => [name, serializerSchema(sub)]),
      );
    } else node[key] = value;
  }
  const branch = nullableBranch(node);
  let result: SchemaNode = node;
  if (branch !== null) {
    const { anyOf: _anyOf, ...annotations } = node;
    result = { ...annotations, ...branch, type: [branch.type, 'null'] };
  }
  rewritten.set(schema, result);
  return result;
}
