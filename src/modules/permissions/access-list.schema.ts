import { Type, type Static } from 'typebox';
import { AccessActionSchema, BodyObject, Nullable } from '../../http/schemas.ts';

/**
 * One grant that reaches an application or group, with whom it names and where it comes from: on the
 * thing itself (`direct`), on the application's group (`group`), or on everything (`everything`, an
 * admin's `*` policy). Revoking is possible only where the grant lives.
 */
export const AccessEntrySchema = Type.Object(
  {
    /** The permission policy's id. */
    permission_id: Type.Integer(),
    /** `user:<id>` or `team:<id>`, as the grant routes take it. */
    subject: Type.String(),
    subject_kind: Type.Enum(['user', 'team']),
    /** The user's or team's name. */
    name: Type.String(),
    /** The user's email; null for a team. */
    email: Nullable(Type.String()),
    action: AccessActionSchema,
    source: Type.Enum(['direct', 'group', 'everything']),
    /** The group a `group` grant is on (the application's group). */
    group: Nullable(Type.Object({ id: Type.Integer(), name: Type.String(), path: Type.String() })),
  },
  { title: 'AccessEntry' },
);
export type AccessEntry = Static<typeof AccessEntrySchema>;

export const AccessListSchema = Type.Object(
  {
    entries: Type.Array(AccessEntrySchema),
    /** Whether the caller may grant and revoke here (write on the application or group). */
    can_administer: Type.Boolean(),
  },
  { title: 'AccessList' },
);
export type AccessList = Static<typeof AccessListSchema>;

export const GroupGrantBody = BodyObject({
  subject: Type.String({
    pattern: '^(user|team):[1-9][0-9]*$',
    maxLength: 20,
    description: '`user:<id>` or `team:<id>`',
  }),
  action: AccessActionSchema,
});
