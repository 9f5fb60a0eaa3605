import { Type, type Static } from 'typebox';
import { BodyObject, Nullable, Timestamp } from '../../http/schemas.ts';
import { UserSummarySchema } from './findings.schema.ts';

export const MAX_COMMENT_LENGTH = 10_000;

export const CommentSchema = Type.Object(
  {
    id: Type.Integer(),
    finding_id: Type.Integer(),
    /** The comment this one replies to; null for a top-level comment. */
    parent_id: Nullable(Type.Integer()),
    /** 0 for a top-level comment, 1 for a reply, 2 for a reply to a reply, ... */
    depth: Type.Integer(),
    /** Null when the author's account was deleted. */
    author: Nullable(UserSummarySchema),
    content: Type.String(),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'Comment' },
);
export type CommentRecord = Static<typeof CommentSchema>;

export const CommentListSchema = Type.Array(CommentSchema, {
  description:
    'Flat list in thread order: each top-level comment (oldest first) followed depth-first by its replies (oldest first). Rebuild the tree from parent_id, or indent by depth.',
});

const ParentId = Type.Integer({ minimum: 1, maximum: 2_147_483_647 });

export const CreateCommentBody = BodyObject({
  /** Text of the comment; must not be blank. */
  content: Type.String({ minLength: 1, maxLength: MAX_COMMENT_LENGTH }),
  /** Reply to this comment of the same finding. */
  parent_id: Type.Optional(Nullable(ParentId)),
});
export type CreateCommentInput = Static<typeof CreateCommentBody>;
