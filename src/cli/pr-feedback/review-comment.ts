import type { ReviewTarget } from './ci-environment.ts';
import { forgeJson, type ForgeOptions } from './forge-http.ts';

interface Note {
  id: number;
  body: string | null;
}

const PER_PAGE = 100;
/** A pull request with more comments than this is searched no further (the newest are last). */
const MAX_PAGES = 20;

/** GitHub `owner/name` is checked to be `[\w.-]+/[\w.-]+`; GitLab's project id or path is encoded whole. */
const githubRepo = (target: ReviewTarget) => `/repos/${target.repository}`;

function commentsPath(target: ReviewTarget): string {
  return target.forge === 'github'
    ? `${githubRepo(target)}/issues/${target.number}/comments`
    : `/projects/${encodeURIComponent(target.repository)}/merge_requests/${target.number}/notes`;
}

function commentPath(target: ReviewTarget, id: number): string {
  return target.forge === 'github'
    ? `${githubRepo(target)}/issues/comments/${id}`
    : `${commentsPath(target)}/${id}`;
}

async function findMarked(target: ReviewTarget, options: ForgeOptions, marker: string): Promise<Note | null> {
  const path = commentsPath(target);
  for (let page = 1; page <= MAX_PAGES; page++) {
    const query =
      target.forge === 'github'
        ? `?per_page=${PER_PAGE}&page=${page}`
        : `?per_page=${PER_PAGE}&page=${page}&sort=asc&order_by=created_at`;
    const notes = await forgeJson<Note[]>(target, options, 'GET', `${path}${query}`);
    const found = notes.find((note) => note.body?.startsWith(marker));
    if (found) return found;
    if (notes.length < PER_PAGE) return null;
  }
  return null;
}

export type CommentOutcome = 'created' | 'updated' | 'unchanged' | 'silent';

/**
 * Posts the summary as one comment on the pull/merge request, or edits the one an earlier run
 * posted (found by the hidden marker it starts with), so reruns never add a second comment.
 * `silent` (nothing new, and asked to stay silent) posts no new comment, but still updates an
 * earlier one, which would otherwise keep showing findings that are gone.
 */
export async function upsertComment(
  target: ReviewTarget,
  options: ForgeOptions,
  marker: string,
  body: string,
  silent: boolean,
): Promise<{ outcome: CommentOutcome; id: number | null }> {
  const existing = await findMarked(target, options, marker);
  const path = commentsPath(target);
  if (existing) {
    if (existing.body === body) return { outcome: 'unchanged', id: existing.id };
    const method = target.forge === 'github' ? 'PATCH' : 'PUT';
    await forgeJson<Note>(target, options, method, commentPath(target, existing.id), { body });
    return { outcome: 'updated', id: existing.id };
  }
  if (silent) return { outcome: 'silent', id: null };
  const created = await forgeJson<Note>(target, options, 'POST', path, { body });
  return { outcome: 'created', id: created.id };
}
