import type { FastifyRequest } from 'fastify';
import { AppError, badRequest } from '../../errors.ts';
import { capText } from '../../ingest/cap-fields.ts';
import { removeSpooled, spoolToFile, type SpooledFile } from '../../ingest/spool.ts';

export interface EnrichmentForm {
  file: SpooledFile & { name: string | null };
  force: boolean;
}

const tooLarge = (): AppError => new AppError(413, 'payload_too_large', 'The file exceeds the size limit');

/**
 * Reads the import form: exactly one `file` part, spooled to disk as it arrives (gzip counted as it
 * inflates), and an optional `force` (`true`/`false`). Any other field is refused: the form is strict.
 */
export async function readEnrichmentForm(
  request: FastifyRequest,
  limits: { spoolDir: string; uploadLimitBytes: number },
): Promise<EnrichmentForm> {
  if (!request.isMultipart()) {
    throw badRequest('file_required', 'Send the file as multipart/form-data with a "file" field');
  }
  let file: EnrichmentForm['file'] | undefined;
  let force = false;
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file' || file) {
          throw badRequest('validation_failed', 'Send exactly one file, in the field "file"', [
            { path: `body.${part.fieldname.slice(0, 40)}`, message: 'must be the one "file" part' },
          ]);
        }
        const spooled = await spoolToFile(part.file, limits.spoolDir, {
          maxInflatedBytes: limits.uploadLimitBytes,
        });
        file = {
          ...spooled,
          name: part.filename ? capText(part.filename, 255).replaceAll('\u0000', '') : null,
        };
        if (part.file.truncated) throw tooLarge();
        continue;
      }
      const value = typeof part.value === 'string' ? part.value.trim() : '';
      if (part.fieldname !== 'force' || !/^(true|false)$/.test(value)) {
        throw badRequest('validation_failed', `Unexpected form field "${part.fieldname.slice(0, 40)}"`, [
          {
            path: `body.${part.fieldname.slice(0, 40)}`,
            message: part.fieldname === 'force' ? 'must be true or false' : 'is not a field of this form',
          },
        ]);
      }
      force = value === 'true';
    }
  } catch (error) {
    await removeSpooled(file?.path);
    const { statusCode, code } = error as { statusCode?: number; code?: string };
    if (code === 'FST_FILES_LIMIT' || code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT') {
      throw badRequest('validation_failed', 'Send exactly one file, in the field "file"');
    }
    if (statusCode === 413) {
      request.raw.resume();
      throw tooLarge();
    }
    if (error instanceof AppError) throw error;
    throw badRequest('malformed_upload', 'The multipart body could not be read');
  }
  if (!file) {
    throw badRequest('file_required', 'The "file" field is missing', [
      { path: 'body.file', message: 'is required' },
    ]);
  }
  return { file, force };
}
