import { randomBytes } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import { basename } from 'node:path';
import { serverError, usageError } from './errors.ts';
import type { ApiClient } from './http-client.ts';
import type { Output } from './output.ts';

export interface EnrichmentImportCommand {
  files: string[];
  force: boolean;
}

interface ImportAnswer {
  outcome: 'imported' | 'merged' | 'unchanged';
  rows_read: number;
  rows_changed: number;
  snapshot: { source: string; version: string; data_date: string; row_count: number };
}

const quoteName = (name: string) => name.replace(/["\r\n\\]/g, '_');

/**
 * `scanhub enrichment import FILE...`: each file (EPSS CSV, KEV JSON or CSV, plain or gzip, as
 * downloaded) to POST /api/admin/enrichment, in the order given, as it is on disk; the server tells
 * the format from the content. Needs an API key of an admin or of a holder of `enrichment.import`.
 */
export async function runEnrichmentImport(
  client: ApiClient,
  out: Output,
  command: EnrichmentImportCommand,
): Promise<number> {
  if (command.files.length === 0)
    throw usageError('Name the files to import: scanhub enrichment import FILE...');
  for (const path of command.files) {
    try {
      if (!statSync(path).isFile()) throw new Error('not a file');
    } catch {
      throw usageError(`Cannot read ${path}`);
    }
  }
  const results: (ImportAnswer & { file: string })[] = [];
  for (const path of command.files) {
    const boundary = `scanhub-${randomBytes(12).toString('hex')}`;
    const response = await client.request('/api/admin/enrichment', {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: async function* () {
        if (command.force) {
          yield Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="force"\r\n\r\ntrue\r\n`);
        }
        yield Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${quoteName(basename(path))}"\r\n` +
            'Content-Type: application/octet-stream\r\n\r\n',
        );
        yield* createReadStream(path) as AsyncIterable<Buffer>;
        yield Buffer.from(`\r\n--${boundary}--\r\n`);
      },
    });
    const answer = await client.expectJson<ImportAnswer>(response, `Import of ${basename(path)}`);
    if (!answer.snapshot) throw serverError(`Import of ${basename(path)}: unexpected answer`);
    results.push({ ...answer, file: path });
    const { snapshot } = answer;
    out.note(
      `${basename(path)}: ${answer.outcome} — ${snapshot.source.toUpperCase()} ${snapshot.version} of ${snapshot.data_date}, ${snapshot.row_count} rows (${answer.rows_changed} changed)`,
    );
  }
  out.result(results);
  return 0;
}
