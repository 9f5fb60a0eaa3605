import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';

function commentsQuery(db: Kysely<DB>) {
  return db
    .selectFrom('finding_comments as comment')
    .leftJoin('users as author', 'author.id', 'comment.author_id')
    .selectAll('comment')
    .select(['author.email as author_email', 'author.name as author_name']);
}

export type CommentRow = Awaited<ReturnType<ReturnType<typeof commentsQuery>['executeTakeFirstOrThrow']>>;

/** Every comment of a finding with its author, oldest first. */
export async function commentsOf(db: Kysely<DB>, findingId: number): Promise<CommentRow[]> {
  return commentsQuery(db).where('comment.finding_id', '=', findingId).orderBy('comment.id').execute();
}

/** The finding a comment belongs to, to check a reply stays in its thread. */
export async function commentFinding(trx: Transaction<DB>, id: number) {
  return trx
    .selectFrom('finding_comments')
    .select(['id', 'finding_id'])
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function insertComment(
  trx: Transaction<DB>,
  values: { finding_id: number; parent_id: number | null; author_id: number; content: string },
) {
  return trx.insertInto('finding_comments').values(values).returning('id').executeTakeFirstOrThrow();
}
