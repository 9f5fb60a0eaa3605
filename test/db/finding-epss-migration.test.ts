import { sql, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { emptyDatabase } from '../support/migration-database.ts';
import { migrations } from '../../src/db/migrations/index.ts';

/**
 * Migration 2026-11-29T1600-finding-epss's copy, on a database migrated up to just before it: each
 * finding's EPSS (`epss`, `epss_percentile`, `epss_snapshot_id` on its row) becomes one row of
 * `finding_epss` with its application, findings without one get none, the columns are gone, and the
 * triggers the migration installs keep the copy honest (a deleted finding's row goes, a deleted
 * snapshot is forgotten).
 */

const BEFORE = '2026-11-29T1400-report-epss';
const FINDING_EPSS = '2026-11-29T1600-finding-epss';

interface Seeded {
  fingerprint: string;
  application: number;
  epss: number | null;
  percentile: number | null;
  snapshot: number | null;
}

async function one<T>(db: Kysely<unknown>, query: ReturnType<typeof sql<T>>): Promise<T> {
  const row = (await query.execute(db)).rows[0];
  if (row === undefined) throw new Error('no row');
  return row;
}

/** Two applications' findings as the enrichment left them before 1600: some with EPSS, from a snapshot or not. */
async function seed(db: Kysely<unknown>): Promise<{ rows: Seeded[]; snapshots: number[] }> {
  const group = await one<{ id: number }>(
    db,
    sql`insert into groups (name, path) values ('g', 'g') returning id`,
  );
  const type = await one<{ id: number }>(
    db,
    sql`insert into scanner_types (name, display_name) values ('trivy', 'Trivy') returning id`,
  );
  const snapshots: number[] = [];
  for (const day of ['2026-11-01', '2026-11-02']) {
    const snapshot = await one<{ id: number }>(
      db,
      sql`insert into enrichment_snapshots (source, format, version, data_date, origin, current)
        values ('epss', 'epss_csv', 'v2025.03.14', ${day}::date, 'upload', ${day === '2026-11-02'}) returning id`,
    );
    snapshots.push(snapshot.id);
  }
  const rows: Seeded[] = [];
  for (const name of ['a', 'b']) {
    const app = await one<{ id: number }>(
      db,
      sql`insert into applications
        (name, slug, group_id, asset_criticality, api_token_hash, api_token_prefix, api_token_encrypted)
        values (${name}, ${name}, ${group.id}, 'medium', ${`h-${name}`}, ${name}, 'e') returning id`,
    );
    const version = await one<{ id: number }>(
      db,
      sql`insert into application_versions (application_id, name) values (${app.id}, 'main') returning id`,
    );
    const values: [number | null, number | null, number | null][] = [
      [0.97, 0.999, snapshots[1]!],
      [0.00043, 0.1, snapshots[0]!],
      // A report's value before report_epss existed: no snapshot, no percentile.
      [0.2, null, null],
      [null, null, null],
      [0, 0, snapshots[1]!],
    ];
    for (const [index, [epss, percentile, snapshot]] of values.entries()) {
      const fingerprint = `${name}-${index}`;
      await sql`insert into findings
          (application_id, version_id, scanner_type_id, fingerprint, identity_base, kind, title, severity,
           severity_rank, status, tool_name, cve_ids, risk_score, risk_severity, risk_exploitation, risk_age,
           risk_asset, risk_formula_version, epss, epss_percentile, epss_snapshot_id)
        values (${app.id}, ${version.id}, ${type.id}, ${fingerprint}, ${fingerprint}, 'dependency',
          ${`finding ${fingerprint}`}, 'high', 4, 'open', 'Trivy', array[${`CVE-2031-000${index}`}]::text[], 50, 8,
          0.2, 0, 0.65, 1, ${epss}, ${percentile}, ${snapshot})`.execute(db);
      rows.push({ fingerprint, application: app.id, epss, percentile, snapshot });
    }
  }
  return { rows, snapshots };
}

describe('migration 2026-11-29T1600-finding-epss: the copy of existing EPSS', () => {
  it("moves each finding's EPSS, percentile and snapshot into finding_epss, none for findings without, and keeps it honest after", async () => {
    const { database, migrator, drop } = await emptyDatabase('scanhub_fepss');
    try {
      const db = database.db as unknown as Kysely<unknown>;
      const names = Object.keys(migrations);
      expect(names.indexOf(FINDING_EPSS)).toBeGreaterThan(names.indexOf(BEFORE));
      expect((await migrator.migrateTo(BEFORE)).error).toBeUndefined();
      const { rows, snapshots } = await seed(db);

      expect((await migrator.migrateTo(FINDING_EPSS)).error).toBeUndefined();

      const copied = await sql<{
        fingerprint: string;
        application_id: number;
        epss: number;
        percentile: number | null;
        snapshot_id: number | null;
      }>`select f.fingerprint, e.application_id, e.epss, e.percentile, e.snapshot_id
        from finding_epss e join findings f on f.id = e.finding_id order by f.fingerprint`.execute(db);
      const expected = rows
        .filter((row) => row.epss !== null)
        .map((row) => ({
          fingerprint: row.fingerprint,
          application_id: row.application,
          epss: row.epss,
          percentile: row.percentile,
          snapshot_id: row.snapshot,
        }))
        .sort((a, b) => a.fingerprint.localeCompare(b.fingerprint));
      expect(expected).toHaveLength(8);
      expect(copied.rows).toEqual(expected);
      // Not one row more than the findings with an EPSS (no orphan, none for a finding without).
      const count = await one<{ n: string }>(db, sql`select count(*)::text as n from finding_epss`);
      expect(Number(count.n)).toBe(expected.length);
      // The columns left the finding's row.
      const left = await sql<{ column_name: string }>`select column_name from information_schema.columns
        where table_name = 'findings' and table_schema = current_schema()
          and column_name in ('epss', 'epss_percentile', 'epss_snapshot_id')`.execute(db);
      expect(left.rows).toEqual([]);

      // Kept honest: a deleted finding takes its row along; a deleted snapshot is forgotten.
      await sql`delete from findings where fingerprint = 'a-0'`.execute(db);
      await sql`delete from enrichment_snapshots where id = ${snapshots[0]!}`.execute(db);
      const after = await sql<{ fingerprint: string; snapshot_id: number | null }>`
        select f.fingerprint, e.snapshot_id from finding_epss e join findings f on f.id = e.finding_id
        order by f.fingerprint`.execute(db);
      expect(after.rows).toEqual(
        expected
          .filter((row) => row.fingerprint !== 'a-0')
          .map((row) => ({
            fingerprint: row.fingerprint,
            snapshot_id: row.snapshot_id === snapshots[0] ? null : row.snapshot_id,
          })),
      );
      const orphans = await one<{ n: string }>(
        db,
        sql`select count(*)::text as n from finding_epss e where not exists (select 1 from findings f where f.id = e.finding_id)`,
      );
      expect(orphans.n).toBe('0');

      // The rest of the migrations still apply over the copied rows.
      expect((await migrator.migrateToLatest()).error).toBeUndefined();
    } finally {
      await drop();
    }
  }, 120_000);
});
