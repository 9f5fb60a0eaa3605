import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import { RE2JS } from 're2js';
import { effectiveEpssSql, effectivePercentileSql } from '../findings/effective-epss.ts';
import { severityRank, type Severity } from '../findings/severity.ts';
import { effectiveDueDateOfSql } from '../findings/sla.ts';
import type { Condition, ConditionField } from './definition.ts';

/**
 * What a policy condition means, on a `findings` row aliased `f`. Every op but `regex` becomes SQL
 * (one statement selects a policy's matches among thousands of findings); `regex` runs in JavaScript
 * on RE2's linear-time engine, because PostgreSQL's regex engine backtracks and a pattern such as
 * `(a+)+$` could hold the ingest transaction for minutes.
 *
 * A missing value (no CWE, no rule id) never equals and is never in a list; it is always `neq` and
 * `not_in`. `severity` compares by rank (`gte high` is high and critical); `cwe_id` with eq / in
 * matches any of a finding's CWEs.
 */

/**
 * `sla_breached`: open and past due — by the transaction's clock, or as of the breach the SLA job
 * announced (which may run with a clock of its own: its `finding.sla_breached` event must match),
 * unless the due date moved past that moment since.
 */
// The due date in force (a recompute's overlay, domain/findings/sla.ts), looked up once per finding.
const slaBreachedConditionSql = sql<SqlBool>`(f.status in ('open', 'confirmed') and exists (
  select 1 from (select ${effectiveDueDateOfSql('f')} as due_date) d where d.due_date is not null
    and (d.due_date < now() or (f.sla_breached_at is not null and d.due_date < f.sla_breached_at))))`;

/** The SQL value of a text or number field. */
function column(field: ConditionField): RawBuilder<unknown> {
  switch (field) {
    case 'severity':
      return sql`f.severity_rank`;
    case 'risk_score':
      return sql`f.risk_score`;
    case 'scanner_type':
      return sql`(select st.name from scanner_types st where st.id = f.scanner_type_id)`;
    case 'status':
      return sql`f.status`;
    case 'cwe_id':
      return sql`f.cwe_id`;
    case 'file_path':
      return sql`f.file_path`;
    case 'scanner':
      return sql`f.tool_name`;
    case 'title':
      return sql`f.title`;
    case 'rule_id':
      return sql`f.rule_id`;
    case 'sla_breached':
      return slaBreachedConditionSql;
    case 'kev':
      return sql`f.in_kev`;
    // The value the API shows: the finding's EPSS row, else the report's own (effective-epss.ts).
    case 'epss':
      return sql`(select ${effectiveEpssSql('f', 'e')} from (select 1) one left join finding_epss e on e.finding_id = f.id)`;
    case 'epss_percentile':
      return sql`(select ${effectivePercentileSql('f', 'e')} from (select 1) one left join finding_epss e on e.finding_id = f.id)`;
    case 'concern':
      return sql`f.concern`;
  }
}

/** Severity names become ranks, so every comparison of `severity` is numeric. */
const operand = (field: ConditionField, value: string | number): string | number =>
  field === 'severity' ? severityRank(value as Severity) : value;

function listOf(condition: Condition): (string | number)[] {
  const values = Array.isArray(condition.value) ? condition.value : [condition.value];
  return values.map((value) => operand(condition.field, value));
}

/** One SQL parameter holding a list, typed for the column it is compared with. */
function arrayParam(condition: Condition, values: (string | number)[]): RawBuilder<unknown> {
  const numeric = ['severity', 'risk_score', 'cwe_id', 'epss', 'epss_percentile'].includes(condition.field);
  return numeric
    ? sql`array(select json_array_elements_text(${JSON.stringify(values)}::json)::numeric)`
    : sql`array(select json_array_elements_text(${JSON.stringify(values)}::json))`;
}

/** SQL for one non-regex condition. */
export function conditionSql(condition: Condition): Expression<SqlBool> {
  const values = listOf(condition);
  const [first] = values;
  if (condition.field === 'cwe_id' && condition.op !== 'gte' && condition.op !== 'lte') {
    const any = sql<SqlBool>`(f.cwe_ids::numeric[] && ${arrayParam(condition, values)})`;
    return condition.op === 'in' || condition.op === 'eq' ? any : sql<SqlBool>`not ${any}`;
  }
  if (condition.field === 'sla_breached' || condition.field === 'kev') {
    const wanted = (first === 'true') === (condition.op === 'eq');
    const holds = condition.field === 'kev' ? sql<SqlBool>`f.in_kev` : slaBreachedConditionSql;
    return wanted ? holds : sql<SqlBool>`not ${holds}`;
  }
  const value = column(condition.field);
  switch (condition.op) {
    case 'eq':
      return sql<SqlBool>`(${value} = ${first})`;
    case 'neq':
      return sql<SqlBool>`(${value} is distinct from ${first})`;
    case 'in':
      return sql<SqlBool>`(${value} = any(${arrayParam(condition, values)}))`;
    case 'not_in':
      return sql<SqlBool>`coalesce(not (${value} = any(${arrayParam(condition, values)})), true)`;
    case 'gte':
      return sql<SqlBool>`(${value} >= ${first})`;
    case 'lte':
      return sql<SqlBool>`(${value} <= ${first})`;
    case 'regex':
      throw new Error('regex conditions are evaluated by regexFilter');
  }
}

/** SQL for every condition but the regexes (true when there are none). */
export function conditionsSql(conditions: readonly Condition[]): Expression<SqlBool> {
  const parts = conditions.filter((condition) => condition.op !== 'regex').map(conditionSql);
  if (parts.length === 0) return sql<SqlBool>`true`;
  return sql<SqlBool>`(${sql.join(parts, sql` and `)})`;
}

/** The text a regex condition reads from a finding; the runner selects these columns. */
export interface RegexSubject {
  id: number;
  scanner_type: string | null;
  status: string;
  file_path: string | null;
  scanner: string | null;
  title: string;
  rule_id: string | null;
  severity: string;
}

/** Columns of `RegexSubject`, as SQL over `f`. */
export const REGEX_SUBJECT_SQL = sql<RegexSubject>`f.id, f.status, f.file_path, f.tool_name as scanner, f.title,
  f.rule_id, f.severity, (select st.name from scanner_types st where st.id = f.scanner_type_id) as scanner_type`;

/**
 * A predicate for the regex conditions (search semantics, like `RegExp.test`); undefined when there
 * are none. Patterns were checked to compile when the policy was saved.
 */
export function regexFilter(
  conditions: readonly Condition[],
): ((subject: RegexSubject) => boolean) | undefined {
  const compiled = conditions
    .filter((condition) => condition.op === 'regex')
    .map((condition) => ({ field: condition.field, pattern: RE2JS.compile(String(condition.value)) }));
  if (compiled.length === 0) return undefined;
  return (subject) =>
    compiled.every(({ field, pattern }) => {
      const text = subject[field as keyof RegexSubject];
      return typeof text === 'string' && pattern.matcher(text).find();
    });
}
