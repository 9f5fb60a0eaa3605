import { sql, type Expression, type SqlBool } from 'kysely';
import type { ConcernFilter } from './concern.ts';

/**
 * The SQL condition `filter` puts on a concern column (`all`: none). Apart from concern.ts, which
 * the parsers (and so the CLI package) import and which stays free of the database.
 */
export function concernSql(filter: ConcernFilter, column: string): Expression<SqlBool> {
  return filter === 'all' ? sql<SqlBool>`true` : sql<SqlBool>`${sql.ref(column)} = ${filter}`;
}
