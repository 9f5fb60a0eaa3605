import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { TestApp } from './test-app.ts';
import { corpusPath } from './parse-corpus.ts';

export interface UploadForm {
  /** File content, or a corpus-relative path with `corpus:` prefix. */
  file?: Buffer | string;
  fileName?: string;
  fields?: Record<string, string>;
}

/** A multipart/form-data body as a CI client would send it. */
export function multipartBody(form: UploadForm): { body: Buffer; contentType: string } {
  const boundary = `----scanhub${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const [name, value] of Object.entries(form.fields ?? {})) {
    chunks.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
    );
  }
  if (form.file !== undefined) {
    const content =
      typeof form.file === 'string' && form.file.startsWith('corpus:')
        ? readFileSync(corpusPath(form.file.slice('corpus:'.length)))
        : Buffer.isBuffer(form.file)
          ? form.file
          : Buffer.from(form.file);
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${form.fileName ?? 'report.json'}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
      ),
      content,
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** POSTs an ingest form to `url` with the given auth headers. */
export async function upload(
  t: Pick<TestApp, 'app'>,
  url: string,
  headers: Record<string, string>,
  form: UploadForm,
) {
  const { body, contentType } = multipartBody(form);
  return t.app.inject({
    method: 'POST',
    url,
    headers: { ...headers, 'content-type': contentType },
    payload: body,
  });
}
