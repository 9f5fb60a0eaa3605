import { sql, type Kysely } from 'kysely';
import { PackageURL } from 'packageurl-js';
import type { VersionRow } from '../../access/resources.ts';
import type { DB } from '../../db/schema.ts';
import { AppError } from '../../errors.ts';
import { PACKAGE_VERSION } from '../../package-root.ts';
import { findingNames } from '../components/component-vulnerabilities.ts';
import { presentCycloneDxVex, presentOpenVex, type VexSubject } from './vex-documents.presenter.ts';
import { statementsOf, type VexFinding } from './vex-statements.ts';
import type { VexFormat } from './vex.schema.ts';

/** Findings of one version read for a VEX document; a version with more is refused (409). */
export const MAX_VEX_FINDINGS = 100_000;

/**
 * The package URL of each (package name, version) the version's components list: the component's
 * own purl (the lowest when several tools list it). A finding whose package no component lists gets
 * a generic purl of its name and version.
 */
async function purlsOf(db: Kysely<DB>, versionId: number) {
  const rows = await db
    .selectFrom('components')
    .select(['purl', 'namespace', 'name', 'version'])
    .where('version_id', '=', versionId)
    .orderBy('purl')
    .execute();
  const byName = new Map<string, string>();
  for (const row of rows) {
    for (const name of findingNames(row)) {
      const key = `${name.toLowerCase()}\u0000${row.version ?? ''}`;
      if (!byName.has(key)) byName.set(key, row.purl);
    }
  }
  return (name: string | null, version: string | null): string | null => {
    if (name === null) return null;
    const known = byName.get(`${name.toLowerCase()}\u0000${version ?? ''}`);
    return known ?? new PackageURL('generic', null, name, version, null, null).toString();
  };
}

/** The vulnerability findings of a version, with their acceptances and purls, in id order. */
export async function vexFindingsOf(db: Kysely<DB>, versionId: number): Promise<VexFinding[]> {
  const rows = await db
    .selectFrom('findings as f')
    .leftJoin('acceptances as a', 'a.id', 'f.acceptance_id')
    .select([
      'f.id',
      'f.kind',
      'f.status',
      // Triaged: reviewed, assigned, or moved by a person; an open finding nobody touched is under investigation.
      sql<boolean>`(f.reviewed_at is not null or f.assignee_id is not null or exists (
        select 1 from finding_events e where e.finding_id = f.id and e.actor_user_id is not null
          and e.type in ('status_changed', 'reviewed', 'reopened')))`.as('triaged'),
      'f.rule_id',
      'f.cve_ids',
      'f.package_name',
      'f.package_version',
      'f.fixed_version',
      'f.remediation',
      'f.dismissal_reason',
      'f.dismissal_comment',
      'a.id as acceptance_id',
      'a.reason as acceptance_reason',
      'a.justification',
      'a.impact_statement',
      'a.comment as acceptance_comment',
      'a.expires_at',
    ])
    .where('f.version_id', '=', versionId)
    .where(sql<boolean>`(cardinality(f.cve_ids) > 0 or (f.kind = 'dependency' and f.rule_id is not null))`)
    .orderBy('f.id')
    .limit(MAX_VEX_FINDINGS + 1)
    .execute();
  if (rows.length > MAX_VEX_FINDINGS) {
    throw new AppError(
      409,
      'too_many_findings',
      `A VEX document covers at most ${MAX_VEX_FINDINGS} findings`,
    );
  }
  const purlOf = await purlsOf(db, versionId);
  return rows.map((row) => ({
    id: row.id,
    kind: row.kind,
    status: row.status,
    reviewed: row.triaged === true,
    rule_id: row.rule_id,
    cve_ids: row.cve_ids,
    package_name: row.package_name,
    package_version: row.package_version,
    fixed_version: row.fixed_version,
    remediation: row.remediation,
    dismissal_reason: row.dismissal_reason,
    dismissal_comment: row.dismissal_comment,
    purl: purlOf(row.package_name, row.package_version),
    acceptance:
      row.acceptance_id === null || row.acceptance_reason === null
        ? null
        : {
            reason: row.acceptance_reason,
            justification: row.justification,
            impact_statement: row.impact_statement,
            comment: row.acceptance_comment,
            expires_at: row.expires_at,
          },
  }));
}

/**
 * A version's VEX document. OpenVEX needs at least one statement: a version with no vulnerability
 * finding is a 409 `nothing_to_state` in that format (CycloneDX allows an empty list).
 */
export async function versionVex(
  db: Kysely<DB>,
  applicationId: number,
  version: VersionRow,
  format: VexFormat,
  now = new Date(),
) {
  const application = await db
    .selectFrom('applications')
    .select(['id', 'name', 'slug'])
    .where('id', '=', applicationId)
    .executeTakeFirstOrThrow();
  const statements = statementsOf(await vexFindingsOf(db, version.id));
  const subject: VexSubject = {
    application,
    version: { id: version.id, name: version.name },
    tool: { name: 'scanhub', version: PACKAGE_VERSION },
    now,
  };
  if (format === 'cyclonedx') return presentCycloneDxVex(subject, statements);
  if (statements.length === 0) {
    throw new AppError(
      409,
      'nothing_to_state',
      'The version has no vulnerability findings: an OpenVEX document needs at least one statement',
    );
  }
  return presentOpenVex(subject, statements);
}
