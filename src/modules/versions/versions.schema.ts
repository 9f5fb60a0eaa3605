import { Type, type Static } from 'typebox';
import { BodyObject, Nullable, Timestamp } from '../../http/schemas.ts';

export const VersionSchema = Type.Object(
  {
    id: Type.Integer(),
    application_id: Type.Integer(),
    name: Type.String(),
    branch: Nullable(Type.String()),
    tag: Nullable(Type.String()),
    is_default: Type.Boolean(),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'Version' },
);
export type VersionRecord = Static<typeof VersionSchema>;

const VersionName = Type.String({ minLength: 1, maxLength: 200 });
const OptionalText = Type.Optional(Nullable(Type.String({ maxLength: 200 })));

export const CreateVersionBody = BodyObject({
  name: VersionName,
  branch: OptionalText,
  tag: OptionalText,
  is_default: Type.Optional(Type.Boolean()),
});
export type CreateVersionInput = Static<typeof CreateVersionBody>;

export const UpdateVersionBody = BodyObject(
  {
    name: Type.Optional(VersionName),
    branch: OptionalText,
    tag: OptionalText,
    /** `true` makes this the application's default version (the previous default stops being one). */
    is_default: Type.Optional(Type.Literal(true)),
  },
  { minProperties: 1 },
);
export type UpdateVersionInput = Static<typeof UpdateVersionBody>;

export const VersionParams = Type.Object({ id: Type.String(), versionId: Type.String() });
