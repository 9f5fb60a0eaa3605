import { Type, type Static } from 'typebox';
import { BodyObject, NullableTimestamp, Timestamp } from '../../http/schemas.ts';

export const ApiKeySchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    /** First characters of the key, to tell keys apart; the key itself is shown only once. */
    prefix: Type.String(),
    /** A read-only key is refused (403 `read_only_key`) on every POST, PUT, PATCH and DELETE. */
    read_only: Type.Boolean(),
    expires_at: NullableTimestamp,
    last_used_at: NullableTimestamp,
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'ApiKey' },
);
export type ApiKeyRecord = Static<typeof ApiKeySchema>;

export const CreatedApiKeySchema = Type.Intersect([
  ApiKeySchema,
  Type.Object({
    key: Type.String({ description: 'The raw key (`shk_…`). Returned only in this response.' }),
  }),
]);

const ExpiresAt = Type.String({ format: 'date-time', maxLength: 64 });

export const CreateApiKeyBody = BodyObject({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  /** Also accepted as `expiresAt`. */
  expires_at: Type.Optional(ExpiresAt),
  /** Also accepted as `readOnly`; default false (the key may do what its owner may). */
  read_only: Type.Optional(Type.Boolean()),
});
export type CreateApiKeyInput = Static<typeof CreateApiKeyBody>;

export const RevokedApiKeySchema = Type.Object(
  {
    id: Type.Integer(),
    revoked: Type.Boolean(),
    revoked_at: Timestamp,
  },
  { title: 'RevokedApiKey' },
);
