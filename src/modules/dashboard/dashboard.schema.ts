import { Type, type Static } from 'typebox';
import { Nullable } from '../../http/schemas.ts';

/**
 * Which findings the figures count: `security` (the default: code-quality results are left out),
 * `quality`, or `all`.
 */
export const ConcernQuery = Type.Enum(['security', 'quality', 'all']);

export const DashboardQuery = Type.Object({
  /** Limit every number to one application (id or unique slug); unknown or unreadable → 404. */
  applicationId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  /**
   * Which findings the figures count: `security` (the default: code-quality results are left out),
   * `quality`, or `all`.
   */
  concern: Type.Optional(ConcernQuery),
});
export type DashboardQueryInput = Static<typeof DashboardQuery>;

const Count = Type.Integer({ minimum: 0 });

const StatusCounts = Type.Object({
  open: Count,
  confirmed: Count,
  false_positive: Count,
  fixed: Count,
});

const SeverityCounts = Type.Object({
  critical: Count,
  high: Count,
  medium: Count,
  low: Count,
  info: Count,
});

export const DashboardStatsSchema = Type.Object(
  {
    /** What the figures count: `security` unless the query asked for `quality` or `all`. */
    concern: Type.Enum(['security', 'quality', 'all']),
    /** Finding counts by severity, then status; every combination present (zeros included). */
    by_severity_status: Type.Object({
      critical: StatusCounts,
      high: StatusCounts,
      medium: StatusCounts,
      low: StatusCounts,
      info: StatusCounts,
    }),
    /** Open findings (`open` or `confirmed`) by severity. */
    open_by_severity: SeverityCounts,
    totals: Type.Object({
      findings: Count,
      /** `open` or `confirmed`. */
      open: Count,
      fixed: Count,
      false_positive: Count,
    }),
    /** Findings first seen in the last 7 / 30 days, whatever their status now. */
    new_last_7_days: Count,
    new_last_30_days: Count,
    /** Findings now `fixed` whose `fixed_at` is in the last 7 / 30 days. */
    fixed_last_7_days: Count,
    fixed_last_30_days: Count,
    /** Mean of `fixed_at − first_seen_at` over `fixed` findings, in days (2 decimals); null when none. */
    mean_time_to_fix_days: Nullable(Type.Number()),
    /** Open findings whose due date has passed. */
    overdue: Count,
    /** Up to 10 applications with open findings, by the sum of their open findings' risk scores. */
    top_applications: Type.Array(
      Type.Object({
        id: Type.Integer(),
        name: Type.String(),
        slug: Type.String(),
        open_findings: Count,
        open_risk: Count,
      }),
    ),
    /** Scans uploaded in the last 30 days, any status. */
    scans_last_30_days: Count,
    /** Applications counted (readable by the caller, or the one asked for). */
    applications: Count,
  },
  { title: 'DashboardStats' },
);
export type DashboardStats = Static<typeof DashboardStatsSchema>;

export const DashboardTrendQuery = Type.Object({
  /** Limit to one application (id or unique slug); unknown or unreadable → 404. */
  applicationId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  /** How many days back, today included (default 30, at most 365). */
  days: Type.Optional(Type.Integer({ minimum: 1, maximum: 365, default: 30 })),
  /** Which findings are counted: `security` (the default), `quality`, or `all`, as the summary. */
  concern: Type.Optional(ConcernQuery),
});
export type DashboardTrendQueryInput = Static<typeof DashboardTrendQuery>;

export const DashboardTrendSchema = Type.Object(
  {
    /** What the figures count: `security` unless the query asked for `quality` or `all`. */
    concern: ConcernQuery,
    /** One entry per UTC day, oldest first, every day present (zeros included). */
    days: Type.Array(
      Type.Object({
        /** The UTC day, `YYYY-MM-DD`. */
        date: Type.String(),
        /** Findings first seen that day, whatever their status now. */
        new: Count,
        /** Findings now `fixed` whose `fixed_at` falls on that day. */
        fixed: Count,
      }),
    ),
  },
  { title: 'DashboardTrend' },
);
export type DashboardTrend = Static<typeof DashboardTrendSchema>;
