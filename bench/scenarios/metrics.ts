import type { Kysely } from 'kysely';
import type { Principal, UserPrincipal } from '../../src/access/principal.ts';
import type { DB } from '../../src/db/schema.ts';
import { Environment } from '../environment.ts';
import { keptPostgresTarget } from '../targets.ts';
import type { Headers } from '../http.ts';
import { signIn, type Api } from '../server.ts';
import type { SqlExecutor } from '../sql.ts';
import { describeWaves, routeVersusSql, type Probe, type ProbeResult } from './route-vs-sql.ts';
import type { Scenario } from './types.ts';

/**
 * Scenario 15: the metrics API (issue 47) on a year of posture history of N applications (10k by
 * default, `--metrics-apps`), PostgreSQL only. The history is seeded by SQL straight into the
 * snapshot tables, in day order as the job writes it: per application and day 4 severities × 2
 * statuses (8 rows; 29M at 10k applications), fixes on a third of the days, and the per-group and
 * overall sums computed from them by the same GROUP BY the job runs, and the week and month
 * roll-ups and the open findings per application-day by the job's own functions. 100 groups; a
 * member reads 5 whole groups (their sums) and 50 single applications of other groups (their rows).
 * `--keep-seed` keeps the seeded database (scanhub_bench_seed_metrics_<N>) for the next run.
 */

const GROUPS = 100;
const MEMBER = { email: 'bench-metrics-member@scanhub.local', password: 'bench-metrics-member-1' };

const STATE_SUMS =
  'findings, risk, overdue, opened, fixed, breached, age_0_7, age_8_30, age_31_90, age_over_90';
const FIX_SUMS = 'fixed, sla_fixed, within_sla, fix_seconds';

/** Where a kept seed (`--keep-seed`) records itself once complete, with the last day it seeded. */
const SEED_MARK_SQL = `create table if not exists bench_metrics_seed (applications integer primary key,
  last date not null, seeded_at timestamptz not null default now())`;

export async function seedStructure(
  sql: SqlExecutor,
  applications: number,
  memberId: number,
): Promise<number[]> {
  await sql.exec(`insert into groups (name, path)
    select 'metrics-group-' || g, 'metrics-group-' || g from generate_series(1, ${GROUPS}) g`);
  await sql.exec(`insert into applications (group_id, name, slug, asset_criticality, api_token_hash,
      api_token_encrypted, api_token_prefix)
    select (select id from groups where path = 'metrics-group-' || (1 + i % ${GROUPS})),
      'metrics-app-' || i, 'metrics-app-' || i, 'medium', 'bench-hash-' || i, 'x', 'x'
    from generate_series(1, ${applications}) i`);
  await sql.exec(`insert into permission_policies (user_id, group_id, action)
    select ${memberId}, id, 'read' from groups where path in
      ('metrics-group-1', 'metrics-group-2', 'metrics-group-3', 'metrics-group-4', 'metrics-group-5')`);
  await sql.exec(`insert into permission_policies (user_id, application_id, action)
    select ${memberId}, a.id, 'read' from applications a join groups g on g.id = a.group_id
    where g.path = 'metrics-group-50' order by a.id limit 50`);
  const rows = await sql.query<{ id: number }>(`select id from applications order by id`);
  return rows.map((row) => row.id);
}

/** A year of snapshots up to `last`, in day order; the primary keys are built after the load. */
export async function seedHistory(
  sql: SqlExecutor,
  last: string,
  log: (message: string) => void,
): Promise<void> {
  const days = `generate_series('${last}'::date - 364, '${last}'::date, interval '1 day') d`;
  const started = performance.now();
  await sql.exec(`alter table posture_daily drop constraint posture_daily_pkey;
    drop index posture_daily_day_idx;
    alter table posture_fixes drop constraint posture_fixes_pkey;
    drop index posture_fixes_day_idx`);
  await sql.exec(`insert into posture_daily (day, application_id, severity, status, ${STATE_SUMS})
    select d::date, a.id, s.severity, st.status, n, n * s.risk,
      case when st.status = 'open' then n / 4 else 0 end,
      case when st.status = 'open' and (a.id + extract(doy from d)::int) % 3 = 0 then 1 else 0 end,
      case when st.status = 'fixed' and (a.id + extract(doy from d)::int) % 3 = 1 then 1 else 0 end,
      case when st.status = 'open' and (a.id + extract(doy from d)::int) % 11 = 0 then 1 else 0 end,
      case when st.status = 'open' then n / 4 else 0 end,
      case when st.status = 'open' then n / 4 else 0 end,
      case when st.status = 'open' then n / 4 else 0 end,
      case when st.status = 'open' then n - 3 * (n / 4) else 0 end
    from ${days}
    cross join applications a
    cross join (values ('critical', 1, 90), ('high', 3, 70), ('medium', 6, 45), ('low', 4, 20)) s(severity, w, risk)
    cross join (values ('open'), ('fixed')) st(status)
    cross join lateral (select 1 + (a.id * 7 + s.w * 13 + extract(doy from d)::int / 7) % (s.w * 4) as n) f
    order by d, a.id`);
  await sql.exec(`insert into posture_fixes (day, application_id, severity, scanner_type_id, fix_days, ${FIX_SUMS})
    select d::date, a.id, s.severity, 1 + a.id % 3, (a.id * 7 + extract(doy from d)::int) % 31, 1, 1,
      case when (a.id + extract(doy from d)::int) % 4 = 0 then 0 else 1 end,
      86400.0 * ((a.id * 7 + extract(doy from d)::int) % 31) + 3600
    from ${days}
    cross join applications a
    cross join (values ('critical'), ('high'), ('medium')) s(severity)
    where (a.id + extract(doy from d)::int) % 3 = 1
    order by d, a.id`);
  log(`    rows loaded (${((performance.now() - started) / 1000).toFixed(0)} s)`);
  // As the migration makes them: the keys' indexes carry the sums (index-only scans).
  await sql.exec(`alter table posture_daily add primary key (application_id, day, severity, status)
      include (${STATE_SUMS});
    create index posture_daily_day_idx on posture_daily (day);
    alter table posture_fixes add primary key (application_id, day, severity, scanner_type_id, fix_days)
      include (${FIX_SUMS});
    create index posture_fixes_day_idx on posture_fixes (day)`);
  log(`    indexes built (${((performance.now() - started) / 1000).toFixed(0)} s)`);
  // The job's roll-up, over every day at once.
  const rollup = (source: string, target: string, keys: string, sums: string) => {
    const summed = sums
      .split(', ')
      .map((name) => `sum(p.${name})`)
      .join(', ');
    const keyed = keys
      .split(', ')
      .map((name) => `p.${name}`)
      .join(', ');
    return `insert into ${target} (day, group_id, ${keys}, ${sums})
      select p.day, a.group_id, ${keyed}, ${summed} from ${source} p join applications a on a.id = p.application_id
      group by p.day, a.group_id, ${keyed}
      union all
      select p.day, 0, ${keyed}, ${summed} from ${source} p group by p.day, ${keyed}`;
  };
  await sql.exec(rollup('posture_daily', 'posture_group_daily', 'severity, status', STATE_SUMS));
  await sql.exec(
    rollup('posture_fixes', 'posture_group_fixes', 'severity, scanner_type_id, fix_days', FIX_SUMS),
  );
  await sql.exec(`insert into posture_days (day, complete) select d::date, true from ${days}`);
  // The job's week and month roll-ups, every period of the year at once (same function).
  const { rebuildPosturePeriod, rebuildPostureOpenDaily } =
    await import('../../src/modules/metrics/posture.repository.ts');
  const { periodStart } = await import('../../src/modules/metrics/metrics-range.ts');
  const first = new Date(Date.parse(last) - 364 * 86_400_000).toISOString().slice(0, 10);
  const db = sql.kysely(() => {});
  for (const period of ['week', 'month'] as const) {
    await rebuildPosturePeriod(db, { period, start: periodStart(first, period) }, periodStart(last, period));
  }
  // The open findings per application-day, by the job's own statement.
  await rebuildPostureOpenDaily(db, first, last);
  await sql.exec('vacuum analyze');
  log(`    roll-ups and vacuum done (${((performance.now() - started) / 1000).toFixed(0)} s)`);
}

async function principalOf(api: Api): Promise<UserPrincipal> {
  const { user } = await api.get<{
    user: { id: number; email: string; name: string; role: 'admin' | 'member' };
  }>('/api/auth/me');
  return { kind: 'user', id: user.id, email: user.email, name: user.name, role: user.role, via: 'api_key' };
}

interface Caller {
  who: string;
  principal: Principal;
  headers: Headers;
}

export const metricsScenario: Scenario = {
  ids: ['15'],
  title: 'GET /api/metrics/... on a year of posture history',
  async run(engine, { options, record, log }) {
    const applications = options.metricsApplications;
    const size = `${(applications / 1000).toLocaleString('en-US')}k apps × 365 days`;
    if (engine !== 'postgres') {
      record({
        scenario: '15',
        name: `metrics @${size}`,
        engine,
        unit: 'ms',
        statistic: 'p95',
        samples: [],
        unavailable: 'PostgreSQL only (the target of issue 47)',
      });
      return;
    }
    // --keep-seed: the seeded history is kept in its own database and reused by the next run (the
    // seed takes minutes; EXPLAIN on it needs it to outlive the run). Migrations added since run on
    // it when the server starts, as on any existing database.
    let env: Environment;
    let kept: { last: string } | undefined;
    if (options.keepSeed) {
      const name = `scanhub_bench_seed_metrics_${applications}`;
      const target = await keptPostgresTarget(name, 'metrics');
      env = await Environment.on(target.target, { logLevel: options.logLevel });
      if (!target.created) {
        kept = await env.withSql(async (sql) => {
          await sql.exec(SEED_MARK_SQL);
          const [row] = await sql.query<{ last: string }>(
            `select to_char(last, 'YYYY-MM-DD') as last from bench_metrics_seed where applications = $1`,
            [applications],
          );
          return row;
        });
        if (!kept) throw new Error(`${name} exists without a complete seed: drop it and run again`);
        log(`  reusing the kept seed ${name} (last day ${kept.last}; drop it to seed again)`);
      }
    } else {
      env = await Environment.open(engine, 'metrics', { logLevel: options.logLevel });
    }
    try {
      const adminApi = env.api();
      // Yesterday: the server's hourly job writes today from its (empty) findings.
      const last = kept?.last ?? new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
      const first = new Date(Date.parse(last) - 364 * 86_400_000).toISOString().slice(0, 10);
      let applicationIds: number[];
      if (kept) {
        applicationIds = await env.withSql(async (sql) =>
          (await sql.query<{ id: number }>('select id from applications order by id')).map((row) => row.id),
        );
      } else {
        const member = await adminApi.post<{ id: number }>('/api/users', {
          ...MEMBER,
          name: 'Bench Metrics Member',
          role: 'member',
        });
        log(`  seeding ${size} of snapshots (${engine})…`);
        applicationIds = await env.withSql(async (sql) => {
          const ids = await seedStructure(sql, applications, member.id);
          await seedHistory(sql, last, log);
          if (options.keepSeed) {
            await sql.exec(SEED_MARK_SQL);
            await sql.query('insert into bench_metrics_seed (applications, last) values ($1, $2)', [
              applications,
              last,
            ]);
          }
          return ids;
        });
      }
      const memberApi = await signIn(env.server.url, MEMBER.email, MEMBER.password);
      const callers: Caller[] = [
        { who: 'admin, all', principal: await principalOf(adminApi), headers: adminApi.headers },
        {
          who: 'member, 5 groups + 50 apps',
          principal: await principalOf(memberApi),
          headers: memberApi.headers,
        },
      ];
      const service = await import('../../src/modules/metrics/metrics.service.ts');
      const groupId = String(
        (
          await env.withSql((sql) =>
            sql.query<{ id: number }>(`select id from groups where path = 'metrics-group-7'`),
          )
        )[0]?.id,
      );
      const appId = String(applicationIds[123] ?? applicationIds[0]);
      const year = { from: first, to: last };
      type Query = Record<string, string | number>;
      type Call = (db: Kysely<DB>, principal: Principal, query: never) => Promise<unknown>;
      const queries: [name: string, path: string, query: Query, call: Call][] = [
        ['open-over-time weekly', 'open-over-time', { ...year, interval: 'week' }, service.openOverTime],
        ['open-over-time daily', 'open-over-time', { ...year, interval: 'day' }, service.openOverTime],
        ['new-vs-fixed weekly', 'new-vs-fixed', { ...year, interval: 'week' }, service.newVersusFixed],
        [
          'time-to-fix by severity, monthly',
          'time-to-fix',
          { ...year, interval: 'month' },
          service.timeToFix,
        ],
        ['time-to-fix by scanner', 'time-to-fix', { ...year, by: 'scanner' }, service.timeToFix],
        ['sla monthly', 'sla', { ...year, interval: 'month' }, service.slaCompliance],
        ['ageing', 'ageing', year, service.ageing],
        ['burndown weekly', 'burndown', { ...year, interval: 'week' }, service.burndown],
        ['top applications by risk', 'top-applications', year, service.topApplications],
        [
          'top applications by breach',
          'top-applications',
          { ...year, by: 'breach' },
          service.topApplications,
        ],
      ];
      const probes: { name: string; probe: Probe }[] = [];
      const add = (name: string, path: string, query: Query, caller: Caller, call: Call) => {
        const search = new URLSearchParams(
          Object.fromEntries(Object.entries(query).map(([key, value]) => [key, String(value)])),
        );
        probes.push({
          name,
          probe: {
            path: `/api/metrics/${path}?${search}`,
            headers: caller.headers,
            service: (db) => call(db, caller.principal, query as never),
          },
        });
      };
      for (const caller of callers) {
        for (const [name, path, query, call] of queries)
          add(`${name}: ${caller.who}`, path, query, caller, call);
      }
      const admin = callers[0] as Caller;
      add(
        'sla monthly: admin, one group',
        'sla',
        { ...year, interval: 'month', group_id: groupId },
        admin,
        service.slaCompliance,
      );
      add(
        'open-over-time weekly: admin, one group',
        'open-over-time',
        { ...year, group_id: groupId },
        admin,
        service.openOverTime,
      );
      add(
        'sla monthly: admin, one application',
        'sla',
        { ...year, interval: 'month', application_id: appId },
        admin,
        service.slaCompliance,
      );
      add(
        'open-over-time weekly: admin, one application',
        'open-over-time',
        { ...year, application_id: appId },
        admin,
        service.openOverTime,
      );

      const results = await routeVersusSql(
        env,
        probes.map((entry) => entry.probe),
        options.metricsRequests,
        log,
      );
      for (const [index, { name }] of probes.entries()) {
        const result = results[index] as ProbeResult;
        record({
          scenario: '15',
          name: `metrics @${size}: ${name}`,
          engine,
          unit: 'ms',
          statistic: 'p95',
          samples: result.http,
          limit: { name: 'same SQL via pg', samples: result.sql },
          target: { text: 'p95 ≤ 150 ms', max: 150, on: 'value' },
          notes: [`${describeWaves(result.waves)}; the ratio is for information, the target is absolute`],
        });
      }
    } finally {
      await env.dispose();
    }
  },
};
