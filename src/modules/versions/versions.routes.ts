import { Type } from 'typebox';
import type { App, AppContext } from '../../app-context.ts';
import { currentUser } from '../../http/auth.ts';
import { IdParams } from '../../http/schemas.ts';
import { ScanSchema } from '../scans/scans.schema.ts';
import { scansOfVersion } from '../scans/scans.service.ts';
import { presentVersion } from './versions.presenter.ts';
import { CreateVersionBody, UpdateVersionBody, VersionParams, VersionSchema } from './versions.schema.ts';
import {
  createVersion,
  deleteVersion,
  listVersions,
  requireVersion,
  updateVersion,
} from './versions.service.ts';

const VersionDetailSchema = Type.Intersect([VersionSchema, Type.Object({ scans: Type.Array(ScanSchema) })]);

export function versionRoutes(app: App, { db }: AppContext): void {
  app.get(
    '/api/applications/:id/versions',
    {
      schema: {
        tags: ['versions'],
        summary: 'Versions of an application',
        params: IdParams,
        response: { 200: Type.Array(VersionSchema) },
      },
    },
    async (request) => listVersions(db, currentUser(request), request.params.id),
  );

  app.post(
    '/api/applications/:id/versions',
    {
      schema: {
        tags: ['versions'],
        summary: 'Create a version',
        params: IdParams,
        body: CreateVersionBody,
        response: { 201: VersionSchema },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await createVersion(db, currentUser(request), request.params.id, request.body)),
  );

  app.get(
    '/api/applications/:id/versions/:versionId',
    {
      schema: {
        tags: ['versions'],
        summary: 'A version (id or name) with its scans',
        params: VersionParams,
        response: { 200: VersionDetailSchema },
      },
    },
    async (request) => {
      const { version } = await requireVersion(
        db,
        currentUser(request),
        request.params.id,
        request.params.versionId,
        'read',
      );
      return { ...presentVersion(version), scans: await scansOfVersion(db, version.id) };
    },
  );

  app.patch(
    '/api/applications/:id/versions/:versionId',
    {
      schema: {
        tags: ['versions'],
        summary: 'Rename a version, set branch or tag, or make it the default',
        params: VersionParams,
        body: UpdateVersionBody,
        response: { 200: VersionSchema },
      },
    },
    async (request) =>
      updateVersion(db, currentUser(request), request.params.id, request.params.versionId, request.body),
  );

  app.delete(
    '/api/applications/:id/versions/:versionId',
    { schema: { tags: ['versions'], summary: 'Delete a version and its findings', params: VersionParams } },
    async (request, reply) => {
      await deleteVersion(db, currentUser(request), request.params.id, request.params.versionId);
      return reply.status(204).send();
    },
  );
}
