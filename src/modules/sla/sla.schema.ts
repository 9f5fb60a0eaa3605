import { Type, type Static } from 'typebox';
import { BodyObject, Nullable, Timestamp } from '../../http/schemas.ts';

/** Days to fix one severity, and whether it is enforced (an unenforced severity gets no due date). */
const SeverityDays = Type.Object(
  {
    days: Type.Integer({ minimum: 1, maximum: 3650 }),
    enforced: Type.Boolean(),
  },
  { additionalProperties: false },
);

const SeverityDaysInput = BodyObject({
  days: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650 })),
  enforced: Type.Optional(Type.Boolean()),
});

export const SlaSeveritiesSchema = Type.Object(
  { critical: SeverityDays, high: SeverityDays, medium: SeverityDays, low: SeverityDays, info: SeverityDays },
  { additionalProperties: false },
);

/** Severities a body sets: each optional (create: the built-in days; update: unchanged). */
const SeveritiesInput = BodyObject({
  critical: Type.Optional(SeverityDaysInput),
  high: Type.Optional(SeverityDaysInput),
  medium: Type.Optional(SeverityDaysInput),
  low: Type.Optional(SeverityDaysInput),
  info: Type.Optional(SeverityDaysInput),
});
export type SeveritiesInput = Static<typeof SeveritiesInput>;

const Name = Type.String({ minLength: 1, maxLength: 200 });
const Description = Nullable(Type.String({ maxLength: 2000 }));
const Id = Type.Integer({ minimum: 1, maximum: 2_147_483_647 });

export const SlaConfigurationSchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    description: Nullable(Type.String()),
    /** The configuration of every application without one of its own or of its groups. */
    is_default: Type.Boolean(),
    /** The group whose writers edit it; null: global (admins edit it). */
    owner_group_id: Nullable(Type.Integer()),
    severities: SlaSeveritiesSchema,
    /** Groups and applications it is assigned to directly. */
    assigned_groups: Type.Array(Type.Object({ id: Type.Integer(), path: Type.String() })),
    assigned_applications: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String() })),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'SlaConfiguration' },
);
export type SlaConfigurationRecord = Static<typeof SlaConfigurationSchema>;

export const CreateSlaConfigurationBody = BodyObject({
  name: Name,
  description: Type.Optional(Description),
  /** A group the caller may write; omitted or null: global (admins only). */
  owner_group_id: Type.Optional(Nullable(Id)),
  /** Days per severity; a severity left out takes the built-in days (critical 15 … info 365), enforced. */
  severities: Type.Optional(SeveritiesInput),
});
export type CreateSlaConfigurationInput = Static<typeof CreateSlaConfigurationBody>;

export const UpdateSlaConfigurationBody = BodyObject({
  name: Type.Optional(Name),
  description: Type.Optional(Description),
  /** Severities given change; the others stay. Open findings' SLA due dates follow at once. */
  severities: Type.Optional(SeveritiesInput),
});
export type UpdateSlaConfigurationInput = Static<typeof UpdateSlaConfigurationBody>;

export const AssignSlaBody = BodyObject({
  /** The configuration to assign; null: inherit again (the group's, an ancestor's, or the default). */
  sla_configuration_id: Nullable(Id),
});
export type AssignSlaInput = Static<typeof AssignSlaBody>;

/** Which configuration is in force for a group or an application, and where it comes from. */
export const SlaAssignmentSchema = Type.Object(
  {
    /** The configuration assigned here directly, or null (inherited). */
    assigned_id: Nullable(Type.Integer()),
    effective: SlaConfigurationSchema,
    /** `application`, `group` (this one or an ancestor, named by `group_path`) or `default`. */
    inherited_from: Type.Enum(['application', 'group', 'default']),
    group_path: Nullable(Type.String()),
    /**
     * Open findings whose due date changed. No longer sent: the due dates are recomputed by a
     * background job after the answer (kept optional so the shape is unchanged).
     */
    recomputed: Type.Optional(Type.Integer()),
  },
  { title: 'SlaAssignment' },
);
export type SlaAssignmentRecord = Static<typeof SlaAssignmentSchema>;
