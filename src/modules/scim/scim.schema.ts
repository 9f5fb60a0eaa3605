import { Type, type Static, type TSchema } from 'typebox';
import { BodyObject } from '../../http/schemas.ts';

/**
 * Request shapes of SCIM 2.0 (RFC 7643 §4 User and Group, RFC 7644 §3.5.2 PatchOp), strict like every
 * other body: each attribute of the core schemas and of the enterprise extension is declared and
 * bounded, anything else is a 400. scanhub keeps a user's userName, name, primary email, externalId
 * and active; the other core attributes (phone numbers, addresses, title…) are accepted because
 * providers send them by default, and not stored. Read-only attributes (`id`, `meta`, `groups`) are
 * ignored when sent (RFC 7643 §2.2).
 */

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const ENTERPRISE_USER_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
export const LIST_RESPONSE_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const PATCH_OP_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

const Text = (maxLength = 256) => Type.String({ maxLength });
/** Entra ID sends booleans as the strings "True"/"False"; read with `scimBoolean`. */
const Flag = Type.Union([Type.Boolean(), Type.String({ maxLength: 5 })]);
const Optional = <T extends TSchema>(schema: T) => Type.Optional(schema);

const Schemas = Type.Array(Text(), { maxItems: 8 });
/** One value of a multi-valued attribute (emails, phoneNumbers, addresses, photos, ims, roles…). */
const MultiValue = BodyObject({
  value: Optional(Text(2048)),
  display: Optional(Text()),
  type: Optional(Text(64)),
  primary: Optional(Flag),
  formatted: Optional(Text(1024)),
  streetAddress: Optional(Text(1024)),
  locality: Optional(Text()),
  region: Optional(Text()),
  postalCode: Optional(Text(64)),
  country: Optional(Text(64)),
  $ref: Optional(Text(2048)),
});
const MultiValued = Type.Array(MultiValue, { maxItems: 32 });
/** Read-only, ignored when sent; declared so a resource read from us can be sent back as it is. */
const ReadOnlyMeta = BodyObject({
  resourceType: Optional(Text(64)),
  created: Optional(Text(64)),
  lastModified: Optional(Text(64)),
  location: Optional(Text(2048)),
  version: Optional(Text(256)),
});

export const ScimUserBody = BodyObject({
  schemas: Schemas,
  id: Optional(Text()),
  externalId: Optional(Text()),
  userName: Type.String({ minLength: 1, maxLength: 254 }),
  name: Optional(
    BodyObject({
      formatted: Optional(Text()),
      familyName: Optional(Text()),
      givenName: Optional(Text()),
      middleName: Optional(Text()),
      honorificPrefix: Optional(Text(64)),
      honorificSuffix: Optional(Text(64)),
    }),
  ),
  displayName: Optional(Text()),
  nickName: Optional(Text()),
  profileUrl: Optional(Text(2048)),
  title: Optional(Text()),
  userType: Optional(Text()),
  preferredLanguage: Optional(Text(64)),
  locale: Optional(Text(64)),
  timezone: Optional(Text(64)),
  active: Optional(Flag),
  /** Never stored: provisioned people sign in through the provider (refused when sent). */
  password: Optional(Text(1024)),
  emails: Optional(MultiValued),
  phoneNumbers: Optional(MultiValued),
  ims: Optional(MultiValued),
  photos: Optional(MultiValued),
  addresses: Optional(MultiValued),
  groups: Optional(MultiValued),
  entitlements: Optional(MultiValued),
  roles: Optional(MultiValued),
  x509Certificates: Optional(MultiValued),
  [ENTERPRISE_USER_SCHEMA]: Optional(
    BodyObject({
      employeeNumber: Optional(Text()),
      costCenter: Optional(Text()),
      organization: Optional(Text()),
      division: Optional(Text()),
      department: Optional(Text()),
      manager: Optional(
        BodyObject({ value: Optional(Text()), displayName: Optional(Text()), $ref: Optional(Text(2048)) }),
      ),
    }),
  ),
  meta: Optional(ReadOnlyMeta),
});
export type ScimUserInput = Static<typeof ScimUserBody>;

const Member = BodyObject({
  value: Type.String({ minLength: 1, maxLength: 64 }),
  display: Optional(Text()),
  type: Optional(Text(16)),
  $ref: Optional(Text(2048)),
});

export const ScimGroupBody = BodyObject({
  schemas: Schemas,
  id: Optional(Text()),
  externalId: Optional(Text()),
  displayName: Type.String({ minLength: 1, maxLength: 200 }),
  members: Optional(Type.Array(Member, { maxItems: 10_000 })),
  meta: Optional(ReadOnlyMeta),
});
export type ScimGroupInput = Static<typeof ScimGroupBody>;

export const ScimPatchBody = BodyObject({
  schemas: Schemas,
  Operations: Type.Array(
    BodyObject({
      // Entra ID writes "Add", "Replace", "Remove".
      op: Type.String({ minLength: 1, maxLength: 16 }),
      path: Optional(Text(512)),
      value: Optional(Type.Unknown()),
    }),
    { minItems: 1, maxItems: 1_000 },
  ),
});
export type ScimPatchInput = Static<typeof ScimPatchBody>;

export const ScimListQuery = Type.Object(
  {
    filter: Optional(Text(1024)),
    startIndex: Optional(Type.Integer({ minimum: 1, maximum: 1_000_000_000 })),
    count: Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
    attributes: Optional(Text(1024)),
    excludedAttributes: Optional(Text(1024)),
    sortBy: Optional(Text(64)),
    sortOrder: Optional(Type.Enum(['ascending', 'descending'])),
  },
  { additionalProperties: false },
);
export type ScimListQueryInput = Static<typeof ScimListQuery>;

export const ScimIdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

/** "True", "false", true: a boolean, however the provider spelled it; anything else: undefined. */
export function scimBoolean(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (typeof value !== 'string') return undefined;
  const lower = value.toLowerCase();
  return lower === 'true' ? true : lower === 'false' ? false : undefined;
}

export const ScimTokenBody = BodyObject({ name: Type.String({ minLength: 1, maxLength: 100 }) });
export const ScimTokenSchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    prefix: Type.String(),
    last_used_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    created_at: Type.String({ format: 'date-time' }),
  },
  { title: 'ScimToken' },
);
export const CreatedScimTokenSchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    prefix: Type.String(),
    last_used_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    created_at: Type.String({ format: 'date-time' }),
    token: Type.String({ description: 'The bearer token, shown only in this answer.' }),
  },
  { title: 'CreatedScimToken' },
);
