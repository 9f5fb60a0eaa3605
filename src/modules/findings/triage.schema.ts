import { Type, type Static } from 'typebox';
import { BodyObject, Nullable } from '../../http/schemas.ts';
import { DISMISSAL_COMMENT_CAP } from '../../domain/findings/dismissal.ts';
import { DismissalReasonSchema, FindingStatusSchema } from './findings.schema.ts';

const UserId = Type.Integer({ minimum: 1, maximum: 2_147_483_647 });
const DueDate = Nullable(
  Type.String({ maxLength: 64, description: 'ISO 8601 date or date-time; a time without offset is UTC' }),
);

/** Why a finding is dismissed; only with `status: false_positive` (optional: the spec's clients send none). */
const DismissalFields = {
  /** `false_positive`, `accepted_risk`, `wont_fix` or `used_in_tests`. */
  dismissal_reason: Type.Optional(Nullable(DismissalReasonSchema)),
  /** A comment on the dismissal, shown on the finding and its timeline. */
  dismissal_comment: Type.Optional(Nullable(Type.String({ maxLength: DISMISSAL_COMMENT_CAP }))),
};
export interface DismissalInput {
  status?: string | undefined;
  dismissal_reason?: Static<typeof DismissalReasonSchema> | null | undefined;
  dismissal_comment?: string | null | undefined;
}

export const StatusBody = BodyObject({
  /** Allowed moves: open → confirmed | false_positive; confirmed → fixed | false_positive; fixed → open; false_positive → open. */
  status: FindingStatusSchema,
  ...DismissalFields,
});
export type StatusInput = Static<typeof StatusBody>;

export const ReviewBody = BodyObject({
  /** Optional status to move to, by the same rules as PATCH /status. */
  status: Type.Optional(FindingStatusSchema),
  ...DismissalFields,
});
export type ReviewInput = Static<typeof ReviewBody>;

/**
 * `user_id` (or its twin `userId`) is required: a user id, or null to unassign. `due_date` (or
 * `dueDate`): a new due date, null to clear it, omitted to keep it (ingest sets the SLA due date).
 */
export const AssignBody = BodyObject({
  user_id: Nullable(UserId),
  due_date: Type.Optional(DueDate),
});
export type AssignInput = Static<typeof AssignBody>;

/** All or nothing: at least one of `status` and `assignee`. */
export const BulkBody = BodyObject({
  ids: Type.Array(UserId, { minItems: 1, maxItems: 1000, description: 'Finding ids (duplicates ignored)' }),
  status: Type.Optional(FindingStatusSchema),
  /** A user id, or null to unassign; due dates are kept. */
  assignee: Type.Optional(Nullable(UserId)),
  ...DismissalFields,
});
export type BulkInput = Static<typeof BulkBody>;

export const BulkResultSchema = Type.Object(
  {
    /** How many findings changed. */
    updated: Type.Integer(),
    /** The findings that changed. */
    ids: Type.Array(Type.Integer()),
    /** Requested findings that already had the requested status and assignee. */
    unchanged: Type.Array(Type.Integer()),
  },
  { title: 'BulkResult' },
);
export type BulkResult = Static<typeof BulkResultSchema>;
