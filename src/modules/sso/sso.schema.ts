import { Type, type Static } from 'typebox';
import { BodyObject, NullableTimestamp, Timestamp } from '../../http/schemas.ts';

export const SsoSettingsSchema = Type.Object(
  {
    /** Whether sign-in through an OpenID provider is configured. */
    enabled: Type.Boolean(),
    /** The provider's display name for "Sign in with …"; null when SSO is off. */
    provider_name: Type.Union([Type.String(), Type.Null()]),
    /** Where the browser goes to start signing in; null when SSO is off. */
    login_url: Type.Union([Type.String(), Type.Null()]),
    /** `break_glass_only`: password sign-in only for the named break-glass accounts. */
    password_login: Type.Enum(['enabled', 'break_glass_only']),
  },
  { title: 'SsoSettings' },
);

export const LoginQuery = Type.Object({
  /** A path on this site to return to after sign-in (anything else: `/`). */
  next: Type.Optional(Type.String({ maxLength: 2000 })),
});

/**
 * The provider's answer; checked by openid-client, so only bounded here. Providers add parameters
 * of their own (Keycloak's `session_state`, Entra's), so others are let through to that check.
 */
export const CallbackQuery = Type.Object(
  {
    code: Type.Optional(Type.String({ maxLength: 4096 })),
    state: Type.Optional(Type.String({ maxLength: 512 })),
    iss: Type.Optional(Type.String({ maxLength: 2000 })),
    error: Type.Optional(Type.String({ maxLength: 200 })),
    error_description: Type.Optional(Type.String({ maxLength: 2000 })),
    session_state: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: true },
);

export const GroupMappingSchema = Type.Object(
  {
    id: Type.Integer(),
    idp_group: Type.String(),
    team_id: Type.Union([Type.Integer(), Type.Null()]),
    team_name: Type.Union([Type.String(), Type.Null()]),
    grants_admin: Type.Boolean(),
    created_at: Timestamp,
  },
  { title: 'IdpGroupMapping' },
);
export type GroupMappingRecord = Static<typeof GroupMappingSchema>;

/** A provider group mapped to a team, to the admin role, or both. */
export const CreateGroupMappingBody = BodyObject({
  idp_group: Type.String({ minLength: 1, maxLength: 500 }),
  team_id: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
  grants_admin: Type.Optional(Type.Boolean()),
});
export type CreateGroupMappingInput = Static<typeof CreateGroupMappingBody>;

export const UserIdentitySchema = Type.Object(
  {
    issuer: Type.String(),
    subject: Type.String(),
    last_login_at: NullableTimestamp,
    /** The last sign-in's claims (ID token and userinfo; never tokens, nonce or hashes). */
    claims: Type.Record(Type.String(), Type.Unknown()),
    /** The groups read from the groups claim at that sign-in. */
    groups: Type.Array(Type.String()),
    /** The teams those groups map to now, and whether they give the admin role. */
    mapped_teams: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String() })),
    maps_to_admin: Type.Boolean(),
    /** The teams the user is on by the provider's groups (reset at each sign-in). */
    idp_teams: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String() })),
    admin_from_idp: Type.Boolean(),
  },
  { title: 'UserIdentity' },
);

export const UserIdentitiesSchema = Type.Object(
  { user_id: Type.Integer(), identities: Type.Array(UserIdentitySchema) },
  { title: 'UserIdentities' },
);
