import { randomBytes, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import { pipeline } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { createGzip } from 'node:zlib';
import { serverError } from './errors.ts';
import type { ApiClient, BodyFactory } from './http-client.ts';
import type { Output } from './output.ts';

/** The ingest form fields the CLI sends (see the ingest routes). */
export interface UploadFields {
  version?: string | undefined;
  branch?: string | undefined;
  scannerType?: string | undefined;
  category?: string | undefined;
  partial?: boolean | undefined;
  root: string;
}

/** The scan record as the API returns it (the fields the CLI reads). */
export interface Scan {
  id: number;
  application_id: number;
  version_id: number;
  status: 'pending' | 'processing' | 'completed' | 'failed';
  error: string | null;
  scanner_type: string | null;
  tool_name: string | null;
  findings_count: number;
  new_findings_count: number;
  existing_findings_count: number;
  fixed_findings_count: number;
  reopened_findings_count: number;
}

export interface UploadResult {
  file: string;
  scan: Scan;
  idempotencyKey: string;
  /** The server answered from the first try's result (a retry after a lost answer). */
  replayed: boolean;
  attempts: number;
}

const quoteName = (name: string) => name.replace(/["\r\n\\]/g, '_');

/**
 * A multipart/form-data body: the text fields, then the file gzipped on the fly. Nothing is held
 * in memory beyond zlib's window and one chunk; `onBytes` hears how much of the file was read.
 */
export function multipartBody(
  path: string,
  fields: UploadFields,
  boundary: string,
  onBytes: (bytes: number) => void,
): BodyFactory {
  const entries: [string, string][] = [['root', fields.root]];
  if (fields.version !== undefined) entries.push(['version', fields.version]);
  if (fields.branch !== undefined) entries.push(['branch', fields.branch]);
  if (fields.scannerType !== undefined) entries.push(['scannerType', fields.scannerType]);
  if (fields.category !== undefined) entries.push(['category', fields.category]);
  if (fields.partial) entries.push(['partial', 'true']);
  return async function* body() {
    for (const [name, value] of entries)
      yield Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
      );
    yield Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${quoteName(basename(path))}"\r\n` +
        'Content-Type: application/gzip\r\n\r\n',
    );
    const source = createReadStream(path);
    let read = 0;
    source.on('data', (chunk) => onBytes((read += chunk.length)));
    // pipeline, not pipe: a read error (file removed, EACCES) fails the body instead of hanging it.
    yield* pipeline(source, createGzip(), () => {}) as AsyncIterable<Buffer>;
    yield Buffer.from(`\r\n--${boundary}--\r\n`);
  };
}

/**
 * Uploads one file. One `Idempotency-Key` is made for the file and sent on every try, so a retry
 * after a lost answer gets the first upload's scan back instead of making a second scan.
 */
export async function uploadFile(
  client: ApiClient,
  out: Output,
  target: { path: string; async: boolean },
  file: { path: string; size: number },
  fields: UploadFields,
): Promise<UploadResult> {
  const idempotencyKey = randomUUID();
  const boundary = `scanhub-${randomBytes(12).toString('hex')}`;
  const label = basename(file.path);
  let attempts = 0;
  const progress = out.progress(label, file.size);
  let response: Response | undefined;
  try {
    response = await client.request(target.path, {
      method: 'POST',
      query: { async: target.async ? 'true' : undefined },
      headers: {
        'idempotency-key': idempotencyKey,
        'content-type': `multipart/form-data; boundary=${boundary}`,
      },
      body: () => {
        attempts++;
        return multipartBody(file.path, fields, boundary, (bytes) => progress.update(bytes))();
      },
      onRetry: (attempt, reason, delay) =>
        out.note(
          `${label}: try ${attempt + 1} in ${Math.round(delay)} ms after ${reason} (Idempotency-Key ${idempotencyKey})`,
        ),
    });
  } finally {
    progress.stop(response !== undefined);
  }
  const body = await client.expectJson<{ scan: Scan }>(response, `Upload of ${label}`);
  return {
    file: file.path,
    scan: body.scan,
    idempotencyKey,
    replayed: response.headers.get('idempotent-replayed') === 'true',
    attempts,
  };
}

/** Polls a scan until it is completed or failed; gives up after `timeoutMs` (exit 3). */
export async function waitForScan(
  client: ApiClient,
  out: Output,
  scan: Scan,
  timeoutMs: number,
  intervalMs = 1000,
): Promise<Scan> {
  const deadline = Date.now() + timeoutMs;
  let current = scan;
  let said = '';
  while (current.status === 'pending' || current.status === 'processing') {
    if (Date.now() > deadline)
      throw serverError(`Scan ${scan.id} still ${current.status} after ${Math.round(timeoutMs / 1000)} s`);
    if (said !== current.status) out.note(`scan ${scan.id}: ${current.status}…`);
    said = current.status;
    await sleep(intervalMs);
    current = await client.json<Scan>(`/api/scans/${scan.id}`);
  }
  return current;
}
