import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { resourceOf } from '../../access/route-hook.ts';
import type { App, AppContext } from '../../app-context.ts';
import { currentUser } from '../../http/auth.ts';
import { unauthorized } from '../../errors.ts';
import { spoolDirOf } from '../../ingest/process-instance.ts';
import { IdParams } from '../../http/schemas.ts';
import { IngestResultSchema } from '../scans/scans.schema.ts';
import { ingestUpload } from '../../ingest/ingest-upload.ts';
import { presentIngest, type IngestResponse } from './ingest.presenter.ts';
import { readIngestForm } from './multipart.ts';

const IngestQuery = Type.Object({ async: Type.Optional(Type.Boolean()) });

/** The ingest form (documentation; `readIngestForm` reads it). Each field also has its twin spelling. */
const IngestForm = Type.Object({
  file: Type.String({ format: 'binary', description: 'The scanner report (gzip accepted)' }),
  version: Type.Optional(Type.String({ description: 'Version name (created if new); also `version_name`' })),
  branch: Type.Optional(Type.String({ description: 'Branch; names the version when `version` is absent' })),
  scannerType: Type.Optional(
    Type.String({
      description: 'Format, when detection should not decide; also `scanner_type`, `scan_type`',
    }),
  ),
  category: Type.Optional(
    Type.String({
      description:
        'A scope of its own, like GitHub upload-sarif `category`: replaces SARIF `automationDetails.id`; absence from this upload closes only findings of this category',
    }),
  ),
  partial: Type.Optional(
    Type.Boolean({
      description:
        "The upload covers part of the tree: absence closes only findings in the files it covers (its results' files and SARIF `artifacts`)",
    }),
  ),
  root: Type.Optional(
    Type.String({
      description:
        'The scanned directory (the CLI sends its working directory): stripped from the front of every path; also `root_path`',
    }),
  ),
});
const responses = { 201: IngestResultSchema, 202: IngestResultSchema };
const consumes = ['multipart/form-data'];
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,200}$/;

function idempotencyKey(request: FastifyRequest): string | undefined {
  const value = request.headers['idempotency-key'];
  const key = Array.isArray(value) ? value[0] : value;
  return key && IDEMPOTENCY_KEY.test(key) ? key : undefined;
}

export function ingestRoutes(app: App, context: AppContext): void {
  const { config } = context;

  async function run(
    request: FastifyRequest,
    applicationId: number,
    uploadedBy: number | null,
    asyncMode: boolean,
  ) {
    const form = await readIngestForm(request, {
      spoolDir: spoolDirOf(config.dataDir),
      uploadLimitBytes: config.uploadLimitBytes,
    });
    const principal = request.principal;
    const ingested = await ingestUpload(
      context,
      form.file,
      {
        applicationId,
        versionName: form.version,
        branch: form.branch,
        scannerType: form.scannerType,
        category: form.category,
        partial: form.partial,
        root: form.root,
        uploadedBy,
        uploadedVia: principal?.kind === 'user' ? principal.via : 'application_token',
        idempotencyKey: idempotencyKey(request),
        audit: request.audit,
      },
      { async: asyncMode },
    );
    return presentIngest(ingested);
  }

  /** Marks an idempotent replay so a CI log can tell a retry from a fresh upload. */
  const replayHeader = (result: IngestResponse): Record<string, string> =>
    result.replayed ? { 'idempotent-replayed': 'true' } : {};

  app.post(
    '/api/ingest',
    {
      config: { access: 'application.ingest', multipartForm: IngestForm, problems: [413, 415, 422, 503] },
      schema: {
        operationId: 'ingestWithToken',
        description:
          'Uploads a scanner report (multipart field `file`, optionally gzip) with the application API token. The format is detected from the content unless `scanner_type` names it. 201 with the scan and its counts; with `?async=true`, 202 with a pending scan to poll. An `Idempotency-Key` header replays the first answer to a retry.',
        tags: ['ingest'],
        summary: 'Upload scanner results with the application API token (X-Api-Token)',
        consumes,
        querystring: IngestQuery,
        response: responses,
      },
    },
    async (request, reply) => {
      const principal = request.principal;
      if (principal?.kind !== 'application_token') throw unauthorized();
      const result = await run(request, principal.applicationId, null, request.query.async ?? false);
      return reply.headers(replayHeader(result)).status(result.status).send(result.body);
    },
  );

  app.post(
    '/api/applications/:id/ingest',
    {
      config: { access: 'application.write', multipartForm: IngestForm, problems: [409, 413, 415, 422, 503] },
      schema: {
        operationId: 'ingestToApplication',
        description:
          'Uploads a scanner report to the application named by id or slug, with a user credential that holds write on it. Same form and answers as `ingestWithToken`.',
        tags: ['ingest'],
        summary: 'Upload scanner results to an application (API key with write permission)',
        consumes,
        params: IdParams,
        querystring: IngestQuery,
        response: responses,
      },
    },
    async (request, reply) => {
      const user = currentUser(request);
      const application = resourceOf(request, 'application');
      const result = await run(request, application.id, user.id, request.query.async ?? false);
      return reply.headers(replayHeader(result)).status(result.status).send(result.body);
    },
  );

  app.post(
    '/api/groups/:group_id/applications/:slug/ingest',
    {
      config: { access: 'application.write', multipartForm: IngestForm, problems: [413, 415, 422, 503] },
      schema: {
        operationId: 'ingestToGroupApplication',
        description:
          'Uploads a scanner report to the application named by group (id or path) and slug. Same form and answers as `ingestWithToken`.',
        tags: ['ingest'],
        summary: 'Upload scanner results to an application named by group (id or path) and slug',
        consumes,
        params: Type.Object({ group_id: Type.String(), slug: Type.String() }),
        querystring: IngestQuery,
        response: responses,
      },
    },
    async (request, reply) => {
      const user = currentUser(request);
      const application = resourceOf(request, 'application');
      const result = await run(request, application.id, user.id, request.query.async ?? false);
      return reply.headers(replayHeader(result)).status(result.status).send(result.body);
    },
  );
}
