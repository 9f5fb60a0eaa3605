import { Type, type Static } from 'typebox';
import { NullableTimestamp, RoleSchema, Timestamp } from '../../http/schemas.ts';

export const UserSchema = Type.Object({
  id: Type.Integer(),
  email: Type.String(),
  name: Type.String(),
  role: RoleSchema,
  disabled: Type.Boolean(),
  last_login_at: NullableTimestamp,
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type UserRecord = Static<typeof UserSchema>;

export const CreateUserBody = Type.Object({
  email: Type.String({ format: 'email', maxLength: 320 }),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  /** At least 12 characters. */
  password: Type.String({ minLength: 12, maxLength: 1024 }),
  role: Type.Optional(RoleSchema),
});
export type CreateUserInput = Static<typeof CreateUserBody>;

export const UpdateUserBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    role: Type.Optional(RoleSchema),
    disabled: Type.Optional(Type.Boolean()),
  },
  { minProperties: 1 },
);
export type UpdateUserInput = Static<typeof UpdateUserBody>;
