import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { missBy, type Measurement, type Unit } from './measurement.ts';
import type { Summary } from './stats.ts';
import { REPO_ROOT } from './server.ts';

function formatValue(value: number, unit: Unit): string {
  if (!Number.isFinite(value)) return '—';
  if (unit === 'ms') {
    if (value >= 10_000) return `${(value / 1000).toFixed(1)} s`;
    if (value >= 1000) return `${(value / 1000).toFixed(2)} s`;
    return `${value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2)} ms`;
  }
  if (unit === 'MB') return `${value.toFixed(0)} MB`;
  return `${Math.round(value).toLocaleString('en-US')} ${unit}`;
}

function formatSummary(summary: Summary | undefined, unit: Unit, statistic: string): string {
  if (!summary || summary.count === 0) return '—';
  if (statistic === 'p95') {
    return `p50 ${formatValue(summary.p50, unit)} · p95 ${formatValue(summary.p95, unit)} (n=${summary.count})`;
  }
  if (summary.count === 1) return formatValue(summary.median, unit);
  const parts = [summary.min, summary.median, summary.max].map((value) => formatValue(value, unit));
  return `${parts.join(' / ')} (n=${summary.count})`;
}

function verdict(measurement: Measurement): string {
  if (measurement.unavailable) return 'n/a';
  if (measurement.pass === undefined) return measurement.target ? '?' : '';
  return measurement.pass ? 'ok' : `MISS ${missBy(measurement)}`;
}

/** Rows of the printed table, one per measurement. */
export function formatTable(measurements: readonly Measurement[]): string {
  const header = ['#', 'scenario', 'engine', 'scanhub (min / median / max)', 'limit', 'ratio', 'target', ''];
  const rows = measurements.map((m) => [
    m.scenario,
    m.name,
    m.engine,
    m.unavailable ? `(${m.unavailable})` : formatSummary(m.summary, m.unit, m.statistic),
    m.limit ? `${m.limit.name}: ${formatSummary(m.limitSummary, m.unit, m.statistic)}` : '',
    m.ratio === undefined || !Number.isFinite(m.ratio) ? '' : `${m.ratio.toFixed(2)}×`,
    m.target?.text ?? '',
    verdict(m),
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}

/** Notes printed under the table (what each limit is, checks that failed, approximations). */
export function formatNotes(measurements: readonly Measurement[]): string {
  const lines: string[] = [];
  for (const m of measurements) {
    for (const note of m.notes) lines.push(`[${m.scenario} ${m.engine}] ${note}`);
  }
  return [...new Set(lines)].join('\n');
}

function git(args: string[]): string {
  try {
    return execFileSync('git', args, { cwd: REPO_ROOT, maxBuffer: 64 * 1024 ** 2 }).toString();
  } catch {
    return 'unknown';
  }
}

export interface SourceState {
  commit: string;
  /** Uncommitted changes under src/ (others work in the same checkout). */
  dirty: boolean;
  /** Identifies commit + uncommitted src/ changes, to notice code changing during a run. */
  digest: string;
}

/** What code the servers run: HEAD plus any uncommitted change under src/ (read-only git calls). */
export function sourceState(): SourceState {
  const commit = git(['rev-parse', '--short', 'HEAD']).trim();
  const changes =
    git(['diff', 'HEAD', '--', 'src']) + git(['ls-files', '--others', '--exclude-standard', 'src']);
  return {
    commit,
    dirty: changes.trim() !== '',
    digest: createHash('sha256')
      .update(commit + changes)
      .digest('hex'),
  };
}

const round = (value: number): number => (Number.isFinite(value) ? Number(value.toFixed(3)) : value);

function rounded(summary: Summary | undefined): Summary | undefined {
  if (!summary) return undefined;
  return {
    count: summary.count,
    min: round(summary.min),
    median: round(summary.median),
    max: round(summary.max),
    mean: round(summary.mean),
    p50: round(summary.p50),
    p95: round(summary.p95),
  };
}

/** Writes bench/results/<date>.json and returns its path. */
export async function writeResults(
  measurements: readonly Measurement[],
  run: Record<string, unknown>,
): Promise<string> {
  const dir = join(REPO_ROOT, 'bench', 'results');
  await mkdir(dir, { recursive: true });
  const now = new Date();
  const stamp = now.toISOString().replace(/:/g, '').replace(/\..*$/, 'Z');
  const path = join(dir, `${stamp}.json`);
  const cpu = cpus();
  const body = {
    date: now.toISOString(),
    host: {
      cpus: cpu.length,
      cpuModel: cpu[0]?.model ?? 'unknown',
      memoryMiB: Math.round(totalmem() / 1024 ** 2),
      node: process.version,
      platform: process.platform,
    },
    run,
    measurements: measurements.map((m) => ({
      scenario: m.scenario,
      name: m.name,
      engine: m.engine,
      unit: m.unit,
      statistic: m.statistic,
      summary: rounded(m.summary),
      limit: m.limit ? { name: m.limit.name, summary: rounded(m.limitSummary) } : undefined,
      ratio: m.ratio === undefined ? undefined : round(m.ratio),
      target: m.target,
      pass: m.pass,
      unavailable: m.unavailable,
      notes: m.notes,
      extra: m.extra,
      samples: m.samples.length <= 20 ? m.samples.map(round) : undefined,
      limitSamples: m.limit && m.limit.samples.length <= 20 ? m.limit.samples.map(round) : undefined,
    })),
  };
  await writeFile(path, `${JSON.stringify(body, null, 2)}\n`);
  return path;
}
