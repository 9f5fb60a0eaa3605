import type { TSchema } from 'typebox';
import { Type } from 'typebox';
import type { App, AppContext } from '../../app-context.ts';
import { currentUser } from '../../http/auth.ts';
import { metricsCsv } from './metrics-csv.presenter.ts';
import {
  AgeingSchema,
  AsOfQuery,
  BurndownSchema,
  NewVersusFixedSchema,
  OpenOverTimeSchema,
  SeriesQuery,
  SlaQuery,
  SlaSchema,
  TimeToFixQuery,
  TimeToFixSchema,
  TopApplicationsQuery,
  TopApplicationsSchema,
} from './metrics.schema.ts';
import {
  ageing,
  burndown,
  newVersusFixed,
  openOverTime,
  slaCompliance,
  timeToFix,
  topApplications,
} from './metrics.service.ts';

type MetricName = keyof typeof metricsCsv;

const SCOPE =
  'Over the applications the caller may read: all of them, one application (`application_id`), or those of one group (`group_id`). ' +
  'Days are UTC; `from`..`to` (inclusive) is at most 731 days, `to` defaults to today and `from` to 89 days before it. ' +
  'Read from the daily posture snapshots. With `format=csv` or `Accept: text/csv`, the same figures as CSV.';

const wantsCsv = (accept: string | undefined, format: string | undefined): boolean =>
  format === 'csv' || (format === undefined && (accept ?? '').toLowerCase().includes('text/csv'));

/** `/api/metrics/...`: posture over time (issue 47), JSON or CSV. */
export function metricsRoutes(app: App, { db }: AppContext): void {
  const metric = <Q extends TSchema, R>(
    name: MetricName,
    details: { operationId: string; summary: string; description: string; querystring: Q; response: TSchema },
    compute: (query: never, user: ReturnType<typeof currentUser>) => Promise<R>,
  ) => {
    app.get(
      `/api/metrics/${name}`,
      {
        config: { access: 'posture.read' },
        schema: {
          operationId: details.operationId,
          tags: ['metrics'],
          summary: details.summary,
          description: `${details.description} ${SCOPE}`,
          querystring: details.querystring,
          response: {
            200: {
              description: details.summary,
              content: {
                'application/json': { schema: details.response },
                'text/csv': { schema: Type.String({ description: 'RFC 4180 CSV, one header row' }) },
              },
            },
          },
        },
      },
      async (request, reply) => {
        const query = request.query as { format?: string };
        const result = await compute(request.query as never, currentUser(request));
        if (!wantsCsv(request.headers.accept, query.format)) return result;
        const render = metricsCsv[name] as (value: R) => string;
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="${name}.csv"`)
          .serializer((payload) => payload as string)
          .send(render(result));
      },
    );
  };

  metric(
    'open-over-time',
    {
      operationId: 'getMetricsOpenOverTime',
      summary: 'Open findings by severity over time',
      description:
        'Open (`open` or `confirmed`) findings by severity at the end of each period (default weekly).',
      querystring: SeriesQuery,
      response: OpenOverTimeSchema,
    },
    (query, user) => openOverTime(db, user, query),
  );
  metric(
    'new-vs-fixed',
    {
      operationId: 'getMetricsNewVersusFixed',
      summary: 'New versus fixed findings per period',
      description: 'Findings first seen, and findings fixed, within each period (default weekly).',
      querystring: SeriesQuery,
      response: NewVersusFixedSchema,
    },
    (query, user) => newVersusFixed(db, user, query),
  );
  metric(
    'time-to-fix',
    {
      operationId: 'getMetricsTimeToFix',
      summary: 'Mean and median time to fix by severity or scanner',
      description:
        'Days from first seen to fixed of the findings fixed in the range (or in each period with `interval`), by severity or scanner type.',
      querystring: TimeToFixQuery,
      response: TimeToFixSchema,
    },
    (query, user) => timeToFix(db, user, query),
  );
  metric(
    'sla',
    {
      operationId: 'getMetricsSla',
      summary: 'SLA compliance and findings past due',
      description:
        'Findings fixed on or before their due date ÷ fixed findings that had one, by severity and per period, and open findings now past due.',
      querystring: SlaQuery,
      response: SlaSchema,
    },
    (query, user) => slaCompliance(db, user, query),
  );
  metric(
    'ageing',
    {
      operationId: 'getMetricsAgeing',
      summary: 'Open findings by age',
      description:
        'Open findings by severity and days since first seen (0–7, 8–30, 31–90, over 90) at the end of `to`.',
      querystring: AsOfQuery,
      response: AgeingSchema,
    },
    (query, user) => ageing(db, user, query),
  );
  metric(
    'burndown',
    {
      operationId: 'getMetricsBurndown',
      summary: 'Burndown of open findings',
      description:
        'Open findings at the start of the range and at the end of each period, with new and fixed ones since `from`.',
      querystring: SeriesQuery,
      response: BurndownSchema,
    },
    (query, user) => burndown(db, user, query),
  );
  metric(
    'top-applications',
    {
      operationId: 'getMetricsTopApplications',
      summary: 'Applications with the most open risk or the most findings past due',
      description:
        'Up to `limit` (default 10) applications by open risk (`by=risk`) or by open findings past due (`by=breach`), at the end of `to`.',
      querystring: TopApplicationsQuery,
      response: TopApplicationsSchema,
    },
    (query, user) => topApplications(db, user, query),
  );
}
