import { Type, type Static } from 'typebox';
import {
  ACCEPTANCE_STATUSES,
  DISMISSAL_COMMENT_CAP,
  DISMISSAL_REASONS,
  VEX_JUSTIFICATIONS,
} from '../../domain/findings/dismissal.ts';
import { SEVERITIES } from '../../domain/findings/severity.ts';
import { BodyObject, Nullable, NullableTimestamp, Timestamp } from '../../http/schemas.ts';

export const DismissalReasonSchema = Type.Enum(DISMISSAL_REASONS);
export const VexJustificationSchema = Type.Enum(VEX_JUSTIFICATIONS);
export const AcceptanceStatusSchema = Type.Enum(ACCEPTANCE_STATUSES);

const Id = Type.Integer({ minimum: 1, maximum: 2_147_483_647 });
const Text = Type.String({ maxLength: DISMISSAL_COMMENT_CAP });
const ExpiresAt = Type.String({
  maxLength: 64,
  description: 'ISO 8601 date or date-time; a time without offset is UTC',
});

/** What an acceptance decides for: the findings named, or those a rule matches. */
export const AcceptanceMatchSchema = Type.Union(
  [
    Type.Object({ finding_ids: Type.Array(Type.Integer()) }, { additionalProperties: false }),
    Type.Object(
      {
        cve: Nullable(Type.String()),
        rule_id: Nullable(Type.String()),
        package: Nullable(Type.String()),
        path_prefix: Nullable(Type.String()),
      },
      { additionalProperties: false },
    ),
  ],
  { title: 'AcceptanceMatch' },
);

export const AcceptanceSchema = Type.Object(
  {
    id: Type.Integer(),
    group_id: Type.Integer(),
    /** Null: every application of the group. */
    application_id: Nullable(Type.Integer()),
    /** `pending` (waiting for a second person), `active` (covers its findings), `rejected`, `revoked`, `expired`. */
    status: AcceptanceStatusSchema,
    reason: DismissalReasonSchema,
    justification: Nullable(VexJustificationSchema),
    impact_statement: Nullable(Type.String()),
    comment: Nullable(Type.String()),
    match: AcceptanceMatchSchema,
    expires_at: NullableTimestamp,
    owner_id: Nullable(Type.Integer()),
    created_by: Nullable(Type.Integer()),
    /** What made it besides a person's request, e.g. `{type: "vex", ...}`. */
    source: Nullable(Type.Object({}, { additionalProperties: true })),
    /** Who approved or rejected it, and when. */
    decided_by: Nullable(Type.Integer()),
    decided_at: NullableTimestamp,
    decision_comment: Nullable(Type.String()),
    /** Who revoked it (null when it expired by itself), and when it ended. */
    ended_by: Nullable(Type.Integer()),
    ended_at: NullableTimestamp,
    /** How many findings it covers now (the detail and the create answer). */
    covered_findings: Type.Optional(Type.Integer()),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'Acceptance' },
);
export type AcceptanceRecord = Static<typeof AcceptanceSchema>;

/**
 * An acceptance over finding ids, or over a rule (at least one of `cve`, `rule_id`, `package`;
 * `path_prefix` narrows it), in an application (`application_id`) or in every application of a group
 * (`group_id`).
 */
export const CreateAcceptanceBody = BodyObject({
  application_id: Type.Optional(Id),
  group_id: Type.Optional(Id),
  finding_ids: Type.Optional(Type.Array(Id, { minItems: 1, maxItems: 1000 })),
  cve: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  rule_id: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
  package: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
  path_prefix: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
  /** Default `accepted_risk`, which needs `expires_at`. */
  reason: Type.Optional(DismissalReasonSchema),
  justification: Type.Optional(Nullable(VexJustificationSchema)),
  impact_statement: Type.Optional(Nullable(Text)),
  comment: Type.Optional(Nullable(Text)),
  expires_at: Type.Optional(Nullable(ExpiresAt)),
  /** Who answers for the decision (default: the caller). */
  owner_id: Type.Optional(Nullable(Id)),
});
export type CreateAcceptanceInput = Static<typeof CreateAcceptanceBody>;

export const DecisionBody = BodyObject({ comment: Type.Optional(Nullable(Text)) });
export type DecisionInput = Static<typeof DecisionBody>;

export const ExtendBody = BodyObject({
  expires_at: ExpiresAt,
  comment: Type.Optional(Nullable(Text)),
});
export type ExtendInput = Static<typeof ExtendBody>;

export const AcceptanceListQuery = Type.Object(
  {
    /** `expiring` lists active acceptances ending within the notice days. */
    status: Type.Optional(Type.Enum([...ACCEPTANCE_STATUSES, 'expiring'])),
    application_id: Type.Optional(Id),
    group_id: Type.Optional(Id),
  },
  { additionalProperties: false },
);
export type AcceptanceListInput = Static<typeof AcceptanceListQuery>;

const MaxDays = Type.Integer({ minimum: 1, maximum: 3650 });
export const MaxDaysSchema = Type.Object(
  Object.fromEntries(SEVERITIES.map((severity) => [severity, Type.Optional(MaxDays)])) as Record<
    (typeof SEVERITIES)[number],
    Type.TOptional<typeof MaxDays>
  >,
  { additionalProperties: false, title: 'AcceptanceMaxDays' },
);

export const AcceptanceSettingsSchema = Type.Object(
  {
    /** Null: the global settings. */
    group_id: Nullable(Type.Integer()),
    /** Null: take the global value (for the global settings: off). */
    four_eyes: Nullable(Type.Boolean()),
    /** Longest accepted risk in days per severity; a severity absent has no limit (the group's override the global ones). */
    max_days: MaxDaysSchema,
    /** `acceptance.expiring` this many days before the end; null: the global value (default 7). */
    expiring_notice_days: Nullable(Type.Integer()),
    /** The values in force for this group after the global ones are applied. */
    effective: Type.Object({
      four_eyes: Type.Boolean(),
      max_days: MaxDaysSchema,
      expiring_notice_days: Type.Integer(),
    }),
  },
  { title: 'AcceptanceSettings' },
);
export type AcceptanceSettingsRecord = Static<typeof AcceptanceSettingsSchema>;

export const AcceptanceSettingsBody = BodyObject({
  four_eyes: Type.Optional(Nullable(Type.Boolean())),
  max_days: Type.Optional(Nullable(MaxDaysSchema)),
  expiring_notice_days: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 365 }))),
});
export type AcceptanceSettingsInput = Static<typeof AcceptanceSettingsBody>;
