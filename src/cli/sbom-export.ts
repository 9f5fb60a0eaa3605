import { writeFileSync } from 'node:fs';
import { serverError, usageError } from './errors.ts';
import type { ApiClient } from './http-client.ts';
import type { Output } from './output.ts';

export interface SbomExportCommand {
  application: string | undefined;
  version: string | undefined;
  output: string | undefined;
}

/** `scanhub sbom export`: a version's CycloneDX 1.6 SBOM, to a file or stdout. */
export async function runSbomExport(
  client: ApiClient,
  out: Output,
  command: SbomExportCommand,
): Promise<number> {
  if (command.application === undefined) throw usageError('Name the application: --application <id or slug>');
  if (command.version === undefined) throw usageError('Name the version: --version <name or id>');
  const path = `/api/applications/${encodeURIComponent(command.application)}/versions/${encodeURIComponent(command.version)}/sbom`;
  const response = await client.request(path, {
    query: { format: 'cyclonedx' },
    headers: { accept: 'application/vnd.cyclonedx+json' },
  });
  if (!response.ok) {
    await client.expectJson(response, 'SBOM export');
    throw serverError('SBOM export failed');
  }
  const body = await response.text();
  if (command.output) {
    writeFileSync(command.output, body);
    out.note(`Wrote the CycloneDX SBOM to ${command.output}`);
  } else process.stdout.write(body.endsWith('\n') ? body : `${body}\n`);
  return 0;
}
