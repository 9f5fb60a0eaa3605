import type { GateResult } from '../gate.ts';
import type { ApiClient } from '../http-client.ts';
import type { Output } from '../output.ts';
import type { Scan } from '../upload.ts';
import type { ReviewTarget } from './ci-environment.ts';
import { publishCheckRun } from './check-run.ts';
import { renderComment, type ComparedFinding } from './comment-body.ts';
import { upsertComment, type CommentOutcome } from './review-comment.ts';

export interface FeedbackRequest {
  target: ReviewTarget;
  baseline: string;
  /** Post no comment when nothing is new (an earlier comment is still brought up to date). */
  silentWhenClean: boolean;
  retries: number;
  /** `--pr-annotations` (GitHub): a `scanhub` check run annotating new findings on changed lines. */
  checkRun: boolean;
}

interface Comparison {
  new: ComparedFinding[];
  fixed: ComparedFinding[];
}

const OPEN = new Set(['open', 'confirmed']);

const blobLink = (target: ReviewTarget) =>
  target.headSha === null
    ? null
    : (path: string, line: number | null) =>
        `${target.blobUrl}/${encodeURIComponent(target.headSha ?? '')}/${path
          .split('/')
          .filter((segment) => segment !== '' && segment !== '.' && segment !== '..')
          .map(encodeURIComponent)
          .join('/')}${line ? `#L${line}` : ''}`;

/**
 * `--pr-comment`: the comparison of the uploads' version against the baseline as one comment on
 * the pull/merge request (created once, edited on reruns). Resolves with what happened to it.
 */
export async function postReviewComment(
  client: ApiClient,
  out: Output,
  request: FeedbackRequest,
  scans: Scan[],
  gate: GateResult | undefined,
): Promise<{
  outcome: CommentOutcome;
  id: number | null;
  new: number;
  fixed: number;
  check_run: { id: number; annotations: number; outside_diff: number } | null;
}> {
  const [scan] = scans;
  if (!scan) throw new Error('no scan to comment on');
  const comparePath = `/api/applications/${scan.application_id}/versions/compare`;
  const query = { from: request.baseline, to: scan.version_id };
  const comparison = await client.json<Comparison>(comparePath, { query });
  const fresh = comparison.new.filter((finding) => OPEN.has(finding.status));
  const marker = `<!-- scanhub:pr-comment application=${scan.application_id} -->`;
  const body = renderComment({
    marker,
    newFindings: fresh,
    fixedFindings: comparison.fixed,
    baseline: request.baseline,
    gate,
    findingUrl: (id) => `${client.baseUrl}/findings/${id}`,
    comparisonUrl: client.url(comparePath, query),
    blobUrl: blobLink(request.target),
  });
  const forgeOptions = {
    retries: request.retries,
    baseDelayMs: 500,
    onRetry: (reason: string, delay: number) =>
      out.note(`${request.target.forge}: retry in ${Math.round(delay)} ms after ${reason}`),
  };
  const { outcome, id } = await upsertComment(
    request.target,
    forgeOptions,
    marker,
    body,
    request.silentWhenClean && fresh.length === 0,
  );
  const review = request.target.forge === 'github' ? 'pull request #' : 'merge request !';
  out.print(`${review}${request.target.number}: comment ${outcome}${id === null ? '' : ` (${id})`}`);
  const checkRun = request.checkRun
    ? await publishCheckRun(
        request.target,
        forgeOptions,
        fresh,
        gate,
        (findingId) => `${client.baseUrl}/findings/${findingId}`,
      )
    : null;
  if (checkRun)
    out.print(
      `check run scanhub (${checkRun.id}): ${checkRun.annotations} annotation(s) on changed lines, ${checkRun.outside_diff} new finding(s) outside the diff`,
    );
  return { outcome, id, new: fresh.length, fixed: comparison.fixed.length, check_run: checkRun };
}
