import { Type, type Static, type TProperties } from 'typebox';
import { Nullable } from '../../http/schemas.ts';

/** A UTC day; checked as a calendar day by the service (2026-02-30 → 400). */
const Day = Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', maxLength: 10 });

const scopeQuery = {
  /** Only this application (id or unique slug); unknown or unreadable → 404. */
  application_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: '^[^\\u0000]*$' })),
  /** Only the applications of this group (id or path) the caller may read; unknown or unreadable → 404. */
  group_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: '^[^\\u0000]*$' })),
  /** First UTC day of the range (default: 89 days before `to`). */
  from: Type.Optional(Day),
  /** Last UTC day of the range, inclusive (default: today). At most 731 days after `from`. */
  to: Type.Optional(Day),
  /** `csv`: the same figures as RFC 4180 CSV (also with `Accept: text/csv`). */
  format: Type.Optional(Type.Enum(['json', 'csv'])),
};

const Interval = Type.Enum(['day', 'week', 'month']);

const query = <T extends TProperties>(extra: T) =>
  Type.Object({ ...scopeQuery, ...extra }, { additionalProperties: false });

/** Series: one point per period (weeks start on Monday, months on the 1st; periods clipped to the range). */
export const SeriesQuery = query({ interval: Type.Optional(Interval) });
export type SeriesQueryInput = Static<typeof SeriesQuery>;

/** Sums over the range, or per period when `interval` is given. */
export const TimeToFixQuery = query({
  interval: Type.Optional(Interval),
  /** Group the fixes by severity (default) or by scanner type. */
  by: Type.Optional(Type.Enum(['severity', 'scanner'])),
});
export type TimeToFixQueryInput = Static<typeof TimeToFixQuery>;

export const SlaQuery = query({ interval: Type.Optional(Interval) });
export type SlaQueryInput = Static<typeof SlaQuery>;

export const AsOfQuery = query({});
export type AsOfQueryInput = Static<typeof AsOfQuery>;

export const TopApplicationsQuery = query({
  /** Rank by the open findings' summed risk score (default) or by open findings past due. */
  by: Type.Optional(Type.Enum(['risk', 'breach'])),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
});
export type TopApplicationsQueryInput = Static<typeof TopApplicationsQuery>;

export type MetricsQueryInput = SeriesQueryInput & {
  by?: string;
  limit?: number;
};

const Count = Type.Integer({ minimum: 0 });
const Percent = Nullable(Type.Number({ minimum: 0, maximum: 100 }));

const Range = {
  from: Day,
  to: Day,
};

const severityCounts = {
  critical: Count,
  high: Count,
  medium: Count,
  low: Count,
  info: Count,
};

export const OpenOverTimeSchema = Type.Object({
  ...Range,
  interval: Interval,
  /** Open (`open` or `confirmed`) findings by severity at the end of each period's last day. */
  points: Type.Array(Type.Object({ date: Day, ...severityCounts, total: Count })),
});
export type OpenOverTime = Static<typeof OpenOverTimeSchema>;

export const NewVersusFixedSchema = Type.Object({
  ...Range,
  interval: Interval,
  /** Findings first seen, and fixed, within each period. */
  points: Type.Array(Type.Object({ period_start: Day, period_end: Day, new: Count, fixed: Count })),
});
export type NewVersusFixed = Static<typeof NewVersusFixedSchema>;

export const TimeToFixSchema = Type.Object({
  ...Range,
  interval: Nullable(Interval),
  by: Type.Enum(['severity', 'scanner']),
  /** Per period (one period, the range, without `interval`) and severity or scanner type. */
  rows: Type.Array(
    Type.Object({
      period_start: Day,
      period_end: Day,
      /** A severity, or a scanner type's name. */
      key: Type.String(),
      fixed: Count,
      /** Mean days from first seen to fixed (2 decimals). */
      mean_days: Nullable(Type.Number()),
      /** Lower median in whole days; exact below 31 days, else the lower bound of its week or 30-day step. */
      median_days: Nullable(Type.Integer()),
    }),
  ),
});
export type TimeToFix = Static<typeof TimeToFixSchema>;

const SlaFigures = {
  /** Findings fixed in the period. */
  fixed: Count,
  /** Of those, the ones that had a due date. */
  sla_fixed: Count,
  /** Of those, fixed on or before it. */
  within_sla: Count,
  /** within_sla ÷ sla_fixed × 100 (2 decimals); null without fixes that had a due date. */
  compliance_percent: Percent,
};

export const SlaSchema = Type.Object({
  ...Range,
  interval: Nullable(Interval),
  /** The day `breached` is read on (the last snapshot on or before `to`); null without one. */
  as_of: Nullable(Day),
  ...SlaFigures,
  /** Open findings past their due date at the end of `as_of`. */
  breached: Count,
  by_severity: Type.Array(Type.Object({ severity: Type.String(), ...SlaFigures, breached: Count })),
  periods: Type.Array(Type.Object({ period_start: Day, period_end: Day, ...SlaFigures })),
});
export type Sla = Static<typeof SlaSchema>;

export const AgeingSchema = Type.Object({
  ...Range,
  as_of: Nullable(Day),
  /** Open findings by severity and days since first seen, at the end of `as_of`. */
  rows: Type.Array(
    Type.Object({
      severity: Type.String(),
      days_0_7: Count,
      days_8_30: Count,
      days_31_90: Count,
      days_over_90: Count,
    }),
  ),
});
export type Ageing = Static<typeof AgeingSchema>;

export const BurndownSchema = Type.Object({
  ...Range,
  interval: Interval,
  /** Open findings at the start of the range (end of the day before `from`). */
  open_at_start: Count,
  /** At the end of each period: open findings, and new and fixed ones since `from`. */
  points: Type.Array(Type.Object({ date: Day, open: Count, new_cumulative: Count, fixed_cumulative: Count })),
});
export type Burndown = Static<typeof BurndownSchema>;

export const TopApplicationsSchema = Type.Object({
  ...Range,
  as_of: Nullable(Day),
  by: Type.Enum(['risk', 'breach']),
  applications: Type.Array(
    Type.Object({
      id: Type.Integer(),
      name: Type.String(),
      slug: Type.String(),
      group_id: Type.Integer(),
      /** Open findings, their summed risk score, and those past due, at the end of `as_of`. */
      open: Count,
      risk: Count,
      breached: Count,
    }),
  ),
});
export type TopApplications = Static<typeof TopApplicationsSchema>;
