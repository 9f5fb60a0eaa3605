import { sql, type Kysely, type RawBuilder } from 'kysely';

/**
 * A finding's concern, `security` or `quality` (issue 45 item 7; domain/findings/concern.ts), on
 * `findings` and on the staging table.
 *
 * Online on a large table: a column added with a constant default is a catalogue change in
 * PostgreSQL ≥ 11 (no rewrite); the check is added `not valid` and validated after, which reads the
 * table under a lock that lets reads and writes go on.
 *
 * Backfill: every existing finding was counted as security until now, so `security` is the default,
 * and the rows the stored columns can tell are quality are set from their scanner type and rule,
 * as the parsers would (a frozen copy of the rule table of this day: a migration must not change
 * when the table does). Rows it cannot tell (SARIF from CodeQL, whose tags are not stored; Semgrep,
 * whose rule category is not stored) stay security until the next upload that reports them, which
 * takes the parser's concern (the column is `compared`). The update touches lint rows only.
 *
 * The `finding_counts` ledger (and its unpublished part) gains `concern` as a key, so the
 * dashboard's and the posture's security figures stay sums of a few hundred rows. Its triggers and
 * functions are those of migration 2026-11-24T1500 with the key widened and the columns named; the
 * existing ledger rows are all security (as every finding was), and the backfill's update moves its
 * quality findings' counts through the update trigger, in the same transaction.
 */

/** ESLint, oxlint and Biome security rules (domain/findings/concern.ts, `jsLintConcern`). */
const jsSecurityRule = (
  rule: RawBuilder<unknown>,
) => sql`(${rule} in ('no-eval', 'no-implied-eval', 'no-new-func', 'no-script-url')
  or ${rule} ~ '^(security|security-node|no-unsanitized|@microsoft/sdl|xss|scanjs-rules|pii)/'
  or ${rule} ~ '^lint/security/'
  or ${rule} ~ '^eslint\\((no-eval|no-implied-eval|no-new-func|no-script-url)\\)$'
  or ${rule} ~ '^(security|security-node|no-unsanitized|@microsoft/sdl|xss|scanjs-rules|pii)\\(')`;

const MEMORY_SAFETY_CWES = [
  119, 120, 121, 122, 125, 131, 134, 190, 415, 416, 476, 787, 788, 805, 822, 823, 824,
];

/** The concern of a finding row `f` whose scanner type is named `t.name`: the backfill's rule. */
export const backfilledConcernSql = (): RawBuilder<string> => {
  const rule = sql`coalesce(f.rule_id, '')`;
  const tool = sql`lower(f.tool_name)`;
  const memory = sql.raw(`array[${MEMORY_SAFETY_CWES.join(',')}]`);
  return sql<string>`case
    when f.kind in ('dependency', 'secret', 'license') then 'security'
    when t.name = 'eslint' then case when ${jsSecurityRule(rule)} then 'security' else 'quality' end
    when t.name = 'pylint' then case when ${rule} in ('eval-used', 'exec-used', 'W0123', 'W0122') then 'security' else 'quality' end
    when t.name = 'cppcheck' then case when f.cwe_ids && ${memory} then 'security' else 'quality' end
    when t.name = 'hadolint' then case when ${rule} = 'DL3002' then 'security' else 'quality' end
    when t.name = 'shellcheck' then 'quality'
    when t.name = 'gitlab_code_quality' then case
      when coalesce(f.description, '') ~* '(^|\n)Categories: (.*, )?Security(,|$)' or ${jsSecurityRule(rule)} then 'security'
      else 'quality' end
    when t.name = 'sonarqube' then case
      when coalesce(f.description, '') ~ '(^|\n)Type: (BUG|CODE_SMELL)$' then 'quality' else 'security' end
    when t.name = 'sarif' and ${tool} in ('eslint', 'biome', 'oxlint') then case when ${jsSecurityRule(rule)} then 'security' else 'quality' end
    when t.name = 'sarif' and ${tool} = 'shellcheck' then 'quality'
    when t.name = 'sarif' and ${tool} = 'spectral' then case when ${rule} like 'owasp:%' then 'security' else 'quality' end
    when t.name = 'sarif' and ${tool} = 'clang' then case when ${rule} ~ '^(alpha\\.)?security\\.' then 'security' else 'quality' end
    else 'security'
  end`;
};

/** Scanner types whose rows the backfill may set to quality. */
const BACKFILLED_TYPES = [
  'eslint',
  'pylint',
  'cppcheck',
  'hadolint',
  'shellcheck',
  'gitlab_code_quality',
  'sonarqube',
  'sarif',
];

const KEY = 'application_id, version_id, severity, status, concern';
const SUMS = 'sum(findings), sum(risk), sum(fixed_timed), sum(fix_seconds)';
const COLUMNS = `${KEY}, findings, risk, fixed_timed, fix_seconds`;
const NONZERO = 'sum(findings) <> 0 or sum(risk) <> 0 or sum(fixed_timed) <> 0 or sum(fix_seconds) <> 0';

/** One delta row per changed finding, with the unfinished scan it waits for (null: none). */
const delta = (rows: string, sign: string) => `select r.application_id, r.version_id, r.severity, r.status,
    r.concern,
    ${sign} 1 as findings, ${sign} r.risk_score::bigint as risk,
    ${sign} (r.status = 'fixed' and r.fixed_at is not null)::int as fixed_timed,
    ${sign} coalesce(case when r.status = 'fixed' then extract(epoch from r.fixed_at - r.first_seen_at) end, 0)
      as fix_seconds,
    unfinished.id as unpublished_scan
  from ${rows} r
  left join scans unfinished on unfinished.id = r.first_scan_id and unfinished.status <> 'completed'`;

const append = (source: string) => `with d as materialized (${source}),
    apart as (
      insert into finding_counts_unpublished (scan_id, ${COLUMNS})
      select unpublished_scan, ${KEY}, ${SUMS} from d where unpublished_scan is not null
      group by unpublished_scan, ${KEY} having ${NONZERO})
    insert into finding_counts (${COLUMNS})
    select ${KEY}, ${SUMS} from d where unpublished_scan is null
    group by ${KEY} having ${NONZERO}`;

async function widenLedger(db: Kysely<unknown>): Promise<void> {
  await sql`alter table finding_counts add column concern text not null default 'security'`.execute(db);
  await sql`alter table finding_counts_unpublished add column concern text not null default 'security'`.execute(
    db,
  );
  const functions: [string, string][] = [
    ['finding_counts_after_insert', append(delta('new_rows', '+'))],
    ['finding_counts_after_delete', append(delta('old_rows', '-'))],
    ['finding_counts_after_update', append(`${delta('new_rows', '+')} union all ${delta('old_rows', '-')}`)],
  ];
  for (const [name, body] of functions) {
    await sql
      .raw(
        `create or replace function ${name}() returns trigger language plpgsql as $$
        begin
          ${body};
          return null;
        end $$`,
      )
      .execute(db);
  }
  await sql
    .raw(
      `create or replace function publish_finding_counts(scan integer) returns void language sql as $$
      with moved as (delete from finding_counts_unpublished where scan_id = scan returning *)
      insert into finding_counts (${COLUMNS})
      select ${KEY}, ${SUMS} from moved group by ${KEY} having ${NONZERO}
      $$`,
    )
    .execute(db);
  await sql
    .raw(
      `create or replace function compact_finding_counts() returns void language sql as $$
      with folded as (delete from finding_counts returning *)
      insert into finding_counts (${COLUMNS})
      select ${KEY}, ${SUMS} from folded group by ${KEY} having ${NONZERO}
      $$`,
    )
    .execute(db);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await widenLedger(db);
  await sql`alter table findings add column concern text not null default 'security'`.execute(db);
  await sql`alter table findings add constraint findings_concern_check
    check (concern in ('security', 'quality')) not valid`.execute(db);
  await sql`alter table ingest_staging add column concern text not null default 'security'`.execute(db);
  await sql`update findings f set concern = 'quality'
    from scanner_types t
    where t.id = f.scanner_type_id
      and t.name = any(${sql.raw(`array[${BACKFILLED_TYPES.map((name) => `'${name}'`).join(',')}]`)})
      and ${backfilledConcernSql()} = 'quality'`.execute(db);
  await sql`alter table findings validate constraint findings_concern_check`.execute(db);
}
