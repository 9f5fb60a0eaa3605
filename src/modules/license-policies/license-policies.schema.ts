import { Type, type Static } from 'typebox';
import { SEVERITIES } from '../../domain/findings/severity.ts';
import { BodyObject, Nullable, Timestamp } from '../../http/schemas.ts';

const Name = Type.String({ minLength: 1, maxLength: 200 });
const Description = Nullable(Type.String({ maxLength: 2000 }));
const Id = Type.Integer({ minimum: 1, maximum: 2_147_483_647 });
const Mode = Type.Enum(['deny', 'allow'], {
  description:
    '`deny`: a component whose every alternative (its licence expression’s `OR`s) holds a listed licence breaks the policy; `allow`: one none of whose alternatives is wholly listed breaks it.',
});
const Severity = Type.Enum([...SEVERITIES]);
/** SPDX ids (`MIT`, `LicenseRef-…`), ranges (`GPL-2.0+`), `id WITH exception`, or an `OR` of those. */
const Licenses = Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: 500 });

export const LicensePolicySchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    description: Nullable(Type.String()),
    /** The group whose writers edit it and whose applications (subgroups included) it covers; null: global. */
    owner_group_id: Nullable(Type.Integer()),
    mode: Mode,
    licenses: Type.Array(Type.String()),
    /** Severity of the `license` findings it raises (the most severe policy broken wins). */
    severity: Severity,
    enabled: Type.Boolean(),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'LicensePolicy' },
);
export type LicensePolicyRecord = Static<typeof LicensePolicySchema>;

export const CreateLicensePolicyBody = BodyObject({
  name: Name,
  description: Type.Optional(Description),
  /** A group the caller may write; omitted or null: global (admins only). */
  owner_group_id: Type.Optional(Nullable(Id)),
  mode: Mode,
  licenses: Licenses,
  /** Default `high`. */
  severity: Type.Optional(Severity),
  /** Default true. */
  enabled: Type.Optional(Type.Boolean()),
});
export type CreateLicensePolicyInput = Static<typeof CreateLicensePolicyBody>;

export const UpdateLicensePolicyBody = BodyObject({
  name: Type.Optional(Name),
  description: Type.Optional(Description),
  mode: Type.Optional(Mode),
  licenses: Type.Optional(Licenses),
  severity: Type.Optional(Severity),
  enabled: Type.Optional(Type.Boolean()),
});
export type UpdateLicensePolicyInput = Static<typeof UpdateLicensePolicyBody>;

export const LicensePolicyListQuery = Type.Object(
  {
    /** Only the policies this group owns. */
    owner_group_id: Type.Optional(Id),
  },
  { additionalProperties: false },
);
