import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Severity } from '../domain/findings/severity.ts';
import { requireBaseline } from './application-ref.ts';
import { CliError, EXIT, serverError, usageError } from './errors.ts';
import { evaluateGate, newBySeverity, type GateResult, type GateSpec } from './gate.ts';
import type { ApiClient } from './http-client.ts';
import type { Output } from './output.ts';
import { writeCodeQuality } from './pr-feedback/code-quality.ts';
import { postReviewComment, type FeedbackRequest } from './pr-feedback/post-feedback.ts';
import { categoryFromPath, refuseSharedScopes } from './upload-scopes.ts';
import { uploadFile, waitForScan, type Scan, type UploadFields, type UploadResult } from './upload.ts';

export interface UploadCommand {
  files: string[];
  fields: UploadFields;
  /** `--application`: needed with an API key, which uploads through the application's ingest route. */
  application: string | undefined;
  wait: boolean;
  timeoutMs: number;
  gate: GateSpec | undefined;
  /** `--category-from-path`: each file's path (from --root) is its category. */
  categoryFromPath: boolean;
  /** `--pr-comment`: the comparison with the baseline as a pull/merge request comment. */
  review: FeedbackRequest | undefined;
  /** `--code-quality <file>`: the version's findings as a GitLab Code Quality report. */
  codeQuality: string | undefined;
}

interface FileReport extends UploadResult {
  link: string;
  new_by_severity: Record<Severity, number> | null;
}

async function checkFiles(files: string[]): Promise<{ path: string; size: number }[]> {
  if (files.length === 0) throw usageError('Name at least one file to upload');
  return Promise.all(
    files.map(async (file) => {
      const path = resolve(file);
      const info = await stat(path).catch(() => undefined);
      if (!info?.isFile()) throw usageError(`Not a readable file: ${file}`);
      return { path, size: info.size };
    }),
  );
}

function ingestPath(client: ApiClient, application: string | undefined): string {
  if (client.credentials.kind === 'token') return '/api/ingest';
  if (!application) throw usageError('With --api-key, name the application: --application <id or slug>');
  return `/api/applications/${encodeURIComponent(application)}/ingest`;
}

function printScan(out: Output, report: FileReport): void {
  const { scan } = report;
  const bySeverity = report.new_by_severity
    ? ` (${
        Object.entries(report.new_by_severity)
          .filter(([, count]) => count > 0)
          .map(([severity, count]) => `${severity} ${count}`)
          .join(', ') || 'none'
      })`
    : '';
  out.print(
    `${out.bold(report.file)}: scan ${scan.id} ${scan.status === 'completed' ? out.green(scan.status) : out.yellow(scan.status)}` +
      `${report.replayed ? ' (replayed: the first try had landed)' : ''}`,
  );
  out.print(
    `  new ${scan.new_findings_count}${bySeverity}, fixed ${scan.fixed_findings_count}, ` +
      `present ${scan.existing_findings_count}, reopened ${scan.reopened_findings_count}, total ${scan.findings_count}`,
  );
  out.print(`  ${report.link}`);
}

function printGate(out: Output, gate: GateResult): void {
  const what =
    gate.mode === 'new'
      ? 'new open findings'
      : gate.mode === 'baseline'
        ? `open findings not in ${gate.baseline}`
        : 'open findings in the version';
  const level = gate.threshold ? ` at or above ${gate.threshold}` : '';
  if (gate.passed) {
    out.print(out.green(`Gate passed: no ${what}${level}`));
    return;
  }
  out.print(out.red(`Gate failed: ${gate.count} ${what}${level}`));
  for (const finding of gate.findings)
    out.print(
      `  [${finding.severity}] ${finding.title}${finding.file_path ? ` (${finding.file_path}${finding.line ? `:${finding.line}` : ''})` : ''} #${finding.id}`,
    );
}

async function uploadOne(
  client: ApiClient,
  out: Output,
  command: UploadCommand,
  path: string,
  file: { path: string; size: number },
): Promise<FileReport> {
  const fields = command.categoryFromPath
    ? { ...command.fields, category: categoryFromPath(file.path, command.fields.root) }
    : command.fields;
  const uploaded = await uploadFile(client, out, { path, async: command.wait }, file, fields);
  let scan: Scan = uploaded.scan;
  if (command.wait) scan = await waitForScan(client, out, scan, command.timeoutMs);
  if (scan.status === 'failed')
    throw serverError(`Scan ${scan.id} of ${file.path} failed: ${scan.error ?? 'no reason given'}`);
  return {
    ...uploaded,
    scan,
    link: client.url(`/api/scans/${scan.id}`),
    new_by_severity: scan.status === 'completed' ? await newBySeverity(client, scan) : null,
  };
}

/** `scanhub upload`: each file in turn, then the gate over all of them; resolves with the exit code. */
export async function runUpload(client: ApiClient, out: Output, command: UploadCommand): Promise<number> {
  const files = await checkFiles(command.files);
  const path = ingestPath(client, command.application);
  if (command.categoryFromPath && command.fields.category !== undefined)
    throw usageError('--category and --category-from-path exclude each other');
  await refuseSharedScopes(
    files.map((file) => ({
      path: file.path,
      category: command.categoryFromPath
        ? categoryFromPath(file.path, command.fields.root)
        : command.fields.category,
    })),
    command.fields.scannerType,
  );
  if (command.gate?.baseline !== undefined)
    await requireBaseline(client, command.application, command.gate.baseline);
  const reports: FileReport[] = [];
  try {
    for (const file of files) reports.push(await uploadOne(client, out, command, path, file));
  } catch (error) {
    // Say what did land before the failure, so a rerun is not a surprise.
    for (const report of reports) printScan(out, report);
    throw error;
  }
  for (const report of reports) printScan(out, report);

  let gate: GateResult | undefined;
  if (command.gate) {
    const pending = reports.filter((report) => report.scan.status !== 'completed');
    if (pending.length > 0)
      throw new CliError(
        EXIT.server,
        `Scan ${pending[0]?.scan.id} is ${pending[0]?.scan.status}: pass --wait to gate on it`,
      );
    gate = await evaluateGate(
      client,
      command.gate,
      reports.map((report) => report.scan),
    );
    printGate(out, gate);
  }
  const comment = command.review
    ? await postReviewComment(
        client,
        out,
        command.review,
        reports.map((report) => report.scan),
        gate,
      )
    : null;
  const versions = new Set(reports.map((report) => report.scan.version_id));
  const [versionId] = versions;
  if (command.codeQuality !== undefined && versionId !== undefined) {
    if (versions.size > 1) throw usageError('--code-quality writes one version: upload into one');
    if (reports.some((report) => report.scan.status !== 'completed'))
      throw serverError('--code-quality needs completed scans: pass --wait');
    const count = await writeCodeQuality(client, command.codeQuality, versionId);
    out.print(`${command.codeQuality}: ${count} finding(s) as a GitLab Code Quality report`);
  }
  out.result({
    uploads: reports.map((report) => ({
      file: report.file,
      scan: report.scan,
      link: report.link,
      new_by_severity: report.new_by_severity,
      idempotency_key: report.idempotencyKey,
      replayed: report.replayed,
      attempts: report.attempts,
    })),
    gate: gate ?? null,
    pr_comment: comment,
    exit_code: gate && !gate.passed ? EXIT.gateFailed : EXIT.ok,
  });
  return gate && !gate.passed ? EXIT.gateFailed : EXIT.ok;
}
