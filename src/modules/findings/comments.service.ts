import type { Kysely } from 'kysely';
import type { UserPrincipal } from '../../access/principal.ts';
import type { ResolvedInApplication } from '../../access/resources.ts';
import type { DB } from '../../db/schema.ts';
import { recordAudit, type AuditContext } from '../../events/audit.ts';
import { badRequest } from '../../errors.ts';
import { presentThread } from './comments.presenter.ts';
import { commentFinding, commentsOf, insertComment } from './comments.repository.ts';
import type { CommentRecord, CreateCommentInput } from './comments.schema.ts';
import { recordTimeline } from '../../domain/findings/timeline.ts';
import type { Jobs } from '../../jobs/job-map.ts';

/** Comments of a finding the caller may read, in thread order (see `CommentListSchema`). */
export async function listComments(db: Kysely<DB>, finding: ResolvedInApplication): Promise<CommentRecord[]> {
  return presentThread(await commentsOf(db, finding.id));
}

/**
 * Adds a comment (or a reply to a comment of the same finding) as the caller, with a `commented`
 * timeline entry. Needs write access to the finding's application. A finding with a linked issue
 * gets the comment posted there too (a `tracker-issue` job, sent in the same transaction).
 */
export async function addComment(
  { db, jobs }: { db: Kysely<DB>; jobs: Jobs },
  user: UserPrincipal,
  finding: ResolvedInApplication,
  input: CreateCommentInput,
  audit: AuditContext,
): Promise<CommentRecord> {
  if (input.content.trim() === '') {
    throw badRequest('validation_failed', 'The comment is blank', [
      { path: 'body.content', message: 'must not be blank' },
    ]);
  }
  const parentId = input.parent_id ?? null;
  const id = await db.transaction().execute(async (trx) => {
    if (parentId !== null) {
      const parent = await commentFinding(trx, parentId);
      if (parent?.finding_id !== finding.id) {
        throw badRequest('invalid_parent', `Comment ${parentId} is not a comment of this finding`, [
          {
            path: input.parent_id !== undefined ? 'body.parent_id' : 'body.parentId',
            message: 'must be a comment of this finding',
          },
        ]);
      }
    }
    const comment = await insertComment(trx, {
      finding_id: finding.id,
      parent_id: parentId,
      author_id: user.id,
      content: input.content,
    });
    await recordTimeline(trx, [
      {
        findingId: finding.id,
        type: 'commented',
        actor: { userId: user.id },
        detail: { comment_id: comment.id, ...(parentId !== null ? { parent_id: parentId } : {}) },
      },
    ]);
    const links = await trx
      .selectFrom('tracker_issues')
      .select('id')
      .where('finding_id', '=', finding.id)
      .where('state', '!=', 'failed')
      .execute();
    await jobs.sendMany(
      trx,
      'tracker-issue',
      links.map((link) => ({ linkId: link.id, action: 'comment' as const, commentId: comment.id })),
    );
    // Who commented where; the text itself stays in the comment (it may quote anything).
    await recordAudit(trx, audit, {
      action: 'finding.commented',
      target: { type: 'finding', id: finding.id },
      applicationId: finding.application_id,
      details: { comment_id: comment.id, parent_id: parentId, length: input.content.length },
    });
    return comment.id;
  });
  // Read back through the thread so the reply's depth is known.
  const created = presentThread(await commentsOf(db, finding.id)).find((comment) => comment.id === id);
  if (!created) throw new Error(`Comment ${id} vanished after insert`);
  return created;
}
