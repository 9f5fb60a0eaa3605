import { csvCell } from '../findings/findings-csv.presenter.ts';
import type {
  Ageing,
  Burndown,
  NewVersusFixed,
  OpenOverTime,
  Sla,
  TimeToFix,
  TopApplications,
} from './metrics.schema.ts';

/**
 * The numbers behind each metric as one CSV table (RFC 4180, CRLF, text quoted and neutralised
 * against spreadsheet formulas like the findings export): the rows the UI shows under its chart.
 */

type Cell = string | number | null;

function table(header: readonly string[], rows: readonly (readonly Cell[])[]): string {
  return [header.map((name) => csvCell(name)), ...rows.map((row) => row.map((cell) => csvCell(cell)))]
    .map((cells) => `${cells.join(',')}\r\n`)
    .join('');
}

export const metricsCsv = {
  'open-over-time': (result: OpenOverTime) =>
    table(
      ['date', 'critical', 'high', 'medium', 'low', 'info', 'total'],
      result.points.map((p) => [p.date, p.critical, p.high, p.medium, p.low, p.info, p.total]),
    ),
  'new-vs-fixed': (result: NewVersusFixed) =>
    table(
      ['period_start', 'period_end', 'new', 'fixed'],
      result.points.map((p) => [p.period_start, p.period_end, p.new, p.fixed]),
    ),
  'time-to-fix': (result: TimeToFix) =>
    table(
      ['period_start', 'period_end', result.by, 'fixed', 'mean_days', 'median_days'],
      result.rows.map((r) => [r.period_start, r.period_end, r.key, r.fixed, r.mean_days, r.median_days]),
    ),
  sla: (result: Sla) =>
    table(
      ['severity', 'fixed', 'sla_fixed', 'within_sla', 'compliance_percent', 'breached'],
      [
        ...result.by_severity.map((r) => [
          r.severity,
          r.fixed,
          r.sla_fixed,
          r.within_sla,
          r.compliance_percent,
          r.breached,
        ]),
        [
          'all',
          result.fixed,
          result.sla_fixed,
          result.within_sla,
          result.compliance_percent,
          result.breached,
        ],
      ],
    ),
  ageing: (result: Ageing) =>
    table(
      ['severity', 'days_0_7', 'days_8_30', 'days_31_90', 'days_over_90'],
      result.rows.map((r) => [r.severity, r.days_0_7, r.days_8_30, r.days_31_90, r.days_over_90]),
    ),
  burndown: (result: Burndown) =>
    table(
      ['date', 'open', 'new_cumulative', 'fixed_cumulative'],
      result.points.map((p) => [p.date, p.open, p.new_cumulative, p.fixed_cumulative]),
    ),
  'top-applications': (result: TopApplications) =>
    table(
      ['id', 'name', 'slug', 'open', 'risk', 'breached'],
      result.applications.map((a) => [a.id, a.name, a.slug, a.open, a.risk, a.breached]),
    ),
};
