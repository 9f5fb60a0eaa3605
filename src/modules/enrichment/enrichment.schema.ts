import { Type, type Static } from 'typebox';
import { NullableTimestamp, Timestamp } from '../../http/schemas.ts';

/** One import of EPSS or KEV data, with where it came from. */
export const SnapshotSchema = Type.Object({
  id: Type.Integer(),
  source: Type.Union([Type.Literal('epss'), Type.Literal('kev')]),
  format: Type.Union([Type.Literal('epss_csv'), Type.Literal('kev_json'), Type.Literal('kev_csv')]),
  /** EPSS `model_version`; KEV `catalogVersion` (CSV: `csv-<newest dateAdded>`). */
  version: Type.String(),
  /** EPSS `score_date`; KEV `dateReleased` (CSV: newest `dateAdded`): the day the data speaks for. */
  data_date: Type.String({ format: 'date' }),
  released_at: NullableTimestamp,
  row_count: Type.Integer(),
  file_name: Type.Union([Type.String(), Type.Null()]),
  sha256: Type.Union([Type.String(), Type.Null()]),
  /** `upload` (POST /api/admin/enrichment, `scanhub enrichment import`) or `fetch` (EPSS_URL / KEV_URL). */
  origin: Type.Union([Type.Literal('upload'), Type.Literal('fetch')]),
  imported_by: Type.Union([Type.Integer(), Type.Null()]),
  current: Type.Boolean(),
  /** Whole days since `data_date`. */
  age_days: Type.Integer(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const ImportResultSchema = Type.Object({
  /** `imported` (a new snapshot), `merged` (rows added to the current one), `unchanged`. */
  outcome: Type.Union([Type.Literal('imported'), Type.Literal('merged'), Type.Literal('unchanged')]),
  snapshot: SnapshotSchema,
  rows_read: Type.Integer(),
  rows_changed: Type.Integer(),
});

const SourceStatus = Type.Object({
  source: Type.Union([Type.Literal('epss'), Type.Literal('kev')]),
  /** The current snapshot, or null before the first import. */
  snapshot: Type.Union([SnapshotSchema, Type.Null()]),
  /** More than 7 days old, or none: the UI warns. */
  stale: Type.Boolean(),
  /** A URL is configured (`EPSS_URL` / `KEV_URL`): the daily job fetches it. */
  fetch_configured: Type.Boolean(),
});

export const EnrichmentStatusSchema = Type.Object({
  sources: Type.Array(SourceStatus),
  settings: Type.Object({
    kev_due_dates: Type.Boolean(),
    epss_percentile_threshold: Type.Number(),
  }),
  /** Findings listed in KEV / with an EPSS value, among those the caller can read. */
  findings: Type.Object({ in_kev: Type.Integer(), with_epss: Type.Integer() }),
});
export type EnrichmentStatus = Static<typeof EnrichmentStatusSchema>;

export const ImportForm = Type.Object({
  file: Type.String({
    format: 'binary',
    description: 'FIRST EPSS CSV, CISA KEV JSON or CSV, plain or gzip; the format is told from the content',
  }),
  force: Type.Optional(Type.Boolean({ description: 'Import a file older than the current snapshot' })),
});

export const UpdateEnrichmentSettingsBody = Type.Object(
  {
    /** A KEV due date earlier than the SLA's becomes the finding's due date. */
    kev_due_dates: Type.Optional(Type.Boolean()),
    /** `finding.epss_changed` fires when the EPSS percentile crosses this, up or down. */
    epss_percentile_threshold: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1 })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateEnrichmentSettings = Static<typeof UpdateEnrichmentSettingsBody>;
