import { createWriteStream } from 'node:fs';
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createInterface } from 'node:readline';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { applicationIdOf } from './application-ref.ts';
import { serverError, usageError } from './errors.ts';
import type { ApiClient } from './http-client.ts';
import type { Output } from './output.ts';

export type ExportFormat = 'csv' | 'json' | 'sarif';

export interface ExportCommand {
  application: string | undefined;
  version: string | undefined;
  format: ExportFormat;
  output: string | undefined;
  status: string | undefined;
  severity: string | undefined;
}

const ACCEPT: Record<ExportFormat, string> = {
  csv: 'text/csv',
  sarif: 'application/sarif+json',
  // Streamed as NDJSON by the server and written out as one JSON array here.
  json: 'application/x-ndjson',
};

/** The application id to filter on: a number as is; a slug looked up (API keys only). */
async function applicationId(
  client: ApiClient,
  application: string | undefined,
): Promise<number | undefined> {
  if (application !== undefined) return applicationIdOf(client, application);
  if (client.credentials.kind === 'token') return undefined; // the token's own application
  throw usageError('Name the application: --application <id or slug>');
}

/** NDJSON lines → one JSON array, a line at a time. */
async function* jsonArray(lines: AsyncIterable<string>): AsyncGenerator<string> {
  yield '[';
  let first = true;
  for await (const line of lines) {
    if (line.trim() === '') continue;
    yield `${first ? '\n' : ',\n'}${line}`;
    first = false;
  }
  yield first ? ']\n' : '\n]\n';
}

/** `scanhub findings export`: streams the server's export to a file or stdout. */
export async function runExport(client: ApiClient, out: Output, command: ExportCommand): Promise<number> {
  const id = await applicationId(client, command.application);
  const response = await client.request('/api/findings', {
    query: {
      application_id: id,
      version: command.version,
      status: command.status,
      severity: command.severity,
    },
    headers: { accept: ACCEPT[command.format] },
  });
  if (!response.ok || !response.body) {
    await client.expectJson(response, 'Export');
    throw serverError('Export answered without a body');
  }
  const body = Readable.fromWeb(response.body as WebReadableStream<Uint8Array>);
  const source =
    command.format === 'json'
      ? Readable.from(jsonArray(createInterface({ input: body, crlfDelay: Infinity })))
      : body;
  const sink: Writable = command.output ? createWriteStream(command.output) : process.stdout;
  if (command.output) {
    await pipeline(source, sink);
    out.note(`Wrote ${command.format} export to ${command.output}`);
  } else {
    // stdout is never ended: other writes may follow and Node does not allow closing it.
    for await (const chunk of source)
      if (!sink.write(chunk)) await new Promise((done) => sink.once('drain', done));
  }
  return 0;
}
