import {
  sql,
  type DatabaseIntrospector,
  type DatabaseMetadata,
  type Dialect,
  type Kysely,
  type SchemaMetadata,
  type TableMetadata,
} from 'kysely';

/**
 * What Kysely's Migrator asks before migrating (does the schema exist, is its table there), answered
 * from the schemas on the search path only, by plain catalog reads.
 *
 * Kysely's own PostgreSQL introspector lists every table of every schema and calls
 * `has_schema_privilege(name)` and `pg_get_serial_sequence(name)` on each: those look the name up
 * again in the live catalog, so a schema dropped by another connection during the read failed the
 * migration with "schema … does not exist" (seen with test files migrating their own schemas while
 * others dropped theirs). It also took a `kysely_migration` table in any schema for ours.
 */
class SearchPathIntrospector implements DatabaseIntrospector {
  // Kysely<any>: the introspector reads catalogs, not the application's tables.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  constructor(private readonly db: Kysely<any>) {}

  async getSchemas(): Promise<SchemaMetadata[]> {
    const { rows } = await sql<{ name: string }>`select unnest(current_schemas(false)) as name`.execute(
      this.db,
    );
    return rows.map((row) => ({ name: row.name }));
  }

  async getTables(): Promise<TableMetadata[]> {
    const { rows } = await sql<{ schema: string; name: string; is_view: boolean }>`
      select namespace.nspname as schema, class.relname as name, class.relkind = 'v' as is_view
      from pg_class as class
      join pg_namespace as namespace on namespace.oid = class.relnamespace
      where namespace.nspname = any(current_schemas(false)) and class.relkind in ('r', 'p', 'v')`.execute(
      this.db,
    );
    // Only whether a table exists is ever asked; its columns are not read.
    return rows.map((row) => ({ schema: row.schema, name: row.name, isView: row.is_view, columns: [] }));
  }

  async getMetadata(): Promise<DatabaseMetadata> {
    return { tables: await this.getTables() };
  }
}

/** `dialect`, introspecting only the search path's schemas (see SearchPathIntrospector). */
export function withSearchPathIntrospector(dialect: Dialect): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createDriver: () => dialect.createDriver(),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => new SearchPathIntrospector(db),
  };
}
