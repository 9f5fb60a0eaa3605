import { sql, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { emptyDatabase } from '../support/migration-database.ts';
import { migrations } from '../../src/db/migrations/index.ts';

/**
 * Migration 2026-11-29T1000-finding-concern's backfill (issue 45 item 7), on a database migrated up to
 * just before it: lint scanners' rows become quality except their security rules, every other row
 * stays security, and the `finding_counts` ledger (keyed by concern from then on) still sums to the
 * findings, per concern.
 */

const BEFORE = '2026-11-29T0400-license-policies';
const CONCERN = '2026-11-29T1000-finding-concern';

interface Row {
  scanner: string;
  tool: string;
  rule: string | null;
  kind?: string;
  description?: string;
  cwes?: number[];
  expected: 'security' | 'quality';
}

/** Findings as the parsers stored them before the column, and the concern the backfill must give each. */
const ROWS: Row[] = [
  { scanner: 'eslint', tool: 'ESLint', rule: 'no-unused-vars', expected: 'quality' },
  { scanner: 'eslint', tool: 'ESLint', rule: 'security/detect-object-injection', expected: 'security' },
  { scanner: 'eslint', tool: 'ESLint', rule: 'no-eval', expected: 'security' },
  { scanner: 'eslint', tool: 'ESLint', rule: null, expected: 'quality' },
  { scanner: 'eslint', tool: 'ESLint', rule: 'no-console', kind: 'dependency', expected: 'security' },
  { scanner: 'pylint', tool: 'Pylint', rule: 'unused-import', expected: 'quality' },
  { scanner: 'pylint', tool: 'Pylint', rule: 'eval-used', expected: 'security' },
  { scanner: 'shellcheck', tool: 'ShellCheck', rule: 'SC2086', expected: 'quality' },
  { scanner: 'hadolint', tool: 'Hadolint', rule: 'DL3008', expected: 'quality' },
  { scanner: 'hadolint', tool: 'Hadolint', rule: 'DL3002', expected: 'security' },
  { scanner: 'cppcheck', tool: 'Cppcheck', rule: 'unusedVariable', cwes: [563], expected: 'quality' },
  { scanner: 'cppcheck', tool: 'Cppcheck', rule: 'arrayIndexOutOfBounds', cwes: [788], expected: 'security' },
  {
    scanner: 'gitlab_code_quality',
    tool: 'Code Climate',
    rule: 'complexity',
    description: 'Too complex\nCategories: Complexity',
    expected: 'quality',
  },
  {
    scanner: 'gitlab_code_quality',
    tool: 'Code Climate',
    rule: 'brakeman',
    description: 'SQL injection\nCategories: Bug Risk, Security',
    expected: 'security',
  },
  {
    scanner: 'sonarqube',
    tool: 'SonarQube',
    rule: 'java:S1481',
    description: 'x\nType: CODE_SMELL',
    expected: 'quality',
  },
  {
    scanner: 'sonarqube',
    tool: 'SonarQube',
    rule: 'java:S2076',
    description: 'x\nType: VULNERABILITY',
    expected: 'security',
  },
  { scanner: 'sarif', tool: 'ESLint', rule: 'no-console', expected: 'quality' },
  { scanner: 'sarif', tool: 'CodeQL', rule: 'js/unused-local-variable', expected: 'security' },
  {
    scanner: 'sarif',
    tool: 'Spectral',
    rule: 'owasp:api3:2019-define-error-responses-500',
    expected: 'security',
  },
  { scanner: 'sarif', tool: 'Spectral', rule: 'operation-description', expected: 'quality' },
  { scanner: 'semgrep', tool: 'Semgrep', rule: 'python.lang.correctness.useless-eqeq', expected: 'security' },
  { scanner: 'bandit', tool: 'Bandit', rule: 'B307', expected: 'security' },
  { scanner: 'trivy', tool: 'Trivy', rule: 'CVE-2024-0001', kind: 'dependency', expected: 'security' },
];

const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
const STATUSES = ['open', 'fixed', 'confirmed'] as const;

async function seed(db: Kysely<unknown>): Promise<void> {
  const one = async <T>(query: ReturnType<typeof sql<T>>): Promise<T> => {
    const row = (await query.execute(db)).rows[0];
    if (row === undefined) throw new Error('no row');
    return row;
  };
  const group = await one<{ id: number }>(
    sql`insert into groups (name, path) values ('g', 'g') returning id`,
  );
  const app = await one<{ id: number }>(sql`insert into applications
      (name, slug, group_id, asset_criticality, api_token_hash, api_token_prefix, api_token_encrypted)
      values ('a', 'a', ${group.id}, 'medium', 'h', 'p', 'e') returning id`);
  const version = await one<{ id: number }>(
    sql`insert into application_versions (application_id, name) values (${app.id}, 'main') returning id`,
  );
  const types = new Map<string, number>();
  for (const name of new Set(ROWS.map((row) => row.scanner))) {
    const type = await one<{ id: number }>(
      sql`insert into scanner_types (name, display_name) values (${name}, ${name}) returning id`,
    );
    types.set(name, type.id);
  }
  for (const [index, row] of ROWS.entries()) {
    const severity = SEVERITIES[index % SEVERITIES.length] ?? 'low';
    const status = STATUSES[index % STATUSES.length] ?? 'open';
    const rank = { critical: 5, high: 4, medium: 3, low: 2, info: 1 }[severity];
    const fixedAt = status === 'fixed' ? sql`now()` : sql`null`;
    const cwes = sql.raw(`array[${(row.cwes ?? []).join(',')}]::int[]`);
    await sql`insert into findings
        (application_id, version_id, scanner_type_id, fingerprint, identity_base, kind, title, severity,
         severity_rank, status, fixed_at, tool_name, rule_id, description, cwe_ids, risk_score, risk_severity,
         risk_exploitation, risk_age, risk_asset, risk_formula_version)
      values (${app.id}, ${version.id}, ${types.get(row.scanner)}, ${`fp-${index}`}, ${`fp-${index}`},
        ${row.kind ?? 'code'}, ${`finding ${index}`}, ${severity}, ${rank}, ${status}, ${fixedAt}, ${row.tool},
        ${row.rule}, ${row.description ?? null}, ${cwes}, ${10 + index}, 1, 0, 0, 0.5, 1)`.execute(db);
  }
}

describe('migration 2026-11-29T1000-finding-concern: the backfill', () => {
  it('makes lint rows quality except their security rules, leaves the rest security, and keeps the ledger summing to the findings', async () => {
    const { database, migrator, drop } = await emptyDatabase('scanhub_concern');
    try {
      const db = database.db as unknown as Kysely<unknown>;
      const names = Object.keys(migrations);
      expect(names[names.indexOf(CONCERN) - 1]).toBe(BEFORE);
      expect((await migrator.migrateTo(BEFORE)).error).toBeUndefined();
      await seed(db);
      // Before: the ledger has no concern and counts every finding.
      const before = await sql<{
        n: string;
      }>`select coalesce(sum(findings), 0)::text as n from finding_counts`.execute(db);
      expect(Number(before.rows[0]?.n)).toBe(ROWS.length);

      expect((await migrator.migrateTo(CONCERN)).error).toBeUndefined();

      const stored = await sql<{ fingerprint: string; concern: string }>`
        select fingerprint, concern from findings order by id`.execute(db);
      expect(stored.rows.map((row) => row.concern)).toEqual(ROWS.map((row) => row.expected));
      expect(new Set(ROWS.map((row) => row.expected))).toEqual(new Set(['security', 'quality']));

      // The ledger, per key with concern, equals the findings counted directly.
      const fromFindings = await sql<Record<string, string>>`
        select application_id, version_id, severity, status, concern,
          count(*)::text as findings, sum(risk_score)::text as risk,
          count(*) filter (where status = 'fixed' and fixed_at is not null)::text as fixed_timed
        from findings group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5`.execute(db);
      const fromLedger = await sql<Record<string, string>>`
        select application_id, version_id, severity, status, concern,
          sum(findings)::text as findings, sum(risk)::text as risk, sum(fixed_timed)::text as fixed_timed
        from finding_counts group by 1, 2, 3, 4, 5 having sum(findings) <> 0 order by 1, 2, 3, 4, 5`.execute(
        db,
      );
      expect(fromLedger.rows).toEqual(fromFindings.rows);
      const perConcern = await sql<{ concern: string; n: string }>`
        select concern, sum(findings)::text as n from finding_counts group by concern order by concern`.execute(
        db,
      );
      const expected = (concern: string) => ROWS.filter((row) => row.expected === concern).length;
      expect(perConcern.rows.map((row) => [row.concern, Number(row.n)])).toEqual([
        ['quality', expected('quality')],
        ['security', expected('security')],
      ]);
      const unpublished = await sql<{
        n: string;
      }>`select count(*)::text as n from finding_counts_unpublished`.execute(db);
      expect(unpublished.rows[0]?.n).toBe('0');

      // The rest of the migrations still apply over the backfilled rows.
      expect((await migrator.migrateToLatest()).error).toBeUndefined();
    } finally {
      await drop();
    }
  }, 120_000);
});
