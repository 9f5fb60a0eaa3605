import { Readable } from 'node:stream';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';
import { systemAuditContext } from '../../events/audit.ts';
import { AppError } from '../../errors.ts';
import { capFindingFields } from '../../ingest/cap-fields.ts';
import { findingIdentity } from '../../ingest/fingerprint.ts';
import {
  LICENSE_POLICY_MARKER,
  LICENSE_POLICY_SCANNER,
  violationFinding,
  type LicenseViolation,
} from '../../ingest/parse/parsers/license-policy.ts';
import { ingestPrepared, prepareUpload } from '../../ingest/pipeline.ts';
import { spoolDirOf } from '../../ingest/process-instance.ts';
import { removeSpooled, spoolToFile } from '../../ingest/spool.ts';
import { evaluateLicense, type LicenseRule, type Verdict } from './license-evaluation.ts';

/**
 * Evaluating a version's components against the licence policies in force (docs/architecture.md,
 * "Licence policies"). The violations are written as scanhub's own `license-policy` report and go
 * through the ordinary upload pipeline into the scope (version + `scanhub license policy` + no
 * category): new findings are created (and announced), absent ones fixed, returning ones reopened,
 * triage inherited across versions — exactly as for a scanner's re-upload. An evaluation that would
 * change nothing (same findings present, same severity, title and description) writes nothing.
 */

export interface EvaluationDeps {
  db: Kysely<DB>;
  database: Database;
  config: { dataDir: string };
}

export type EvaluationOutcome = 'unchanged' | 'written' | 'gone' | 'disabled';

/** The enabled policies in force for an application: the global ones, its group's and its ancestors'. */
export async function rulesFor(db: Kysely<DB>, applicationId: number): Promise<LicenseRule[]> {
  const { rows } = await sql<LicenseRule>`
    select lp.id, lp.name, lp.mode, lp.licenses, lp.severity from license_policies lp
    where lp.enabled and (lp.owner_group_id is null or lp.owner_group_id in (
      select anc.id from applications app join groups g on g.id = app.group_id
      join groups anc on anc.id = g.id or starts_with(g.path, anc.path || '/')
      where app.id = ${applicationId}))
    order by lp.id`.execute(db);
  return rows;
}

const MAX_LICENSE = 500;

function describe(verdict: Verdict): string {
  return verdict.reasons
    .map(
      (reason) =>
        `${reason.mode === 'deny' ? 'Denied by' : 'Not allowed by'} licence policy “${reason.policy}”: ${reason.licenses.join(', ')}`,
    )
    .join('\n');
}

/** The violations of a version's components: one per package and licence (an identity of its findings). */
export async function violationsOf(
  db: Kysely<DB>,
  versionId: number,
  rules: readonly LicenseRule[],
): Promise<LicenseViolation[]> {
  if (rules.length === 0) return [];
  const components = await db
    .selectFrom('components')
    .select(['package', 'ecosystem', 'namespace', 'name', 'version', 'licenses'])
    .where('version_id', '=', versionId)
    .where('licenses', 'is not', null)
    .orderBy('package')
    .orderBy('version')
    .execute();
  const verdicts = new Map<string, Verdict | null>();
  const byIdentity = new Map<string, LicenseViolation>();
  for (const component of components) {
    const license = (component.licenses ?? '').slice(0, MAX_LICENSE);
    if (!verdicts.has(license)) verdicts.set(license, evaluateLicense(license, rules));
    const verdict = verdicts.get(license);
    if (!verdict) continue;
    const key = JSON.stringify([component.package, license]);
    const existing = byIdentity.get(key);
    const name = component.namespace ? `${component.namespace}/${component.name}` : component.name;
    if (existing) {
      // Several versions of one package (two tools, two manifests): one finding naming them all.
      if (component.version !== null && !existing.version?.split(', ').includes(component.version)) {
        existing.version =
          existing.version === null ? component.version : `${existing.version}, ${component.version}`;
      }
      continue;
    }
    byIdentity.set(key, {
      package: component.package,
      ecosystem: component.ecosystem,
      name,
      version: component.version,
      license,
      severity: verdict.severity,
      title: `Licence ${license} of ${name} breaks the licence policy`,
      description: describe(verdict),
    });
  }
  return [...byIdentity.values()];
}

/** What the merge would store for these violations: fingerprint → the fields an evaluation refreshes. */
function expectedRows(violations: readonly LicenseViolation[]): Map<string, string> {
  return new Map(
    violations.map((violation) => {
      const finding = capFindingFields(violationFinding(violation));
      const { base } = findingIdentity(LICENSE_POLICY_SCANNER, finding);
      return [
        base,
        JSON.stringify([finding.severity, finding.title, finding.description, finding.packageVersion]),
      ];
    }),
  );
}

/** Whether the version's present licence findings are exactly `expected` (nothing to write). */
async function unchanged(db: Kysely<DB>, versionId: number, expected: Map<string, string>): Promise<boolean> {
  const present = await db
    .selectFrom('findings as f')
    .innerJoin('scanner_types as st', 'st.id', 'f.scanner_type_id')
    .select(['f.fingerprint', 'f.severity', 'f.title', 'f.description', 'f.package_version'])
    .where('f.version_id', '=', versionId)
    .where('st.name', '=', LICENSE_POLICY_SCANNER)
    .where('f.present', '=', true)
    .execute();
  if (present.length !== expected.size) return false;
  return present.every(
    (row) =>
      expected.get(row.fingerprint) ===
      JSON.stringify([row.severity, row.title, row.description, row.package_version]),
  );
}

/**
 * Evaluates one version: `unchanged` (nothing written), `written` (an evaluation scan merged),
 * `gone` (the version no longer exists), `disabled` (an admin disabled the `license-policy` scanner type).
 */
export async function evaluateVersion(deps: EvaluationDeps, versionId: number): Promise<EvaluationOutcome> {
  const { db } = deps;
  const version = await db
    .selectFrom('application_versions')
    .select(['id', 'name', 'application_id'])
    .where('id', '=', versionId)
    .executeTakeFirst();
  if (!version) return 'gone';
  const rules = await rulesFor(db, version.application_id);
  const violations = await violationsOf(db, versionId, rules);
  if (await unchanged(db, versionId, expectedRows(violations))) return 'unchanged';
  const report = JSON.stringify({ [LICENSE_POLICY_MARKER]: 1, violations });
  const spooled = await spoolToFile(Readable.from([Buffer.from(report)]), spoolDirOf(deps.config.dataDir));
  try {
    const file = { ...spooled, name: 'license-policy-evaluation.json' };
    const prepared = await prepareUpload(db, file, LICENSE_POLICY_SCANNER, 'scanhub').catch(
      (error: unknown) => {
        if (error instanceof AppError && error.code === 'scanner_type_disabled') return null;
        throw error;
      },
    );
    if (prepared === null) return 'disabled';
    await ingestPrepared(deps.database, prepared, file, {
      applicationId: version.application_id,
      versionName: version.name,
      scannerType: LICENSE_POLICY_SCANNER,
      uploadedBy: null,
      uploadedVia: 'system',
      audit: systemAuditContext('licence policy evaluation'),
    });
    return 'written';
  } finally {
    await removeSpooled(spooled.path);
  }
}

/**
 * The versions a change of policy may affect: those with components in the applications the policy
 * covers (all for a global one, the owner group's subtree otherwise), and those with licence findings
 * present (their components may be gone).
 */
export async function versionsCovered(db: Kysely<DB>, ownerGroupId: number | null): Promise<number[]> {
  const inScope =
    ownerGroupId === null
      ? sql`true`
      : sql`app.group_id in (select g.id from groups g join groups owner on owner.id = ${ownerGroupId}
          where g.id = owner.id or starts_with(g.path, owner.path || '/'))`;
  const { rows } = await sql<{ version_id: number }>`
    select v.id as version_id from application_versions v join applications app on app.id = v.application_id
    where ${inScope} and (
      exists (select 1 from components c where c.version_id = v.id and c.licenses is not null)
      or exists (select 1 from findings f join scanner_types st on st.id = f.scanner_type_id
        where f.version_id = v.id and st.name = ${LICENSE_POLICY_SCANNER} and f.present))
    order by v.id`.execute(db);
  return rows.map((row) => row.version_id);
}
