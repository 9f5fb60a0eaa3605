import { seededDatabase, type BenchUser, type SeededDatabase } from '../seed-million.ts';
import { describeWaves, routeVersusSql, type Probe, type ProbeResult } from './route-vs-sql.ts';
import { summarize } from '../stats.ts';
import type { Scenario } from './types.ts';

interface Combination {
  name: string;
  who: 'admin' | 'member';
  params(seeded: SeededDatabase): Record<string, string>;
}

/** Five realistic list requests at the size of the seeded database. */
const COMBINATIONS: Combination[] = [
  {
    name: 'app + status + severity by risk',
    who: 'admin',
    params: (s) => ({
      applicationId: String(s.applicationIds[7] ?? 1),
      status: 'open',
      severity: 'critical,high',
      sortBy: 'risk_score',
      order: 'desc',
    }),
  },
  { name: 'member: all readable (10 apps)', who: 'member', params: () => ({}) },
  {
    name: 'member: assignedTo=me, open',
    who: 'member',
    params: () => ({ assignedTo: 'me', status: 'open,confirmed' }),
  },
  {
    name: 'open by risk, page 50',
    who: 'admin',
    params: () => ({ status: 'open', sortBy: 'risk_score', page: '50' }),
  },
  // Our choice: the admin's landing page, no filter at all (counts every finding).
  {
    name: 'admin: everything, newest first',
    who: 'admin',
    params: () => ({ sortBy: 'created_at', order: 'desc' }),
  },
];

const LIST_PARAMS = new Set(['status', 'severity']);
const NUMBER_PARAMS = new Set(['applicationId', 'page', 'perPage']);

/**
 * The query object the route's handler receives after validation: camelCase twins folded into the
 * snake_case names the service reads (`applicationId` → `application_id`), lists as arrays, ids as
 * numbers. Passed as sent, the service ignored the camelCase names, so the replayed SQL had no
 * application, assignee or sort of its combination.
 */
function serviceInput(params: Record<string, string>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(params).map(([key, value]) => [
      key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`),
      LIST_PARAMS.has(key) ? [value] : NUMBER_PARAMS.has(key) ? Number(value) : value,
    ]),
  );
}

/** `?a=1&b=x,y` (commas kept readable), or '' without parameters. */
export function queryString(params: Record<string, string>): string {
  const query = new URLSearchParams(params).toString().replaceAll('%2C', ',');
  return query ? `?${query}` : '';
}

/** Scenario 4: GET /api/findings against the same SQL replayed directly. */
export const listScenario: Scenario = {
  ids: ['4'],
  title: 'GET /api/findings on the seeded database, five filter/sort combinations',
  async run(engine, { options, record, log }) {
    const seeded = await seededDatabase(engine, options, log);
    const { env } = seeded;
    const users: Record<'admin' | 'member', BenchUser> = { admin: seeded.admin, member: seeded.member };
    const size = `${(seeded.findings / 1000).toLocaleString('en-US')}k`;
    const status = await env.api(users.admin.headers).status('/api/findings?perPage=1');
    if (status === 404) {
      for (const combination of COMBINATIONS) {
        record({
          scenario: '4',
          name: `list @${size}: ${combination.name}`,
          engine,
          unit: 'ms',
          statistic: 'p95',
          samples: [],
          unavailable: 'route not available (404)',
        });
      }
      return;
    }
    const service = await import('../../src/modules/findings/findings.service.ts');
    type ListInput = Parameters<typeof service.listFindings>[2];
    const probes: Probe[] = COMBINATIONS.map((combination) => {
      const params = combination.params(seeded);
      const user = users[combination.who];
      return {
        path: `/api/findings${queryString(params)}`,
        headers: user.headers,
        service: (db) => service.listFindings(db, user.principal, serviceInput(params) as ListInput),
      };
    });
    const results = await routeVersusSql(env, probes, options.listRequests, log);
    for (const [index, combination] of COMBINATIONS.entries()) {
      const result = results[index] as ProbeResult;
      const total = (JSON.parse(result.firstBody) as { pagination: { total: number } }).pagination.total;
      log(`  ${combination.name}: ${total} matching`);
      record({
        scenario: '4',
        name: `list @${size}: ${combination.name}`,
        engine,
        unit: 'ms',
        statistic: 'p95',
        samples: result.http,
        limit: { name: `same SQL via ${engine === 'postgres' ? 'pg' : 'PGlite'}`, samples: result.sql },
        target: { text: 'p95 ≤ 150 ms and ≤ 1.5× SQL', max: 1.5, on: 'ratio', valueMax: 150 },
        notes: [
          `SQL captured by running the route's service (listFindings) on a logging Kysely, replayed as sent: ` +
            `${describeWaves(result.waves)}; the server answers the API key from its key cache, as the replay needs none`,
          // The ratio's other reading: what the route adds in milliseconds (bench/MEASUREMENTS.md, ⁴).
          `route p50 − SQL p50: ${(summarize(result.http).p50 - summarize(result.sql).p50).toFixed(2)} ms`,
        ],
        extra: {
          matching: total,
          query: queryString(combination.params(seeded)),
          who: combination.who,
          sql: result.statements.map((statement) => statement.sql).join(';\n'),
        },
      });
    }
  },
};
