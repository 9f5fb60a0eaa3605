import { Type, type Static } from 'typebox';

const Text = (maxLength: number) => Type.String({ minLength: 1, maxLength });
const NullableText = Type.Union([Type.Null(), Type.String()]);

/** Query of GET /api/audit-events; every parameter also in camelCase (`actorId`). */
export const ListAuditEventsQuery = Type.Object({
  /** `user`, `api_key`, `application_token`, `system`, `idp` or `anonymous`. */
  actor_type: Type.Optional(
    Type.Enum(['user', 'api_key', 'application_token', 'system', 'idp', 'anonymous']),
  ),
  /** A user's id (their sessions and API keys alike), an application's (its token), an issuer. */
  actor_id: Type.Optional(Text(500)),
  /** `resource.action` exactly, or a family: `user.*`. */
  action: Type.Optional(
    Type.String({ minLength: 1, maxLength: 100, pattern: '^[a-z_]+(\\.[a-z_]+|\\.\\*)?$' }),
  ),
  target_type: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: '^[a-z_]+$' })),
  target_id: Type.Optional(Text(200)),
  application_id: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647 })),
  /** From this time on (inclusive), ISO 8601. */
  since: Type.Optional(Type.String({ format: 'date-time', maxLength: 40 })),
  /** Before this time (exclusive), ISO 8601. */
  until: Type.Optional(Type.String({ format: 'date-time', maxLength: 40 })),
  /** The page after this one: the `next_cursor` of the previous answer (newest first). */
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 20, pattern: '^[0-9]+$' })),
  /** Default 50, at most 500. */
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
  /**
   * An export of every matching event instead of a page, streamed without a cap, oldest first:
   * `ndjson` (application/x-ndjson, one event a line) or `csv` (text/csv, formulas neutralised).
   */
  format: Type.Optional(Type.Enum(['json', 'ndjson', 'csv'])),
});
export type ListAuditEventsInput = Static<typeof ListAuditEventsQuery>;

export const AuditEventSchema = Type.Object(
  {
    id: Type.String({ description: 'Position in the chain (consecutive)' }),
    occurred_at: Type.String({ format: 'date-time' }),
    actor: Type.Object({ type: Type.String(), id: NullableText, label: NullableText }),
    action: Type.String(),
    target: Type.Object({ type: NullableText, id: NullableText, label: NullableText }),
    application_id: Type.Union([Type.Null(), Type.Integer()]),
    request_id: NullableText,
    ip: NullableText,
    user_agent: NullableText,
    changes: Type.Union([Type.Null(), Type.Record(Type.String(), Type.Unknown())]),
    details: Type.Union([Type.Null(), Type.Record(Type.String(), Type.Unknown())]),
    prev_hash: Type.String(),
    hash: Type.String(),
  },
  { title: 'AuditEvent' },
);
export type AuditEventRecord = Static<typeof AuditEventSchema>;

export const AuditEventPageSchema = Type.Object(
  {
    items: Type.Array(AuditEventSchema),
    /** Give it as `cursor` for the next (older) page; null on the last. */
    next_cursor: NullableText,
  },
  { title: 'AuditEventPage' },
);

const BrokenLinkSchema = Type.Object({
  id: Type.String(),
  reason: Type.Enum(['missing_rows', 'prev_hash_mismatch', 'hash_mismatch', 'head_mismatch']),
  detail: Type.String(),
});

export const ChainReportSchema = Type.Object(
  {
    ok: Type.Boolean(),
    checked: Type.Integer(),
    anchor: Type.Object({ id: Type.String(), prev_hash: Type.String() }),
    head: Type.Object({ id: Type.String(), hash: Type.String() }),
    first_broken: Type.Union([Type.Null(), BrokenLinkSchema]),
  },
  { title: 'AuditChainReport' },
);
