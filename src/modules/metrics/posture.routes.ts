import { sql, type Kysely } from 'kysely';
import { Type, type Static } from 'typebox';
import { resourceOf } from '../../access/route-hook.ts';
import type { ResolvedApplication } from '../../access/resources.ts';
import type { App, AppContext } from '../../app-context.ts';
import type { DB, SeverityName } from '../../db/schema.ts';
import { concernSql } from '../../domain/findings/concern-sql.ts';
import type { ConcernFilter } from '../../domain/findings/concern.ts';
import { OPEN_STATUSES } from '../../domain/findings/lifecycle.ts';
import { SEVERITIES } from '../../domain/findings/severity.ts';
import { IdParams } from '../../http/schemas.ts';
import { ConcernQuery } from '../dashboard/dashboard.schema.ts';

const Count = Type.Integer({ minimum: 0 });

export const ApplicationPostureQuery = Type.Object(
  {
    /** Which findings are counted: `security` (the default), `quality`, or `all`, as the dashboard. */
    concern: Type.Optional(ConcernQuery),
  },
  { additionalProperties: false },
);

export const ApplicationPostureSchema = Type.Object({
  /** What the figures count: `security` unless the query asked for `quality` or `all`. */
  concern: ConcernQuery,
  /** Every version of the application, the default first, with its open findings by severity now. */
  versions: Type.Array(
    Type.Object({
      id: Type.Integer(),
      name: Type.String(),
      is_default: Type.Boolean(),
      critical: Count,
      high: Count,
      medium: Count,
      low: Count,
      info: Count,
      total: Count,
    }),
  ),
});
type ApplicationPosture = Static<typeof ApplicationPostureSchema>;

/**
 * Open findings by severity per version, now: sums of the `finding_counts` ledger (a few rows per
 * version), as the dashboard reads it. The trend, SLA and scans come from their own endpoints.
 */
export async function applicationPosture(
  db: Kysely<DB>,
  application: ResolvedApplication,
  concern: ConcernFilter = 'security',
): Promise<ApplicationPosture> {
  const [versions, counts] = await Promise.all([
    db
      .selectFrom('application_versions')
      .select(['id', 'name', 'is_default'])
      .where('application_id', '=', application.id)
      .orderBy('is_default', 'desc')
      .orderBy('name')
      .execute(),
    db
      .selectFrom('finding_counts')
      .select(['version_id', 'severity', sql<number>`sum(findings)::integer`.as('count')])
      .where('application_id', '=', application.id)
      .where('status', 'in', [...OPEN_STATUSES])
      // Security posture unless asked: code-quality findings are not counted (domain/findings/concern.ts).
      .where(concernSql(concern, 'finding_counts.concern'))
      .groupBy(['version_id', 'severity'])
      .execute(),
  ]);
  return {
    concern,
    versions: versions.map((version) => {
      const open = Object.fromEntries(SEVERITIES.map((severity) => [severity, 0])) as Record<
        SeverityName,
        number
      >;
      for (const row of counts) {
        if (row.version_id === version.id) open[row.severity as SeverityName] += row.count;
      }
      return { ...version, ...open, total: Object.values(open).reduce((a, b) => a + b, 0) };
    }),
  };
}

export function postureRoutes(app: App, { db }: AppContext): void {
  app.get(
    '/api/applications/:id/posture',
    {
      config: { access: 'application.read' },
      schema: {
        operationId: 'getApplicationPosture',
        tags: ['metrics'],
        summary: 'Open findings by severity per version of an application',
        description:
          'Open (`open` or `confirmed`) findings by severity of each version of the application, now; security findings unless `concern` asks for `quality` or `all`. Its trend and SLA compliance are `/api/metrics/...?application_id=`.',
        params: IdParams,
        querystring: ApplicationPostureQuery,
        response: { 200: ApplicationPostureSchema },
      },
    },
    async (request) =>
      applicationPosture(db, resourceOf(request, 'application'), request.query.concern ?? 'security'),
  );
}
