import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { JobContext } from '../../app-context.ts';
import { AppError } from '../../errors.ts';
import { systemAuditContext } from '../../events/audit.ts';
import { spoolDirOf } from '../../ingest/process-instance.ts';
import { removeSpooled } from '../../ingest/spool.ts';
import { downloadOutbound } from '../../lib/outbound-http.ts';
import { importEnrichmentFile, type ImportResult } from './enrichment.service.ts';

/** EPSS is ≈ 2 MB gzip, ≈ 10 MB plain; KEV ≈ 1.5 MB. */
const MAX_DOWNLOAD_BYTES = 200 * 1024 * 1024;
const TIMEOUT_MS = 120_000;

export type FetchOutcome = { source: 'epss' | 'kev'; url: string } & (
  { result: ImportResult } | { error: string }
);

/**
 * Downloads each configured URL (EPSS_URL, KEV_URL) through the outbound guard (resolved-address
 * check, no redirects, one deadline, a size cap) and imports it by the same path as an upload. A
 * file older than the current snapshot is not imported (never forced); an unchanged one changes
 * nothing. Without URLs nothing leaves the server.
 */
export async function fetchEnrichment(
  context: Pick<JobContext, 'db' | 'jobs' | 'config' | 'log'>,
): Promise<FetchOutcome[]> {
  const { config } = context;
  const targets = (
    [
      ['epss', config.enrichment.epssUrl],
      ['kev', config.enrichment.kevUrl],
    ] as const
  ).filter((target): target is ['epss' | 'kev', string] => Boolean(target[1]));
  const outcomes: FetchOutcome[] = [];
  if (targets.length === 0) return outcomes;
  const dir = spoolDirOf(config.dataDir);
  await mkdir(dir, { recursive: true });
  for (const [source, url] of targets) {
    const path = join(dir, `enrichment-${randomUUID()}`);
    try {
      const download = await downloadOutbound(
        {
          url,
          timeoutMs: TIMEOUT_MS,
          allowPrivate: config.outbound.allowPrivate,
          maxBytes: MAX_DOWNLOAD_BYTES,
        },
        createWriteStream(path),
      );
      if (download.error !== undefined) {
        outcomes.push({ source, url, error: download.error });
        continue;
      }
      const result = await importEnrichmentFile(context, path, {
        fileName: new URL(url).pathname.split('/').pop()?.slice(0, 255) || null,
        sha256: null,
        origin: 'fetch',
        importedBy: null,
        audit: systemAuditContext('enrichment-fetch'),
      });
      outcomes.push({ source, url, result });
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      outcomes.push({ source, url, error: `${error.code}: ${error.detail}` });
    } finally {
      await removeSpooled(path);
    }
  }
  for (const outcome of outcomes) {
    const origin = new URL(outcome.url).origin;
    if ('error' in outcome)
      context.log.warn({ source: outcome.source, origin, error: outcome.error }, 'enrichment fetch failed');
    else
      context.log.info(
        { source: outcome.source, origin, outcome: outcome.result.outcome },
        'enrichment fetched',
      );
  }
  return outcomes;
}
