import { sql, type Kysely } from 'kysely';

/**
 * SLA configurations (docs/architecture.md, "SLA and due dates"):
 * - `sla_configurations`: named days to fix per severity, each severity enforced or not; one row is the
 *   default (`is_default`), seeded with the built-in table that set due dates until now (critical 15,
 *   high 30, medium 90, low 180, info 365, all enforced), so existing due dates stay what they were.
 *   `owner_group_id` null: a global configuration (admins edit it); else the group whose writers edit it.
 * - `groups.sla_configuration_id`, `applications.sla_configuration_id`: the assignment; an application
 *   without one takes its group's, else the nearest ancestor group's (by path), else the default.
 * - findings: `due_date_source` (`sla`: derived and recomputed; `manual`: set through triage, kept),
 *   `sla_breached_at` (when `finding.sla_breached` fired: once per finding), and the pause of the SLA
 *   clock while the finding is dismissed (`sla_paused_at`, `sla_paused_seconds` added to the due date).
 *
 * Existing due dates that differ from first seen + the built-in days were set by hand: marked
 * `manual`. Open findings already past due are marked breached as of their due date, so the first run
 * of the breach job does not announce months-old breaches at once.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('sla_configurations')
    .addColumn('id', 'integer', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('description', 'text')
    .addColumn('critical_days', 'integer', (c) => c.notNull())
    .addColumn('high_days', 'integer', (c) => c.notNull())
    .addColumn('medium_days', 'integer', (c) => c.notNull())
    .addColumn('low_days', 'integer', (c) => c.notNull())
    .addColumn('info_days', 'integer', (c) => c.notNull())
    .addColumn('critical_enforced', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('high_enforced', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('medium_enforced', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('low_enforced', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('info_enforced', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('is_default', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('owner_group_id', 'integer', (c) => c.references('groups.id').onDelete('cascade'))
    .addColumn('created_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint(
      'sla_configurations_days',
      sql`critical_days between 1 and 3650 and high_days between 1 and 3650 and medium_days between 1 and 3650
        and low_days between 1 and 3650 and info_days between 1 and 3650`,
    )
    .addCheckConstraint('sla_configurations_default_global', sql`not is_default or owner_group_id is null`)
    .execute();
  await sql`create unique index sla_configurations_one_default on sla_configurations (is_default) where is_default`.execute(
    db,
  );
  await sql`insert into sla_configurations (name, description, critical_days, high_days, medium_days, low_days, info_days, is_default)
    values ('Default', 'Applies to every application without a configuration of its own or of its groups.', 15, 30, 90, 180, 365, true)`.execute(
    db,
  );

  await sql`alter table groups add column sla_configuration_id integer references sla_configurations (id) on delete set null`.execute(
    db,
  );
  await sql`alter table applications add column sla_configuration_id integer references sla_configurations (id) on delete set null`.execute(
    db,
  );

  await sql`alter table findings
    add column due_date_source text not null default 'sla' check (due_date_source in ('sla', 'manual')),
    add column sla_breached_at timestamptz,
    add column sla_paused_at timestamptz,
    add column sla_paused_seconds integer not null default 0`.execute(db);

  await sql`update findings set due_date_source = 'manual'
    where due_date is distinct from first_seen_at + make_interval(hours => 24 * (case severity
      when 'critical' then 15 when 'high' then 30 when 'medium' then 90 when 'low' then 180 when 'info' then 365 end))`.execute(
    db,
  );
  await sql`update findings set sla_breached_at = due_date
    where status in ('open', 'confirmed') and due_date < now()`.execute(db);
  await sql`update findings set sla_paused_at = updated_at where status = 'false_positive'`.execute(db);

  // The breach job's work list: open findings not yet announced, by due date. Findings leave it
  // when they breach or close, so it stays the size of what is still running.
  await sql`create index findings_sla_pending_idx on findings (due_date)
    where status in ('open', 'confirmed') and sla_breached_at is null`.execute(db);
}
