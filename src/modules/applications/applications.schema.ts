import { Type, type Static } from 'typebox';
import { BodyObject, AssetCriticalitySchema, Nullable, Timestamp } from '../../http/schemas.ts';
import { VersionSchema } from '../versions/versions.schema.ts';

const Slug = Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$' });
const GroupRef = Type.Union([
  Type.Integer({ minimum: 1 }),
  Type.String({ pattern: '^[1-9][0-9]*$', maxLength: 10 }),
]);
const RepositoryUrl = Nullable(Type.String({ maxLength: 2000, pattern: '^(https?|ssh|git)://|^git@' }));

export const ApplicationSchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    slug: Type.String(),
    group_id: Type.Integer(),
    group_path: Type.String(),
    repository_url: Nullable(Type.String()),
    asset_criticality: AssetCriticalitySchema,
    /** First characters of the API token; the token itself is shown only on create and regenerate. */
    api_token_prefix: Type.String(),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'Application' },
);
export type ApplicationRecord = Static<typeof ApplicationSchema>;

export const ApplicationDetailSchema = Type.Intersect([
  ApplicationSchema,
  Type.Object({ default_version: Nullable(VersionSchema) }),
]);

export const CreatedApplicationSchema = Type.Intersect([
  ApplicationSchema,
  Type.Object({
    default_version: VersionSchema,
    api_token: Type.String({
      description: 'Application API token (`sht_…`) for X-Api-Token; shown only here.',
    }),
  }),
]);

/** Spec spelling; the camelCase twins (`groupId`, `repositoryUrl`, `assetCriticality`) are folded into it. */
export const CreateApplicationBody = BodyObject({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  slug: Slug,
  group_id: Type.Optional(GroupRef),
  repository_url: Type.Optional(RepositoryUrl),
  asset_criticality: Type.Optional(AssetCriticalitySchema),
});
export type CreateApplicationInput = Static<typeof CreateApplicationBody>;

export const UpdateApplicationBody = BodyObject(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    slug: Type.Optional(Slug),
    repository_url: Type.Optional(RepositoryUrl),
    asset_criticality: Type.Optional(AssetCriticalitySchema),
    /** Moves the application to this group (write needed there too; its slug must be free in it). */
    group_id: Type.Optional(GroupRef),
  },
  { minProperties: 1 },
);
export type UpdateApplicationInput = Static<typeof UpdateApplicationBody>;

export const RegeneratedTokenSchema = Type.Object(
  {
    id: Type.Integer(),
    api_token: Type.String(),
    api_token_prefix: Type.String(),
  },
  { title: 'RegeneratedToken' },
);
