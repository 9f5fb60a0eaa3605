import { resourceOf } from '../../access/route-hook.ts';
import type { App, AppContext } from '../../app-context.ts';
import { currentUser } from '../../http/auth.ts';
import { IdParams } from '../../http/schemas.ts';
import { VersionParams } from '../versions/versions.schema.ts';
import { versionVex } from './vex-export.service.ts';
import { importVex } from './vex-import.service.ts';
import { VexDocumentBody, VexExportQuery, VexImportReportSchema } from './vex.schema.ts';
import { Type } from 'typebox';

const tags = ['vex'];

/** VEX out per version, VEX in per application (issue 46, items 5 and 6). */
export function vexRoutes(app: App, { db }: AppContext): void {
  app.get(
    '/api/applications/:id/versions/:versionId/vex',
    {
      config: { access: 'version.read' },
      schema: {
        operationId: 'exportVersionVex',
        description:
          'What scanhub states about the version’s vulnerabilities (findings with a CVE, and dependency findings), one statement per vulnerability and package URL, as OpenVEX 0.2.0 (`format=openvex`) or CycloneDX 1.6 VEX (`format=cyclonedx`). Accepted with a justification or impact statement → not_affected; false positive → not_affected (vulnerable_code_not_present); fixed → fixed; open and untriaged → under_investigation; confirmed or triaged → affected, with an action statement; an accepted risk without a justification → affected (will not fix, until its expiry). The same state gives the same document except its timestamp; the document id is derived from the content. OpenVEX needs at least one statement: 409 `nothing_to_state` otherwise.',
        tags,
        summary: 'Export a version’s VEX (OpenVEX or CycloneDX)',
        params: VersionParams,
        querystring: VexExportQuery,
        response: {
          200: {
            description: 'OpenVEX 0.2.0 JSON or CycloneDX 1.6 JSON',
            content: {
              'application/vnd.openvex+json': { schema: Type.Object({}, { additionalProperties: true }) },
              'application/vnd.cyclonedx+json': { schema: Type.Object({}, { additionalProperties: true }) },
            },
          },
        },
      },
    },
    async (request, reply) => {
      const { application, record } = resourceOf(request, 'version');
      const format = request.query.format;
      const document = await versionVex(db, application.id, record, format);
      const [type, extension] =
        format === 'openvex'
          ? ['application/vnd.openvex+json', 'openvex.json']
          : ['application/vnd.cyclonedx+json', 'vex.cdx.json'];
      return reply
        .type(type)
        .header('content-disposition', `attachment; filename="vex-${record.id}.${extension}"`)
        .send(JSON.stringify(document) as never);
    },
  );

  app.post(
    '/api/applications/:id/vex',
    {
      config: { access: 'application.write' },
      schema: {
        operationId: 'importApplicationVex',
        description:
          'Loads a VEX document (OpenVEX 0.2.0 or CycloneDX VEX, JSON, told apart by its content) into the application: each statement is matched to findings of any version by vulnerability id (name or alias, against CVEs and advisory ids) and package URL (against the package name and version; a statement naming no package URL speaks for the whole application). not_affected makes an acceptance (reason false_positive, the document’s justification, impact statement and author; pending under four-eyes), fixed a timeline entry, under_investigation and affected a comment. The answer lists what matched and what did not, and why. A malformed document is a 400 naming each JSON path, and changes nothing; the same document again (or its statements in another order) changes nothing.',
        tags,
        summary: 'Import a VEX document into an application',
        params: IdParams,
        body: VexDocumentBody,
        response: { 200: VexImportReportSchema },
      },
    },
    async (request) =>
      importVex(db, currentUser(request), resourceOf(request, 'application'), request.body, request.audit),
  );
}
