import type { GateResult } from '../gate.ts';
import type { ReviewTarget } from './ci-environment.ts';
import type { ComparedFinding } from './comment-body.ts';
import { addedLines } from './diff-lines.ts';
import { forgeJson, type ForgeOptions } from './forge-http.ts';

/** GitHub takes at most 50 annotations per create or update request. */
const BATCH = 50;
const MAX_FILE_PAGES = 30; // GitHub lists at most 3,000 files of a pull request

interface PullFile {
  filename: string;
  patch?: string;
}

interface CheckRun {
  id: number;
}

type Annotation = {
  path: string;
  start_line: number;
  end_line: number;
  annotation_level: 'failure' | 'warning' | 'notice';
  title: string;
  message: string;
};

/** The lines each file of the pull request adds or changes, by path. */
async function changedLines(target: ReviewTarget, options: ForgeOptions): Promise<Map<string, Set<number>>> {
  const changed = new Map<string, Set<number>>();
  for (let page = 1; page <= MAX_FILE_PAGES; page++) {
    const files = await forgeJson<PullFile[]>(
      target,
      options,
      'GET',
      `/repos/${target.repository}/pulls/${target.number}/files?per_page=100&page=${page}`,
    );
    for (const file of files) if (file.patch) changed.set(file.filename, addedLines(file.patch));
    if (files.length < 100) break;
  }
  return changed;
}

const level = (finding: ComparedFinding): Annotation['annotation_level'] =>
  finding.severity === 'critical' || finding.severity === 'high'
    ? 'failure'
    : finding.severity === 'medium'
      ? 'warning'
      : 'notice';

/** Annotations are plain text on GitHub (no markdown), so scanner text only needs bounding. */
const bounded = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/**
 * A completed `scanhub` check run on the head commit with one annotation per new finding on a
 * line the pull request changed (batches of 50: created with the first, updated with the rest);
 * the conclusion is the gate's. A rerun on the same commit makes a new run, which GitHub shows instead.
 */
export async function publishCheckRun(
  target: ReviewTarget,
  options: ForgeOptions,
  findings: ComparedFinding[],
  gate: GateResult | undefined,
  findingUrl: (id: number) => string,
): Promise<{ id: number; annotations: number; outside_diff: number }> {
  if (target.forge !== 'github' || target.headSha === null)
    throw new Error('check runs need GitHub and a head commit');
  const changed = await changedLines(target, options);
  const annotations: Annotation[] = findings
    .filter(
      (finding) => finding.file_path && finding.line && changed.get(finding.file_path)?.has(finding.line),
    )
    .map((finding) => ({
      path: finding.file_path ?? '',
      start_line: finding.line ?? 1,
      end_line: finding.line ?? 1,
      annotation_level: level(finding),
      title: bounded(`[${finding.severity}] ${finding.title}`, 255),
      message: bounded(`${finding.title}\n${findingUrl(finding.id)}`, 4000),
    }));
  const conclusion = gate === undefined ? 'neutral' : gate.passed ? 'success' : 'failure';
  const output = (batch: Annotation[]) => ({
    title: `${findings.length} new finding${findings.length === 1 ? '' : 's'}, ${annotations.length} on changed lines`,
    summary: gate
      ? `Gate ${gate.passed ? 'passed' : 'failed'}${gate.threshold ? ` (at or above ${gate.threshold})` : ''}.`
      : 'No gate.',
    annotations: batch,
  });
  const repo = `/repos/${target.repository}`;
  // A new run each time, never an update of the last: GitHub appends the annotations of every update
  // to a run's own, so updating a rerun's run would show each finding twice. The pull request shows
  // the newest run of a name for the head commit, with only its annotations.
  const run = await forgeJson<CheckRun>(target, options, 'POST', `${repo}/check-runs`, {
    name: 'scanhub',
    head_sha: target.headSha,
    status: 'completed',
    conclusion,
    output: output(annotations.slice(0, BATCH)),
  });
  for (let start = BATCH; start < annotations.length; start += BATCH)
    await forgeJson<CheckRun>(target, options, 'PATCH', `${repo}/check-runs/${run.id}`, {
      output: output(annotations.slice(start, start + BATCH)),
    });
  return { id: run.id, annotations: annotations.length, outside_diff: findings.length - annotations.length };
}
