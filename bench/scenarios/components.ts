import type { Principal, UserPrincipal } from '../../src/access/principal.ts';
import { Environment } from '../environment.ts';
import type { Headers } from '../http.ts';
import { signIn, type Api } from '../server.ts';
import type { SqlExecutor } from '../sql.ts';
import { describeWaves, routeVersusSql, type Probe, type ProbeResult } from './route-vs-sql.ts';
import type { Scenario } from './types.ts';

/**
 * Scenario 19: `GET /api/components` (issue 50: "which of our applications use log4j-core below
 * 2.17?") on N components across N/200 applications (1M across 5k in the issue; `--components`),
 * one version each, seeded by SQL straight into `components` (indexes dropped for the load and built
 * as the migration makes them). Each version lists 200 packages: 50 from a head of 200 popular ones
 * (each in a quarter of the applications: log4j-core is one, in 25 versions from 2.0 to 2.24) and 150
 * from a tail of 19,800 (each in ~0.75 % of them). Licences by package: MIT, Apache-2.0, BSD-3-Clause,
 * GPL-3.0-only (a tenth) or `MIT OR GPL-3.0-only`. 100 groups; a member reads 5 of them.
 */

const GROUPS = 100;
const PER_VERSION = 200;
const HEAD = 200;
const TAIL = 19_800;
const MEMBER = { email: 'bench-components-member@scanhub.local', password: 'bench-components-member-1' };
const LOG4J = 'pkg:maven/org.apache.logging.log4j/log4j-core';

const INDEXES = [
  'create unique index components_scope_purl on components (version_id, tool_name, category, purl)',
  'create index components_package on components (package, version_id)',
  'create index components_name on components (lower(name), ecosystem)',
  'create index components_license_ids on components using gin (license_ids)',
  'create index components_application on components (application_id)',
];

async function seed(sql: SqlExecutor, applications: number, memberId: number, log: (m: string) => void) {
  const started = performance.now();
  await sql.exec(`insert into groups (name, path)
    select 'components-group-' || g, 'components-group-' || g from generate_series(1, ${GROUPS}) g`);
  await sql.exec(`insert into applications (group_id, name, slug, asset_criticality, api_token_hash,
      api_token_encrypted, api_token_prefix)
    select (select id from groups where path = 'components-group-' || (1 + i % ${GROUPS})),
      'components-app-' || lpad(i::text, 5, '0'), 'components-app-' || i, 'medium', 'bench-components-' || i, 'x', 'x'
    from generate_series(1, ${applications}) i`);
  await sql.exec(`insert into application_versions (application_id, name, branch, is_default)
    select id, 'main', 'main', true from applications where slug like 'components-app-%'`);
  await sql.exec(`insert into permission_policies (user_id, group_id, action)
    select ${memberId}, id, 'read' from groups where path in
      ('components-group-1', 'components-group-2', 'components-group-3', 'components-group-4', 'components-group-5')`);
  await sql.exec(`drop index components_scope_purl, components_package, components_name,
    components_license_ids, components_application`);
  // Package k of version i: the head for the first 50 slots (13 is prime to 200: 50 distinct), the
  // tail for the others (5729 = 104729 mod 19800 is prime to 19800: 150 distinct).
  await sql.exec(`insert into components (application_id, version_id, tool_name, category, purl, package,
      ecosystem, namespace, name, version, licenses, license_ids, digest)
    select a.id, v.id, 'npm', '', p.base || '@' || p.version, p.base, p.ecosystem, p.namespace, p.name, p.version,
      p.licenses, string_to_array(replace(p.licenses, ' OR ', ','), ','), md5(p.base || p.version)
    from applications a join application_versions v on v.application_id = a.id and v.is_default
    cross join lateral (select substr(a.slug, 16)::int as i) n
    cross join generate_series(0, ${PER_VERSION - 1}) j
    cross join lateral (select case when j < 50 then (n.i + j * 13) % ${HEAD}
      else ${HEAD} + (n.i * 7919 + j * 104729) % ${TAIL} end as k) pick
    cross join lateral (select
      case when pick.k = 0 then '${LOG4J}' else 'pkg:npm/bench-pkg-' || pick.k end as base,
      case when pick.k = 0 then 'maven' else 'npm' end as ecosystem,
      case when pick.k = 0 then 'org.apache.logging.log4j' else null end as namespace,
      case when pick.k = 0 then 'log4j-core' else 'bench-pkg-' || pick.k end as name,
      case when pick.k = 0 then '2.' || (n.i % 25) || '.' || (n.i % 3)
        else (n.i % 4) || '.' || (n.i % 10) || '.' || (pick.k % 7) end as version,
      (array['MIT', 'MIT', 'MIT', 'MIT', 'Apache-2.0', 'Apache-2.0', 'Apache-2.0', 'BSD-3-Clause',
        'GPL-3.0-only', 'MIT OR GPL-3.0-only'])[1 + pick.k % 10] as licenses
      ) p
    where a.slug like 'components-app-%'`);
  log(`    rows loaded (${((performance.now() - started) / 1000).toFixed(0)} s)`);
  for (const statement of INDEXES) await sql.exec(statement);
  await sql.exec('vacuum analyze');
  log(`    indexes built, vacuumed (${((performance.now() - started) / 1000).toFixed(0)} s)`);
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

export const componentsScenario: Scenario = {
  ids: ['19'],
  title: 'GET /api/components across N components',
  async run(engine, { options, record, log }) {
    const total = options.components;
    const applications = Math.max(GROUPS, Math.round(total / PER_VERSION));
    const size = `${(applications * PER_VERSION).toLocaleString('en-US')} components × ${applications.toLocaleString('en-US')} apps`;
    const env = await Environment.open(engine, 'components', { logLevel: options.logLevel });
    try {
      const member = await env.api().post<{ id: number }>('/api/users', {
        ...MEMBER,
        name: 'Bench Components Member',
        role: 'member',
      });
      log(`  seeding ${size} (${engine})…`);
      await env.withSql((sql) => seed(sql, applications, member.id, log));
      // PGlite: the server was restarted around the seeding (on another port).
      const adminApi = env.api();
      const memberApi = await signIn(env.server.url, MEMBER.email, MEMBER.password);
      const callers: Caller[] = [
        { who: 'admin', principal: await principalOf(adminApi), headers: adminApi.headers },
        { who: 'member, 5 groups', principal: await principalOf(memberApi), headers: memberApi.headers },
      ];
      const { searchComponents } = await import('../../src/modules/components/components.service.ts');
      type Query = {
        purl?: string;
        name?: string;
        ecosystem?: string;
        license?: string;
        range?: string;
        cursor?: string;
      };
      // A page from the middle of the licence's results: the keyset starts at the median application.
      const ids = (await adminApi.get<{ id: number; slug: string }[]>('/api/applications'))
        .filter((application) => application.slug.startsWith('components-app-'))
        .map((application) => application.id)
        .sort((a, b) => a - b);
      const middle = `${ids[Math.floor(ids.length / 2)] ?? 0}.0.0`;
      const queries: [name: string, query: Query][] = [
        ['log4j-core <2.17.0', { purl: LOG4J, range: '<2.17.0' }],
        ['a popular npm package, any version', { purl: 'pkg:npm/bench-pkg-17' }],
        [
          'a tail package by name and ecosystem, ^1.0.0',
          { name: 'bench-pkg-12345', ecosystem: 'npm', range: '^1.0.0' },
        ],
        ['licence GPL-3.0-only', { license: 'GPL-3.0-only' }],
        [
          'licence GPL-3.0-only, a page from the middle (cursor)',
          { license: 'GPL-3.0-only', cursor: middle },
        ],
      ];
      const probes: { name: string; probe: Probe }[] = [];
      for (const caller of callers) {
        for (const [name, query] of queries) {
          const search = new URLSearchParams(query as Record<string, string>);
          probes.push({
            name: `${name}: ${caller.who}`,
            probe: {
              path: `/api/components?${search}`,
              headers: caller.headers,
              service: (db) => searchComponents(db, caller.principal, { ...query, limit: 500 }),
            },
          });
        }
      }
      const results = await routeVersusSql(
        env,
        probes.map((entry) => entry.probe),
        options.componentRequests,
        log,
      );
      for (const [index, { name }] of probes.entries()) {
        const result = results[index] as ProbeResult;
        const body = JSON.parse(result.firstBody) as { results: unknown[]; truncated: boolean };
        record({
          scenario: '19',
          name: `components @${size}: ${name}`,
          engine,
          unit: 'ms',
          statistic: 'p95',
          samples: result.http,
          limit: { name: 'same SQL via pg', samples: result.sql },
          target: { text: 'p95 ≤ 150 ms', max: 150, on: 'value' },
          notes: [
            `${body.results.length} results${body.truncated ? ' (truncated at the page of 500)' : ''}; ` +
              `${describeWaves(result.waves)}; the ratio is for information, the target is absolute`,
          ],
        });
      }
    } finally {
      await env.dispose();
    }
  },
};
