import { Type } from 'typebox';
import { resourceOf } from '../../access/route-hook.ts';
import type { App, AppContext } from '../../app-context.ts';
import { IdParams } from '../../http/schemas.ts';
import { ScanSchema } from '../scans/scans.schema.ts';
import { scansOfVersion } from '../scans/scans.service.ts';
import { presentVersion } from './versions.presenter.ts';
import { CreateVersionBody, UpdateVersionBody, VersionParams, VersionSchema } from './versions.schema.ts';
import {
  createVersion,
  deleteVersion,
  listVersions,
  updateVersion,
  versionContentCounts,
} from './versions.service.ts';

const VersionDetailSchema = Type.Intersect([
  VersionSchema,
  Type.Object({
    scans: Type.Array(ScanSchema),
    /** Findings and scans that deleting the version removes with it. */
    finding_count: Type.Integer(),
    scan_count: Type.Integer(),
  }),
]);

export function versionRoutes(app: App, { db }: AppContext): void {
  app.get(
    '/api/applications/:id/versions',
    {
      config: { access: 'application.read' },
      schema: {
        operationId: 'listVersions',
        description: 'Versions of an application, the default first.',
        tags: ['versions'],
        summary: 'Versions of an application',
        params: IdParams,
        response: { 200: Type.Array(VersionSchema) },
      },
    },
    async (request) => listVersions(db, resourceOf(request, 'application')),
  );

  app.post(
    '/api/applications/:id/versions',
    {
      config: { access: 'version.write', problems: [409] },
      schema: {
        operationId: 'createVersion',
        description: 'Creates a version (409 when the name is taken). Uploads also create versions by name.',
        tags: ['versions'],
        summary: 'Create a version',
        params: IdParams,
        body: CreateVersionBody,
        response: { 201: VersionSchema },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await createVersion(db, resourceOf(request, 'application'), request.body)),
  );

  app.get(
    '/api/applications/:id/versions/:versionId',
    {
      config: { access: 'version.read' },
      schema: {
        operationId: 'getVersion',
        description:
          'A version by id or name, with its scans and how many findings and scans deleting it would remove.',
        tags: ['versions'],
        summary: 'A version (id or name) with its scans',
        params: VersionParams,
        response: { 200: VersionDetailSchema },
      },
    },
    async (request) => {
      const { record: version } = resourceOf(request, 'version');
      const [scans, counts] = await Promise.all([
        scansOfVersion(db, version.id),
        versionContentCounts(db, version.id),
      ]);
      return { ...presentVersion(version), scans, ...counts };
    },
  );

  app.patch(
    '/api/applications/:id/versions/:versionId',
    {
      config: { access: 'version.write', problems: [409] },
      schema: {
        operationId: 'updateVersion',
        description:
          'Renames a version, sets its branch or tag, or makes it the default (the previous default stops being one).',
        tags: ['versions'],
        summary: 'Rename a version, set branch or tag, or make it the default',
        params: VersionParams,
        body: UpdateVersionBody,
        response: { 200: VersionSchema },
      },
    },
    async (request) => updateVersion(db, resourceOf(request, 'version'), request.body),
  );

  app.delete(
    '/api/applications/:id/versions/:versionId',
    {
      config: { access: 'version.write', problems: [409] },
      schema: {
        operationId: 'deleteVersion',
        description:
          'Deletes a version with its scans and findings. The default version cannot be deleted (409).',
        tags: ['versions'],
        summary: 'Delete a version and its findings',
        params: VersionParams,
      },
    },
    async (request, reply) => {
      await deleteVersion(db, resourceOf(request, 'version'), request.audit);
      return reply.status(204).send();
    },
  );
}
