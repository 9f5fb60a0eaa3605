import { Type, type Static } from 'typebox';
import { CONDITION_FIELDS } from '../../domain/policies/definition.ts';
import { BodyObject, Nullable, Timestamp } from '../../http/schemas.ts';

/**
 * A policy body in either spec shape. JSON types are checked here; what the values mean (fields, ops,
 * patterns, targets) is checked by src/domain/policies/definition.ts, which names each bad field.
 */
const Scalar = Type.Union([Type.String({ maxLength: 1000 }), Type.Number()]);
/** A condition's value: `sla_breached` also takes a JSON boolean. */
const ConditionScalar = Type.Union([Type.String({ maxLength: 1000 }), Type.Number(), Type.Boolean()]);
const ConditionSchema = Type.Object(
  {
    field: Type.String({ maxLength: 64 }),
    op: Type.String({ maxLength: 16 }),
    value: Type.Union([ConditionScalar, Type.Array(Scalar, { maxItems: 100 })]),
  },
  { additionalProperties: false },
);
/** The earlier shape: `{field: [values]}`. */
const LegacyConditions = Type.Object(
  Object.fromEntries(
    CONDITION_FIELDS.map((field) => [
      field,
      Type.Optional(Type.Union([Scalar, Type.Array(Scalar, { maxItems: 100 })])),
    ]),
  ),
  { additionalProperties: false },
);
const ActionSchema = Type.Object(
  {
    type: Type.String({ maxLength: 32 }),
    target: Type.Optional(Nullable(Scalar)),
    /** The earlier shape: `{user_id}` for assign, `{text}` for comment. */
    params: Type.Optional(
      Type.Object(
        {
          user_id: Type.Optional(Type.Integer()),
          userId: Type.Optional(Type.Integer()),
          status: Type.Optional(Type.String({ maxLength: 32 })),
          text: Type.Optional(Type.String({ maxLength: 1000 })),
          content: Type.Optional(Type.String({ maxLength: 1000 })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

const EventName = Type.String({ maxLength: 64 });

const definitionFields = {
  event_types: Type.Optional(Type.Array(EventName, { maxItems: 10 })),
  /** The earlier shape's single trigger. */
  trigger: Type.Optional(EventName),
  conditions: Type.Optional(Type.Union([Type.Array(ConditionSchema, { maxItems: 20 }), LegacyConditions])),
  actions: Type.Optional(Type.Array(ActionSchema, { maxItems: 10 })),
};

const ScopeType = Type.Enum(['application', 'group', 'global']);
const ScopeId = Type.Integer({ minimum: 1, maximum: 2_147_483_647 });
const scopeFields = {
  scope_type: Type.Optional(ScopeType),
  scope_id: Type.Optional(ScopeId),
  application_id: Type.Optional(ScopeId),
  group_id: Type.Optional(ScopeId),
};

const Name = Type.String({ minLength: 1, maxLength: 200 });

export const CreatePolicyBody = BodyObject({
  name: Name,
  ...scopeFields,
  ...definitionFields,
  enabled: Type.Optional(Type.Boolean()),
});
export type CreatePolicyInput = Static<typeof CreatePolicyBody>;

/** PUT replaces the definition (as POST); PATCH changes what it names. */
export const PatchPolicyBody = BodyObject(
  {
    name: Type.Optional(Name),
    ...definitionFields,
    enabled: Type.Optional(Type.Boolean()),
  },
  { minProperties: 1 },
);
export type PatchPolicyInput = Static<typeof PatchPolicyBody>;

/** A policy to try without saving (`POST /api/policies/test`). */
export const DryRunBody = BodyObject({
  name: Type.Optional(Name),
  ...scopeFields,
  ...definitionFields,
  enabled: Type.Optional(Type.Boolean()),
});
export type DryRunInput = Static<typeof DryRunBody>;

export const PolicySchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    scope_type: ScopeType,
    scope_id: Nullable(Type.Integer()),
    application_id: Nullable(Type.Integer()),
    group_id: Nullable(Type.Integer()),
    event_types: Type.Array(Type.String()),
    conditions: Type.Array(
      Type.Object({
        field: Type.String(),
        op: Type.String(),
        value: Type.Union([Scalar, Type.Array(Scalar)]),
      }),
    ),
    actions: Type.Array(Type.Object({ type: Type.String(), target: Nullable(Scalar) })),
    enabled: Type.Boolean(),
    created_by: Nullable(Type.Integer()),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'Policy' },
);
export type PolicyRecord = Static<typeof PolicySchema>;

/** One evaluation of a policy on one change. */
export const PolicyRunSchema = Type.Object(
  {
    id: Type.Integer(),
    policy_id: Type.Integer(),
    event: Type.String(),
    /** 1 for the change itself; 2 and 3 for what policies' own changes set off. */
    depth: Type.Integer(),
    /** Findings the policy was evaluated on. */
    evaluated: Type.Integer(),
    /** How many it matched and acted on, and which. */
    matched: Type.Integer(),
    finding_ids: Type.Array(Type.Integer()),
    actions: Nullable(Type.Array(Type.Object({ type: Type.String(), target: Nullable(Scalar) }))),
    /** Actions that could not run (an assignee since disabled), else null. */
    error: Nullable(Type.String()),
    created_at: Timestamp,
  },
  { title: 'PolicyRun' },
);

export const RunsQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
    before: Type.Optional(Type.Integer({ minimum: 1 })),
    finding_id: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false },
);
export type RunsQueryInput = Static<typeof RunsQuery>;

export const DryRunSchema = Type.Object(
  {
    /** How many existing findings in the policy's scope match its conditions. */
    matched: Type.Integer(),
    /** The first 100 of them. */
    findings: Type.Array(
      Type.Object({
        id: Type.Integer(),
        application_id: Type.Integer(),
        title: Type.String(),
        severity: Type.String(),
        status: Type.String(),
        assignee_id: Nullable(Type.Integer()),
      }),
    ),
    /** Per action, how many of the matches it would change. */
    effects: Type.Array(
      Type.Object({
        type: Type.String(),
        target: Nullable(Scalar),
        would_change: Type.Integer(),
        detail: Type.String(),
      }),
    ),
  },
  { title: 'DryRun' },
);
export type DryRunRecord = Static<typeof DryRunSchema>;
