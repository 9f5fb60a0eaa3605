import type { FastifyRequest } from 'fastify';
import { AppError, badRequest } from '../../errors.ts';
import type { UploadedFile } from '../../ingest/upload-types.ts';
import { capText } from '../../ingest/cap-fields.ts';
import { removeSpooled, spoolToFile } from '../../ingest/spool.ts';

export interface IngestForm {
  file: UploadedFile;
  version?: string;
  branch?: string;
  scannerType?: string;
  category?: string;
  partial?: boolean;
  root?: string;
}

type TextField = 'version' | 'branch' | 'scannerType' | 'category' | 'root' | 'partial';

const FIELD_ALIASES: Record<string, TextField> = {
  version: 'version',
  version_name: 'version',
  versionName: 'version',
  branch: 'branch',
  scannerType: 'scannerType',
  scanner_type: 'scannerType',
  scanType: 'scannerType',
  scan_type: 'scannerType',
  category: 'category',
  partial: 'partial',
  root: 'root',
  root_path: 'root',
  rootPath: 'root',
};

const MAX_FIELD_LENGTH = 200;
/** A checkout root is an absolute path; CI runners nest them deep. */
const MAX_LENGTH: Partial<Record<TextField, number>> = { root: 4096 };
const BOOLEAN = /^(true|false|1|0)$/i;
/** A file name is only shown back; a longer one is cut, not refused. */
const MAX_FILE_NAME_LENGTH = 255;

export interface UploadLimits {
  /** Directory the upload is spooled into (one per process, see process-instance.ts). */
  spoolDir: string;
  /** Most bytes an upload may have, and for gzip content the most it may inflate to. */
  uploadLimitBytes: number;
}

const tooLarge = (): AppError => new AppError(413, 'payload_too_large', 'The upload exceeds the size limit');

const oneFileOnly = (): AppError =>
  badRequest('multiple_files', 'Send exactly one file per upload', [
    { path: 'body.file', message: 'must be sent once' },
  ]);

/**
 * Reads the multipart ingest form, spooling the `file` part to disk as it arrives (fields may come
 * before or after it). Missing file, oversized upload or a non-multipart body are client errors.
 */
export async function readIngestForm(request: FastifyRequest, limits: UploadLimits): Promise<IngestForm> {
  if (!request.isMultipart()) {
    throw badRequest('file_required', 'Send the scan as multipart/form-data with a "file" field');
  }
  const encoding = request.headers['content-encoding']?.trim().toLowerCase();
  if (encoding && encoding !== 'identity') {
    // The body would reach the multipart parser compressed; a gzipped *file* is the supported way.
    throw new AppError(
      415,
      'unsupported_content_encoding',
      `Content-Encoding "${encoding.slice(0, 40)}" is not accepted; send the form uncompressed and gzip the file itself`,
    );
  }
  const fields: Partial<Record<TextField, string>> = {};
  let file: UploadedFile | undefined;
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file' || file) throw oneFileOnly();
        const spooled = await spoolToFile(part.file, limits.spoolDir, {
          maxInflatedBytes: limits.uploadLimitBytes,
        });
        file = { ...spooled, name: part.filename ? capText(part.filename, MAX_FILE_NAME_LENGTH) : null };
        if (part.file.truncated) throw tooLarge();
        continue;
      }
      const name = FIELD_ALIASES[part.fieldname];
      const value = typeof part.value === 'string' ? part.value.trim() : '';
      if (!name || value === '') continue;
      const max = MAX_LENGTH[name] ?? MAX_FIELD_LENGTH;
      if (value.length > max) {
        throw badRequest('validation_failed', `${part.fieldname} is too long`, [
          { path: `body.${part.fieldname}`, message: `must be at most ${max} characters` },
        ]);
      }
      if (name === 'partial' && !BOOLEAN.test(value)) {
        throw badRequest('validation_failed', 'partial must be true or false', [
          { path: `body.${part.fieldname}`, message: 'must be true or false' },
        ]);
      }
      fields[name] = value;
    }
  } catch (error) {
    await removeSpooled(file?.path);
    const { statusCode, code } = error as { statusCode?: number; code?: string };
    // @fastify/multipart reports a second file part as "files limit reached" (413): it is a bad form.
    if (code === 'FST_FILES_LIMIT') throw oneFileOnly();
    if (statusCode === 413) {
      // Read the rest of the body and drop it, so the client gets its 413 instead of a reset connection.
      request.raw.resume();
      throw tooLarge();
    }
    if (error instanceof AppError) throw error;
    throw badRequest('malformed_upload', `The multipart body could not be read: ${(error as Error).message}`);
  }
  if (!file)
    throw badRequest('file_required', 'The "file" field is missing', [
      { path: 'body.file', message: 'is required' },
    ]);
  const { partial, ...text } = fields;
  return { file, ...text, ...(partial === undefined ? {} : { partial: /^(true|1)$/i.test(partial) }) };
}
