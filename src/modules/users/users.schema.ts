import { Type, type Static } from 'typebox';
import { BodyObject, NullableTimestamp, RoleSchema, Timestamp } from '../../http/schemas.ts';

export const UserSchema = Type.Object(
  {
    id: Type.Integer(),
    email: Type.String(),
    name: Type.String(),
    role: RoleSchema,
    disabled: Type.Boolean(),
    last_login_at: NullableTimestamp,
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'User' },
);
export type UserRecord = Static<typeof UserSchema>;

export const CreateUserBody = BodyObject({
  email: Type.String({ format: 'email', maxLength: 320 }),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  /** At least 12 characters. */
  password: Type.String({ minLength: 12, maxLength: 1024 }),
  role: Type.Optional(RoleSchema),
});
export type CreateUserInput = Static<typeof CreateUserBody>;

const Password = Type.String({ minLength: 12, maxLength: 1024, description: 'At least 12 characters' });

/**
 * What may change, by role: a member may change only their own `name`; an admin also `role`,
 * `disabled` and `email` (normalized like at creation; 409 `email_taken` when in use). Nothing else
 * (passwords have their own routes, ids and timestamps are not writable): an unknown field is a 400.
 */
export const UpdateUserBody = BodyObject(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    role: Type.Optional(RoleSchema),
    disabled: Type.Optional(Type.Boolean()),
    email: Type.Optional(Type.String({ format: 'email', maxLength: 320 })),
  },
  { minProperties: 1 },
);
export type UpdateUserInput = Static<typeof UpdateUserBody>;

/** An admin sets another user's password (`new_password`, or its twin `newPassword`). */
/** Also accepted as `revokeApiKeys`. */
const RevokeApiKeys = Type.Optional(
  Type.Boolean({
    description:
      'Also revoke every API key of the user (default false: keys are separate credentials and keep working). Set it when the password may have leaked: a key made with it would outlive the change.',
  }),
);

export const ResetPasswordBody = BodyObject({
  new_password: Password,
  revoke_api_keys: RevokeApiKeys,
});
export type ResetPasswordInput = Static<typeof ResetPasswordBody>;

/** A user changes their own password; twins `currentPassword` / `newPassword`. */
export const ChangePasswordBody = BodyObject({
  current_password: Type.String({ minLength: 1, maxLength: 1024 }),
  new_password: Password,
  revoke_api_keys: RevokeApiKeys,
});
export type ChangePasswordInput = Static<typeof ChangePasswordBody>;

export const PasswordChangedSchema = Type.Object(
  {
    id: Type.Integer(),
    /** Sessions ended by the change (all of the user's others). */
    sessions_revoked: Type.Integer(),
    /** API keys revoked by the change: 0 unless `revoke_api_keys` was true. */
    api_keys_revoked: Type.Integer(),
  },
  { title: 'PasswordChanged' },
);
export type PasswordChanged = Static<typeof PasswordChangedSchema>;
