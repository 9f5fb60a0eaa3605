import { readFileSync, writeFileSync } from 'node:fs';
import { serverError, usageError } from './errors.ts';
import type { ApiClient } from './http-client.ts';
import type { Output } from './output.ts';

export interface VexExportCommand {
  application: string | undefined;
  version: string | undefined;
  format: string | undefined;
  output: string | undefined;
}

/** `scanhub vex export`: a version's VEX document (OpenVEX or CycloneDX), to a file or stdout. */
export async function runVexExport(
  client: ApiClient,
  out: Output,
  command: VexExportCommand,
): Promise<number> {
  if (command.application === undefined) throw usageError('Name the application: --application <id or slug>');
  if (command.version === undefined) throw usageError('Name the version: --version <name or id>');
  const format = command.format ?? 'openvex';
  if (format !== 'openvex' && format !== 'cyclonedx')
    throw usageError('--format must be openvex or cyclonedx');
  const path = `/api/applications/${encodeURIComponent(command.application)}/versions/${encodeURIComponent(command.version)}/vex`;
  const response = await client.request(path, { query: { format } });
  if (!response.ok) {
    await client.expectJson(response, 'VEX export');
    throw serverError('VEX export failed');
  }
  const body = await response.text();
  if (command.output) {
    writeFileSync(command.output, body);
    out.note(`Wrote the ${format === 'openvex' ? 'OpenVEX' : 'CycloneDX VEX'} document to ${command.output}`);
  } else process.stdout.write(body.endsWith('\n') ? body : `${body}\n`);
  return 0;
}

export interface VexImportCommand {
  application: string | undefined;
  file: string | undefined;
}

interface ImportReport {
  format: string;
  statements: number;
  changed: boolean;
  matched: { path: string; vulnerability: string; status: string; finding_ids: number[]; action: string }[];
  unmatched: { path: string; vulnerability: string; status: string; reason: string; detail: string }[];
}

/** `scanhub vex import <file>`: loads a VEX document into an application and prints the match report. */
export async function runVexImport(
  client: ApiClient,
  out: Output,
  command: VexImportCommand,
): Promise<number> {
  if (command.application === undefined) throw usageError('Name the application: --application <id or slug>');
  if (command.file === undefined) throw usageError('Name the VEX document: scanhub vex import <file>');
  let bytes: Buffer;
  try {
    bytes = readFileSync(command.file);
  } catch (error) {
    throw usageError(`Cannot read ${command.file}: ${(error as Error).message}`);
  }
  const response = await client.request(`/api/applications/${encodeURIComponent(command.application)}/vex`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: async function* () {
      yield bytes;
    },
  });
  const report = await client.expectJson<ImportReport>(response, 'VEX import');
  out.result(report);
  out.print(
    `${report.format}: ${report.statements} statements, ${report.matched.length} matched, ${report.unmatched.length} not matched${report.changed ? '' : ' (nothing changed: imported before)'}`,
  );
  for (const match of report.matched) {
    out.print(
      `  ${match.path} ${match.vulnerability} ${match.status}: ${match.action} (findings ${match.finding_ids.join(', ')})`,
    );
  }
  for (const miss of report.unmatched) {
    out.print(`  ${miss.path} ${miss.vulnerability} ${miss.status}: not matched — ${miss.detail}`);
  }
  return 0;
}
