import type { App, AppContext } from '../../app-context.ts';
import { currentUser } from '../../http/auth.ts';
import { spoolDirOf } from '../../ingest/process-instance.ts';
import { removeSpooled } from '../../ingest/spool.ts';
import { readEnrichmentForm } from './enrichment-form.ts';
import {
  EnrichmentStatusSchema,
  ImportForm,
  ImportResultSchema,
  UpdateEnrichmentSettingsBody,
} from './enrichment.schema.ts';
import { importEnrichmentFile } from './enrichment.service.ts';
import { enrichmentStatus, updateEnrichmentSettings } from './enrichment-status.service.ts';

const tags = ['enrichment'];

export function enrichmentRoutes(app: App, context: AppContext): void {
  const { db, config } = context;

  app.post(
    '/api/admin/enrichment',
    {
      config: { access: 'enrichment.import', multipartForm: ImportForm, problems: [409, 413, 415] },
      schema: {
        operationId: 'importEnrichment',
        description:
          'Imports a FIRST EPSS CSV (`#model_version:…,score_date:…` header) or a CISA KEV catalog (JSON or CSV), plain or gzip, as one snapshot with its provenance; the format is told from the content. The same snapshot again merges (a file twice changes nothing; a file in pieces ends in the same state); a newer one replaces the data; an older one is refused (409 `stale_snapshot`) unless `force=true`. A malformed file is a 400 naming the line or field, and changes nothing. Findings are re-scored by a background job.',
        tags,
        summary: 'Import EPSS or KEV data (admin, or permission enrichment.import)',
        consumes: ['multipart/form-data'],
        response: { 200: ImportResultSchema, 201: ImportResultSchema },
      },
    },
    async (request, reply) => {
      const user = currentUser(request);
      const form = await readEnrichmentForm(request, {
        spoolDir: spoolDirOf(config.dataDir),
        uploadLimitBytes: config.uploadLimitBytes,
      });
      try {
        const result = await importEnrichmentFile(context, form.file.path, {
          force: form.force,
          fileName: form.file.name,
          sha256: form.file.sha256,
          origin: 'upload',
          importedBy: user.id,
          audit: request.audit,
        });
        return reply.status(result.outcome === 'imported' ? 201 : 200).send(result);
      } finally {
        await removeSpooled(form.file.path);
      }
    },
  );

  app.get(
    '/api/enrichment/status',
    {
      config: { access: 'enrichment.read' },
      schema: {
        operationId: 'getEnrichmentStatus',
        description:
          "Each source's current snapshot (version, data date, rows, age in days; stale past 7 days), whether a fetch URL is configured, the settings, and how many readable findings are KEV-listed or carry EPSS.",
        tags,
        summary: 'EPSS and KEV data: snapshots and age',
        response: { 200: EnrichmentStatusSchema },
      },
    },
    async (request) => enrichmentStatus(db, config, currentUser(request)),
  );

  app.patch(
    '/api/admin/enrichment/settings',
    {
      config: { access: 'enrichment.import' },
      schema: {
        operationId: 'updateEnrichmentSettings',
        description:
          "`kev_due_dates`: a KEV due date earlier than the SLA's becomes the due date (on by default; turning it off restores SLA due dates, recomputed by a background job after the answer). `epss_percentile_threshold`: the percentile whose crossing fires `finding.epss_changed` (default 0.9).",
        tags,
        summary: 'Enrichment settings (admin, or permission enrichment.import)',
        body: UpdateEnrichmentSettingsBody,
        response: { 200: EnrichmentStatusSchema },
      },
    },
    async (request) => {
      const user = currentUser(request);
      await updateEnrichmentSettings(db, context.jobs, request.body, request.audit);
      return enrichmentStatus(db, config, user);
    },
  );
}
