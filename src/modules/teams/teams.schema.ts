import { Type } from 'typebox';
import { BodyObject, Timestamp } from '../../http/schemas.ts';

export const TeamMemberSchema = Type.Object(
  {
    team_id: Type.Integer(),
    user_id: Type.Integer(),
    email: Type.String(),
    name: Type.String(),
    role: Type.String(),
    created_at: Timestamp,
  },
  { title: 'TeamMember' },
);

export const TeamSchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    members: Type.Array(TeamMemberSchema),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'Team' },
);

export const CreateTeamBody = BodyObject({ name: Type.String({ minLength: 1, maxLength: 200 }) });

/** `user_id` (or its twin `userId`) may be a number or a numeric string. */
export const AddMemberBody = BodyObject({
  user_id: Type.Optional(
    Type.Union([Type.Integer({ minimum: 1 }), Type.String({ minLength: 1, maxLength: 10 })]),
  ),
  role: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
});

export const MemberParams = Type.Object({ id: Type.String(), userId: Type.String() });
