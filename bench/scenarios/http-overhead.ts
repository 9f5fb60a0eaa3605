import { availableParallelism } from 'node:os';
import type { UserPrincipal } from '../../src/access/principal.ts';
import { Environment } from '../environment.ts';
import { sarifFile } from '../generate-sarif.ts';
import { keepAliveAgent } from '../http.ts';
import { closedLoop, getOk, replay, waves } from '../load.ts';
import { createApplication, createGroup, upload } from '../server.ts';
import { captureQueries, type CapturedQuery } from '../sql.ts';
import { summarize } from '../stats.ts';
import { requireCreated } from './ingest.ts';
import { describeWaves } from './route-vs-sql.ts';
import type { Scenario } from './types.ts';

const IDS = 200;

/**
 * Scenario 7: GET /api/findings/{id} for 10 s with 2 keep-alive connections per core, over 10k
 * ingested findings; beside it GET /healthz (no auth, no database: the HTTP floor) and the same
 * SQL the route runs, replayed directly with the same concurrency.
 */
export const httpScenario: Scenario = {
  ids: ['7'],
  title: 'GET /api/findings/{id} requests per second',
  async run(engine, { options, record, log }) {
    const connections = 2 * availableParallelism();
    const env = await Environment.open(engine, 'http', { logLevel: options.logLevel });
    try {
      const app = await createApplication(env.api(), await createGroup(env.api(), 'bench-http'), 'http');
      requireCreated(
        await upload(env.server, app.token, await sarifFile({ count: 10_000 }), '1.0.0'),
        'upload',
      );
      const { user } = await env
        .api()
        .get<{ user: { id: number; email: string; name: string } }>('/api/auth/me');
      const admin: UserPrincipal = { kind: 'user', ...user, role: 'admin', via: 'api_key' };
      const service = await import('../../src/modules/findings/findings.service.ts');
      const { authorizeOne } = await import('../../src/access/access.ts');

      const { ids, raw, statements } = await env.withSql(async (sql) => {
        const rows = await sql.query<{ id: number }>(
          `select id from findings where application_id = $1 order by id`,
          [app.id],
        );
        const step = Math.max(1, Math.floor(rows.length / IDS));
        const ids = rows
          .filter((_, index) => index % step === 0)
          .map((row) => row.id)
          .slice(0, IDS);
        const captured: CapturedQuery[][][] = [];
        for (const id of ids) {
          // What GET /api/findings/:id runs: the route hook's access check, then the service.
          captured.push(
            waves(
              await captureQueries(sql, async (db) =>
                service.getFinding(db, await authorizeOne(db, admin, 'finding', String(id), 'read')),
              ),
            ),
          );
        }
        const raw = await closedLoop(connections, options.httpSeconds, async (worker, iteration) => {
          await replay(sql, captured[(worker * 7919 + iteration) % captured.length] ?? []);
          return true;
        });
        return { ids, raw, statements: describeWaves(captured[0] ?? []) };
      });
      if (ids.length === 0) throw new Error('no findings to read');

      const agent = keepAliveAgent(connections);
      const headers = env.api().headers;
      const url = (worker: number, iteration: number) =>
        `${env.server.url}/api/findings/${ids[(worker * 7919 + iteration) % ids.length]}`;
      await closedLoop(connections, 1, (worker, iteration) => getOk(url(worker, iteration), headers, agent));
      const detail = await closedLoop(connections, options.httpSeconds, (worker, iteration) =>
        getOk(url(worker, iteration), headers, agent),
      );
      const health = await closedLoop(connections, options.httpSeconds, () =>
        getOk(`${env.server.url}/healthz`, {}, agent),
      );
      agent.destroy();
      const latency = summarize(detail.latencies);
      log(
        `  ${detail.perSecond.toFixed(0)} req/s (p50 ${latency.p50.toFixed(1)} ms, p95 ${latency.p95.toFixed(1)} ms), ` +
          `/healthz ${health.perSecond.toFixed(0)} req/s, raw SQL ${raw.perSecond.toFixed(0)} req/s`,
      );
      record({
        scenario: '7',
        name: `GET /api/findings/{id}, ${connections} connections`,
        engine,
        unit: 'req/s',
        statistic: 'median',
        samples: [detail.perSecond],
        limit: { name: `same SQL via ${engine === 'postgres' ? 'pg' : 'PGlite'}`, samples: [raw.perSecond] },
        checks: [
          { name: 'zero errors', ok: detail.errors === 0, detail: `${detail.errors} failed requests` },
        ],
        notes: [
          `limit = the SQL getFinding sends, ${statements}, captured per id and replayed as sent by ` +
            `${connections} concurrent workers; excludes the API-key lookup done per request`,
        ],
        extra: {
          p50ms: Number(latency.p50.toFixed(2)),
          p95ms: Number(latency.p95.toFixed(2)),
          requests: detail.completed,
          healthzPerSecond: Math.round(health.perSecond),
        },
      });
      record({
        scenario: '7',
        name: `GET /healthz (HTTP floor), ${connections} connections`,
        engine,
        unit: 'req/s',
        statistic: 'median',
        samples: [health.perSecond],
        checks: [
          { name: 'zero errors', ok: health.errors === 0, detail: `${health.errors} failed requests` },
        ],
      });
    } finally {
      await env.dispose();
    }
  },
};
