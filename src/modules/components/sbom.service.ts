import type { Kysely } from 'kysely';
import type { VersionRow } from '../../access/resources.ts';
import type { DB } from '../../db/schema.ts';
import { recordAudit, type AuditContext } from '../../events/audit.ts';
import { PACKAGE_VERSION } from '../../package-root.ts';
import { componentsOfVersion } from './components.service.ts';
import { presentCycloneDx } from './cyclonedx.presenter.ts';

/** A version's SBOM (CycloneDX 1.6 JSON), `now` its timestamp. */
export async function versionSbom(
  db: Kysely<DB>,
  applicationId: number,
  version: VersionRow,
  now = new Date(),
) {
  const application = await db
    .selectFrom('applications')
    .select(['id', 'name'])
    .where('id', '=', applicationId)
    .executeTakeFirstOrThrow();
  const components = await componentsOfVersion(db, version.id);
  return presentCycloneDx(
    {
      application,
      version: { id: version.id, name: version.name, branch: version.branch },
      tool: { name: 'scanhub', version: PACKAGE_VERSION },
      now,
    },
    components,
  );
}

/**
 * An SBOM export is an audit row of its own (who took which version's inventory out, in what
 * format), in a transaction of its own: nothing else commits.
 */
export async function recordSbomExport(
  db: Kysely<DB>,
  audit: AuditContext,
  applicationId: number,
  version: VersionRow,
  format: string,
  components: number,
): Promise<void> {
  await db.transaction().execute((trx) =>
    recordAudit(trx, audit, {
      action: 'sbom.exported',
      target: { type: 'version', id: version.id, label: version.name },
      applicationId,
      details: { format, spec_version: '1.6', components },
    }),
  );
}

/** The scan's component diff, added first, each in purl order. */
export function componentChangesOfScan(db: Kysely<DB>, scanId: number) {
  return db
    .selectFrom('scan_component_changes')
    .select(['change', 'purl', 'name', 'version'])
    .where('scan_id', '=', scanId)
    .orderBy('change')
    .orderBy('purl')
    .execute();
}
