import { Type } from 'typebox';
import { resourceOf } from '../../access/route-hook.ts';
import type { App, AppContext } from '../../app-context.ts';
import { currentPrincipal } from '../../http/auth.ts';
import { IdParams } from '../../http/schemas.ts';
import { VersionParams } from '../versions/versions.schema.ts';
import {
  ApplicationLicenseSchema,
  ComponentChangeSchema,
  ComponentSearchQuery,
  ComponentSearchResultSchema,
  SbomQuery,
  VersionComponentSchema,
} from './components.schema.ts';
import { componentChangesOfScan, recordSbomExport, versionSbom } from './sbom.service.ts';
import { componentsOfVersion, licensesOfApplication, searchComponents } from './components.service.ts';

export function componentRoutes(app: App, { db }: AppContext): void {
  app.get(
    '/api/components',
    {
      config: { access: 'components.list' },
      schema: {
        operationId: 'searchComponents',
        description:
          'Which applications, versions and branches ship a package: by `purl` (pkg:type/namespace/name, any version, or @version for one), `name` (with `ecosystem`) or `license` (an SPDX id); `range` keeps the versions in it, in the ecosystem’s own order. Each result has the component as the version lists it and the vulnerabilities scanhub holds on it. Only applications the caller may read. Results come grouped by application, then version (application id, version id, component id order), a page of `limit` at a time: `next_cursor`, given back as `cursor`, continues after the page (null on the last).',
        tags: ['components'],
        summary: 'Find the applications and versions that ship a package',
        querystring: ComponentSearchQuery,
        response: { 200: ComponentSearchResultSchema },
      },
    },
    async (request) => searchComponents(db, currentPrincipal(request), request.query),
  );

  app.get(
    '/api/applications/:id/versions/:versionId/components',
    {
      config: { access: 'version.read' },
      schema: {
        operationId: 'listVersionComponents',
        description:
          'The components of a version (from SBOMs and dependency scanners), with their vulnerabilities.',
        tags: ['components'],
        summary: 'Components of a version',
        params: VersionParams,
        response: { 200: Type.Array(VersionComponentSchema) },
      },
    },
    async (request) => componentsOfVersion(db, resourceOf(request, 'version').record.id),
  );

  app.get(
    '/api/applications/:id/versions/:versionId/sbom',
    {
      config: { access: 'version.read' },
      schema: {
        operationId: 'exportVersionSbom',
        description:
          'The version as a CycloneDX 1.6 JSON SBOM: its components and the vulnerabilities scanhub holds on them, each with an analysis from its finding’s status (open → in_triage, confirmed → exploitable, false_positive, fixed → resolved).',
        tags: ['components'],
        summary: 'Export a version’s SBOM (CycloneDX 1.6)',
        params: VersionParams,
        querystring: SbomQuery,
        response: {
          200: {
            description: 'CycloneDX 1.6 JSON',
            content: {
              'application/vnd.cyclonedx+json': {
                schema: Type.Object(
                  { bomFormat: Type.Literal('CycloneDX'), specVersion: Type.Literal('1.6') },
                  { additionalProperties: true },
                ),
              },
            },
          },
        },
      },
    },
    async (request, reply) => {
      const { application, record } = resourceOf(request, 'version');
      const bom = await versionSbom(db, application.id, record);
      await recordSbomExport(
        db,
        request.audit,
        application.id,
        record,
        request.query.format,
        bom.components.length,
      );
      return reply
        .type('application/vnd.cyclonedx+json')
        .header('content-disposition', `attachment; filename="sbom-${record.id}.cdx.json"`)
        .send(JSON.stringify(bom) as never);
    },
  );

  app.get(
    '/api/applications/:id/licenses',
    {
      config: { access: 'application.read' },
      schema: {
        operationId: 'listApplicationLicenses',
        description:
          'The licences of an application’s components, per SPDX expression, with the versions that ship them.',
        tags: ['components'],
        summary: 'Licences of an application’s components',
        params: IdParams,
        response: { 200: Type.Array(ApplicationLicenseSchema) },
      },
    },
    async (request) => licensesOfApplication(db, resourceOf(request, 'application').id),
  );

  app.get(
    '/api/scans/:id/component-changes',
    {
      config: { access: 'scan.read' },
      schema: {
        operationId: 'listScanComponentChanges',
        description:
          'What the scan’s upload added to and removed from its scope’s components (`component.added`, `component.removed`).',
        tags: ['scans'],
        summary: 'A scan’s component diff',
        params: IdParams,
        response: { 200: Type.Array(ComponentChangeSchema) },
      },
    },
    async (request) => componentChangesOfScan(db, resourceOf(request, 'scan').id),
  );
}
