import type { App, AppContext } from '../../app-context.ts';
import { currentUser } from '../../http/auth.ts';
import { dashboardTrend } from './dashboard-trend.service.ts';
import {
  DashboardQuery,
  DashboardStatsSchema,
  DashboardTrendQuery,
  DashboardTrendSchema,
} from './dashboard.schema.ts';
import { dashboardStats } from './dashboard.service.ts';

export function dashboardRoutes(app: App, { db }: AppContext): void {
  app.get(
    '/api/dashboard/stats',
    {
      config: { access: 'dashboard.read' },
      schema: {
        operationId: 'getDashboardStats',
        description:
          'Open findings by severity and status, fix rate and scan counts over the applications the caller may read, or one of them.',
        tags: ['dashboard'],
        summary: 'Finding, fix-rate and scan statistics over the applications the caller may read',
        querystring: DashboardQuery,
        response: { 200: DashboardStatsSchema },
      },
    },
    async (request) => dashboardStats(db, currentUser(request), request.query),
  );
  app.get(
    '/api/dashboard/trend',
    {
      config: { access: 'dashboard.read' },
      schema: {
        operationId: 'getDashboardTrend',
        description:
          'New and fixed findings per UTC day over the last days (default 30), over the applications the caller may read, or one of them; every day is present. Security findings unless `concern` asks for `quality` or `all` (echoed).',
        tags: ['dashboard'],
        summary: 'New versus fixed findings per day',
        querystring: DashboardTrendQuery,
        response: { 200: DashboardTrendSchema },
      },
    },
    async (request) => dashboardTrend(db, currentUser(request), request.query),
  );
}
