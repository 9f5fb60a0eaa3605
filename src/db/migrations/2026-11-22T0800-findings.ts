import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('scans')
    .addColumn('id', 'integer', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('application_id', 'integer', (c) =>
      c.notNull().references('applications.id').onDelete('cascade'),
    )
    .addColumn('version_id', 'integer', (c) =>
      c.notNull().references('application_versions.id').onDelete('cascade'),
    )
    .addColumn('scanner_type_id', 'integer', (c) => c.references('scanner_types.id'))
    .addColumn('scanner_type', 'text')
    .addColumn('tool_name', 'text')
    .addColumn('tool_version', 'text')
    .addColumn('file_name', 'text')
    .addColumn('file_size', 'bigint', (c) => c.notNull())
    .addColumn('file_sha256', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status in ('pending', 'processing', 'completed', 'failed')`),
    )
    .addColumn('error', 'text')
    .addColumn('findings_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('new_findings_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('existing_findings_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('fixed_findings_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('reopened_findings_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('uploaded_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('uploaded_via', 'text', (c) => c.notNull())
    .addColumn('idempotency_key', 'text')
    /** Where an async upload waits for its job; cleared when processed. */
    .addColumn('spool_path', 'text')
    .addColumn('branch', 'text')
    .addColumn('started_at', 'timestamptz')
    .addColumn('completed_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex('scans_application_idx')
    .on('scans')
    .columns(['application_id', 'id desc'])
    .execute();
  await db.schema.createIndex('scans_version_idx').on('scans').column('version_id').execute();
  await sql`create unique index scans_idempotency_key on scans (application_id, idempotency_key) where idempotency_key is not null`.execute(
    db,
  );

  await db.schema
    .createTable('findings')
    .addColumn('id', 'integer', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('application_id', 'integer', (c) =>
      c.notNull().references('applications.id').onDelete('cascade'),
    )
    .addColumn('version_id', 'integer', (c) =>
      c.notNull().references('application_versions.id').onDelete('cascade'),
    )
    .addColumn('scanner_type_id', 'integer', (c) => c.notNull().references('scanner_types.id'))
    .addColumn('first_scan_id', 'integer', (c) => c.references('scans.id').onDelete('set null'))
    .addColumn('last_scan_id', 'integer', (c) => c.references('scans.id').onDelete('set null'))
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    /** Analysis category (SARIF automationDetails.id); '' when none. Re-upload scope. */
    .addColumn('category', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('severity', 'text', (c) =>
      c.notNull().check(sql`severity in ('critical', 'high', 'medium', 'low', 'info')`),
    )
    /** 5 critical … 1 info: sorts and filters by severity without a CASE. */
    .addColumn('severity_rank', 'smallint', (c) => c.notNull())
    .addColumn('severity_score', 'double precision')
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status in ('open', 'confirmed', 'false_positive', 'fixed')`),
    )
    .addColumn('description', 'text')
    .addColumn('remediation', 'text')
    .addColumn('rule_id', 'text')
    .addColumn('file_path', 'text')
    .addColumn('line', 'integer')
    .addColumn('column', 'integer')
    .addColumn('end_line', 'integer')
    .addColumn('snippet', 'text')
    .addColumn('package_name', 'text')
    .addColumn('package_version', 'text')
    .addColumn('fixed_version', 'text')
    .addColumn('cve_ids', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'`))
    .addColumn('cwe_ids', sql`integer[]`, (c) => c.notNull().defaultTo(sql`'{}'`))
    .addColumn('cwe_id', 'integer')
    .addColumn('cvss_score', 'double precision')
    .addColumn('cvss_vector', 'text')
    .addColumn('references', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'`))
    .addColumn('tool_name', 'text', (c) => c.notNull())
    .addColumn('tool_version', 'text')
    .addColumn('tool_fingerprint', 'text')
    .addColumn('epss', 'double precision')
    .addColumn('in_kev', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('risk_score', 'integer', (c) => c.notNull())
    .addColumn('risk_severity', 'double precision', (c) => c.notNull())
    .addColumn('risk_exploitation', 'double precision', (c) => c.notNull())
    .addColumn('risk_age', 'double precision', (c) => c.notNull())
    .addColumn('risk_asset', 'double precision', (c) => c.notNull())
    .addColumn('risk_formula_version', 'smallint', (c) => c.notNull())
    .addColumn('assignee_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('due_date', 'timestamptz')
    .addColumn('reviewed_at', 'timestamptz')
    .addColumn('reviewed_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('first_seen_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_seen_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('fixed_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('findings_version_fingerprint_key', ['version_id', 'fingerprint'])
    .execute();
  // List filters: by application (+ status, severity), sorted by risk; by assignee; by scan.
  await sql`create index findings_app_status_risk_idx on findings (application_id, status, risk_score desc, id)`.execute(
    db,
  );
  await sql`create index findings_app_severity_idx on findings (application_id, severity_rank desc, id)`.execute(
    db,
  );
  await sql`create index findings_status_risk_idx on findings (status, risk_score desc, id)`.execute(db);
  await sql`create index findings_assignee_idx on findings (assignee_id, status) where assignee_id is not null`.execute(
    db,
  );
  await sql`create index findings_last_scan_idx on findings (last_scan_id)`.execute(db);
  await sql`create index findings_first_scan_idx on findings (first_scan_id)`.execute(db);
  await sql`create index findings_app_fingerprint_idx on findings (application_id, fingerprint)`.execute(db);
  await sql`create index findings_scope_idx on findings (version_id, scanner_type_id, category, status)`.execute(
    db,
  );

  await db.schema
    .createTable('finding_events')
    .addColumn('id', 'integer', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('finding_id', 'integer', (c) => c.notNull().references('findings.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('actor_user_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    /** Who or what acted when not a user: `ingest`, `policy:<id>`. */
    .addColumn('actor_system', 'text')
    .addColumn('scan_id', 'integer', (c) => c.references('scans.id').onDelete('set null'))
    .addColumn('from_status', 'text')
    .addColumn('to_status', 'text')
    .addColumn('from_assignee_id', 'integer')
    .addColumn('to_assignee_id', 'integer')
    .addColumn('detail', 'jsonb')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex('finding_events_finding_idx')
    .on('finding_events')
    .columns(['finding_id', 'id'])
    .execute();

  await db.schema
    .createTable('finding_comments')
    .addColumn('id', 'integer', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('finding_id', 'integer', (c) => c.notNull().references('findings.id').onDelete('cascade'))
    .addColumn('parent_id', 'integer', (c) => c.references('finding_comments.id').onDelete('cascade'))
    .addColumn('author_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex('finding_comments_finding_idx')
    .on('finding_comments')
    .columns(['finding_id', 'id'])
    .execute();

  /** Outbox: events written in the same transaction as the change; delivered after commit. */
  await db.schema
    .createTable('events')
    .addColumn('id', 'integer', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('application_id', 'integer', (c) => c.references('applications.id').onDelete('cascade'))
    .addColumn('finding_id', 'integer', (c) => c.references('findings.id').onDelete('cascade'))
    .addColumn('scan_id', 'integer', (c) => c.references('scans.id').onDelete('cascade'))
    .addColumn('data', 'jsonb')
    .addColumn('processed_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create index events_unprocessed_idx on events (id) where processed_at is null`.execute(db);

  /**
   * Parsed rows of uploads in progress. Filled in batches outside any transaction (so a long parse
   * never holds the one PGlite session), then merged into findings in one short transaction.
   */
  await sql`create unlogged table ingest_staging (
    upload_key text not null,
    fingerprint text not null,
    category text not null,
    kind text not null,
    title text not null,
    severity text not null,
    severity_rank smallint not null,
    severity_score double precision,
    initial_status text not null,
    description text,
    remediation text,
    rule_id text,
    file_path text,
    line integer,
    "column" integer,
    end_line integer,
    snippet text,
    package_name text,
    package_version text,
    fixed_version text,
    cve_ids text[] not null,
    cwe_ids integer[] not null,
    cvss_score double precision,
    cvss_vector text,
    "references" text[] not null,
    tool_name text not null,
    tool_version text,
    tool_fingerprint text,
    risk_severity double precision not null,
    risk_exploitation double precision not null
  )`.execute(db);
  await sql`create index ingest_staging_key_idx on ingest_staging (upload_key, fingerprint)`.execute(db);
}
