import { seededDatabase, type BenchUser } from '../seed-million.ts';
import { describeWaves, routeVersusSql, type Probe, type ProbeResult } from './route-vs-sql.ts';
import type { Scenario } from './types.ts';

/** Scenario 5: GET /api/dashboard/stats for the admin (every application) and the member (10). */
export const dashboardScenario: Scenario = {
  ids: ['5'],
  title: 'GET /api/dashboard/stats on the seeded database',
  async run(engine, { options, record, log }) {
    const seeded = await seededDatabase(engine, options, log);
    const { env } = seeded;
    const callers: [string, BenchUser][] = [
      ['admin (all 50 apps)', seeded.admin],
      ['member (10 apps)', seeded.member],
    ];
    const size = `${(seeded.findings / 1000).toLocaleString('en-US')}k`;
    if ((await env.api(seeded.admin.headers).status('/api/dashboard/stats')) === 404) {
      for (const [who] of callers) {
        record({
          scenario: '5',
          name: `dashboard @${size}: ${who}`,
          engine,
          unit: 'ms',
          statistic: 'p95',
          samples: [],
          unavailable: 'route not available (404)',
        });
      }
      return;
    }
    const service = await import('../../src/modules/dashboard/dashboard.service.ts');
    const probes: Probe[] = callers.map(([, user]) => ({
      path: '/api/dashboard/stats',
      headers: user.headers,
      service: (db) => service.dashboardStats(db, user.principal, {}),
    }));
    const results = await routeVersusSql(env, probes, options.dashboardRequests, log);
    for (const [index, [who]] of callers.entries()) {
      const result = results[index] as ProbeResult;
      record({
        scenario: '5',
        name: `dashboard @${size}: ${who}`,
        engine,
        unit: 'ms',
        statistic: 'p95',
        samples: result.http,
        limit: { name: `same SQL via ${engine === 'postgres' ? 'pg' : 'PGlite'}`, samples: result.sql },
        target: { text: 'p95 ≤ 150 ms', max: 150, on: 'value' },
        notes: [
          `SQL captured by running dashboardStats on a logging Kysely: ${describeWaves(result.waves)}; ` +
            `the ratio is for information, the target is absolute`,
        ],
      });
    }
  },
};
