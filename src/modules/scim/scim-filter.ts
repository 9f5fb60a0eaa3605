import { sql, type Expression, type SqlBool } from 'kysely';
import { parse, type Filter } from 'scim2-parse-filter';
import { scimBadRequest } from './scim-errors.ts';

/**
 * SCIM list filters (RFC 7644 §3.4.2.2) as SQL. The grammar is parsed by `scim2-parse-filter`; this
 * file only says which attributes a resource can be filtered on and what `eq` means for each — what
 * Okta and Entra ID send (`userName eq "…"`, `externalId eq "…"`, a group's `members[value eq "…"]`),
 * joined by `and`, `or`, `not`. Anything else is a 400 `invalidFilter` naming it, never a silent
 * "match all".
 */

/** The SQL condition for `attribute eq value`, per filterable attribute (lower-case name). */
export type FilterAttributes = Record<
  string,
  (value: string | number | boolean | null) => Expression<SqlBool>
>;

const NOTHING = sql<SqlBool>`false`;

function condition(filter: Filter, attributes: FilterAttributes, depth: number): Expression<SqlBool> {
  if (depth > 16) throw scimBadRequest('invalidFilter', 'The filter is nested too deeply');
  switch (filter.op) {
    case 'and':
    case 'or': {
      const parts = filter.filters.map((part) => condition(part, attributes, depth + 1));
      const joiner = filter.op === 'and' ? sql` and ` : sql` or `;
      return sql<SqlBool>`(${sql.join(parts, joiner)})`;
    }
    case 'not':
      return sql<SqlBool>`not (${condition(filter.filter, attributes, depth + 1)})`;
    case '[]': {
      // `members[value eq "…"]`: a value filter on a multi-valued attribute; only `value` is kept.
      const inner = filter.valFilter;
      if (inner.op !== 'eq' || inner.attrPath.toLowerCase() !== 'value')
        throw scimBadRequest('invalidFilter', `Only ${filter.attrPath}[value eq "…"] is supported`);
      return condition(
        { op: 'eq', attrPath: `${filter.attrPath}.value`, compValue: inner.compValue },
        attributes,
        depth + 1,
      );
    }
    case 'eq': {
      const name = filter.attrPath.toLowerCase();
      const matcher = attributes[name] ?? attributes[name.replace(/\.value$/, '')];
      if (!matcher) {
        throw scimBadRequest(
          'invalidFilter',
          `Filtering on ${filter.attrPath} is not supported; supported: ${Object.keys(attributes).join(', ')}`,
        );
      }
      return matcher(filter.compValue);
    }
    default:
      throw scimBadRequest(
        'invalidFilter',
        `The operator ${filter.op} is not supported; use eq, and, or, not`,
      );
  }
}

/** The SQL condition of a filter string, or a 400 `invalidFilter`. */
export function filterCondition(text: string, attributes: FilterAttributes): Expression<SqlBool> {
  let parsed: Filter;
  try {
    parsed = parse(text);
  } catch (error) {
    throw scimBadRequest('invalidFilter', `The filter cannot be parsed: ${(error as Error).message}`);
  }
  return condition(parsed, attributes, 0);
}

/** A resource id as SQL can compare it: our ids are integers; any other text matches nothing. */
export function idCondition(column: Expression<number>, value: unknown): Expression<SqlBool> {
  const id = typeof value === 'string' && /^[1-9][0-9]{0,9}$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(id) || id > 2_147_483_647) return NOTHING;
  return sql<SqlBool>`${column} = ${id}`;
}

/** A text value or a 400: `eq` on a text attribute compares with a string. */
export function textValue(attribute: string, value: unknown): string {
  if (typeof value !== 'string')
    throw scimBadRequest('invalidFilter', `${attribute} is compared with a string`);
  return value;
}
