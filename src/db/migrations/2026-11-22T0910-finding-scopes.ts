import type { Kysely } from 'kysely';

/**
 * "Last seen" without rewriting every finding on every upload. A scope is what one upload speaks
 * for: a version, a scanner type, a tool and an analysis category. While a finding is `present`,
 * it was seen by its scope's latest scan, so its last-seen time and scan are the scope's; the
 * finding row itself is written only when its presence or status changes. An identical re-upload
 * then writes no finding rows at all.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('finding_scopes')
    .addColumn('id', 'integer', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('version_id', 'integer', (c) =>
      c.notNull().references('application_versions.id').onDelete('cascade'),
    )
    .addColumn('scanner_type_id', 'integer', (c) => c.notNull().references('scanner_types.id'))
    .addColumn('tool_name', 'text', (c) => c.notNull())
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('last_scan_id', 'integer', (c) => c.references('scans.id').onDelete('set null'))
    .addColumn('last_seen_at', 'timestamptz', (c) => c.notNull())
    .addUniqueConstraint('finding_scopes_key', ['version_id', 'scanner_type_id', 'tool_name', 'category'])
    .execute();
  await db.schema
    .alterTable('findings')
    .addColumn('present', 'boolean', (c) => c.notNull().defaultTo(true))
    .execute();
}
