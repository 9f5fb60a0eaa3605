import { Type } from 'typebox';
import { ADMIN_RESOURCES, POLICY_ACTIONS, vocabularyDescription } from '../../access/vocabulary.ts';
import { AccessActionSchema, BodyObject, Timestamp } from '../../http/schemas.ts';

const PolicyActionSchema = Type.Enum([...POLICY_ACTIONS], {
  description: `What the policy allows; which actions a resource takes:\n\n${vocabularyDescription()}`,
});

export const PermissionSchema = Type.Object(
  {
    id: Type.Integer(),
    /** `user:<id>` or `team:<id>`. */
    subject: Type.String(),
    /** `application:<id>`, `group:<id>`, `*` (every application) or an administrative resource. */
    resource: Type.String(),
    action: PolicyActionSchema,
    created_at: Timestamp,
  },
  { title: 'Permission' },
);

const Subject = Type.String({
  pattern: '^(user|team):[1-9][0-9]*$',
  maxLength: 20,
  description: '`user:<id>` or `team:<id>`',
});
const Resource = Type.String({
  pattern: `^((application|group):[1-9][0-9]*|\\*|${ADMIN_RESOURCES.join('|')})$`,
  maxLength: 30,
  description: `\`application:<id>\`, \`group:<id>\`, \`*\` (every application), or an administrative resource:\n\n${vocabularyDescription()}`,
});

export const ApplicationGrantBody = BodyObject({ subject: Subject, action: AccessActionSchema });
export const AdminGrantBody = BodyObject({
  subject: Subject,
  resource: Resource,
  action: PolicyActionSchema,
});
export const AdminListQuery = Type.Object({ subject: Type.Optional(Type.String({ maxLength: 100 })) });

const Id = Type.Union([
  Type.Integer({ minimum: 1 }),
  Type.String({ pattern: '^[1-9][0-9]*$', maxLength: 10 }),
]);
/** The older grant shape: `application_id`, `user_id` (or `team_id`), `permission`. */
export const LegacyGrantBody = BodyObject({
  application_id: Id,
  user_id: Type.Optional(Id),
  team_id: Type.Optional(Id),
  permission: AccessActionSchema,
});
