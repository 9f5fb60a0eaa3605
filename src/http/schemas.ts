import { Type, type TProperties, type TObjectOptions, type TSchema } from 'typebox';
import { isoString } from '../lib/timestamps.ts';

/** Shared schema pieces. Records are snake_case with `id`, `created_at`, `updated_at`. */

export const Timestamp = Type.String({ format: 'date-time' });
export const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);
/**
 * `null` first: Ajv runs with `coerceTypes`, and a string branch tried first turns `null` into `""`
 * (so `{"tag": null}` stored an empty string). Tried first, `null` matches as itself.
 */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([Type.Null(), schema]);

/**
 * A JSON request body: every field is declared (camelCase/snake_case twins included), so an unknown
 * field is a 400 `validation_failed` naming it instead of being ignored.
 */
export const BodyObject = <T extends TProperties>(properties: T, options: TObjectOptions = {}) =>
  Type.Object(properties, { ...options, additionalProperties: false });

/** Path parameter `{id}`; validated by the service so a malformed id is a 404, not a 400. */
export const IdParams = Type.Object({ id: Type.String() });

export const ProblemSchema = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.String(),
    errors: Type.Optional(Type.Array(Type.Object({ path: Type.String(), message: Type.String() }))),
  },
  { title: 'Problem', additionalProperties: true, description: 'RFC 9457 problem details' },
);

export const DeletedSchema = Type.Object(
  { id: Type.Integer(), deleted: Type.Boolean() },
  { title: 'Deleted' },
);

export const AssetCriticalitySchema = Type.Enum(['low', 'medium', 'high', 'critical']);
export const AccessActionSchema = Type.Enum(['read', 'write']);
export const RoleSchema = Type.Enum(['admin', 'member']);

/** ISO 8601 string for a Date column (or null). */
export function iso(value: Date): string;
export function iso(value: Date | null): string | null;
export function iso(value: Date | null): string | null {
  return value ? isoString(value) : null;
}
