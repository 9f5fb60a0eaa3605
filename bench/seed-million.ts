import type { UserPrincipal } from '../src/access/principal.ts';
import { ASSET_WEIGHT, RISK_FORMULA_VERSION } from '../src/domain/findings/risk.ts';
import { maintainPglite } from '../src/db/pglite-maintenance.ts';
import { Environment } from './environment.ts';
import type { Headers } from './http.ts';
import { createApplication, createGroup, signIn, type Api } from './server.ts';
import type { SqlExecutor } from './sql.ts';
import type { RunOptions } from './scenarios/types.ts';
import { keptPostgresTarget, keptSeedDatabaseName, type Engine } from './targets.ts';

/** Findings of the seeded database on `engine` (full mode: 10M on PostgreSQL, 1M on PGlite). */
export function seedFindingsOf(options: RunOptions, engine: Engine): number {
  return engine === 'postgres' ? options.seedFindings : (options.pgliteSeedFindings ?? options.seedFindings);
}

/**
 * The big database of scenarios 4 and 5: 50 applications (5 groups × 10) × 4 versions, a member
 * granted read on 10 applications, 10 users to assign findings to, one scan per version, and N
 * findings (10M on PostgreSQL and 1M on PGlite in full mode) generated in the database by SQL (INSERT …
 * SELECT generate_series: nothing to encode or send from here; on PostgreSQL two applications at a
 * time into the table without its secondary indexes, built after) with deterministic,
 * realistic distributions: severity 5/20/40/25/10 % critical…info; status 55 % open, 10 % confirmed,
 * 10 % false_positive, 25 % fixed; a quarter assigned; first seen over the last year; risk from the
 * real formula's parts. A finding has the same fingerprint in every version of its application.
 */

const GROUPS = 5;
const APPS_PER_GROUP = 10;
const VERSIONS = ['default', '1.0.0', '1.1.0', '2.0.0'];
const CRITICALITIES = ['critical', 'high', 'medium', 'low'] as const;
const MEMBER = { email: 'bench-member@scanhub.local', password: 'bench-member-password-1' };
const DEVELOPERS = 8;

export interface BenchUser {
  principal: UserPrincipal;
  headers: Headers;
}

export interface SeededDatabase {
  env: Environment;
  admin: BenchUser;
  member: BenchUser;
  applicationIds: number[];
  memberApplicationIds: number[];
  findings: number;
}

async function principalOf(api: Api): Promise<UserPrincipal> {
  const { user } = await api.get<{
    user: { id: number; email: string; name: string; role: 'admin' | 'member' };
  }>('/api/auth/me');
  return { kind: 'user', id: user.id, email: user.email, name: user.name, role: user.role, via: 'api_key' };
}

/** Users, groups, applications, versions and grants, through the API as an admin would. */
async function createStructure(env: Environment): Promise<SeedStructure> {
  const admin = env.api();
  const member = await admin.post<{ id: number }>('/api/users', {
    ...MEMBER,
    name: 'Bench Member',
    role: 'member',
  });
  const assignees = [member.id];
  for (let i = 1; i <= DEVELOPERS; i++) {
    const user = await admin.post<{ id: number }>('/api/users', {
      email: `bench-dev-${i}@scanhub.local`,
      password: `bench-dev-password-${i}`,
      name: `Developer ${i}`,
      role: 'member',
    });
    assignees.push(user.id);
  }
  const applicationIds: number[] = [];
  const memberApplicationIds: number[] = [];
  const criticality: Record<number, (typeof CRITICALITIES)[number]> = {};
  for (let g = 1; g <= GROUPS; g++) {
    const groupId = await createGroup(admin, `bench-group-${g}`);
    for (let a = 1; a <= APPS_PER_GROUP; a++) {
      const index = applicationIds.length;
      const level = CRITICALITIES[index % CRITICALITIES.length] ?? 'high';
      const app = await createApplication(admin, groupId, `app-${g}-${a}`, level);
      for (const name of VERSIONS.slice(1))
        await admin.post(`/api/applications/${app.id}/versions`, { name });
      applicationIds.push(app.id);
      criticality[app.id] = level;
      if (index % 5 === 0) {
        await admin.post(`/api/applications/${app.id}/permissions`, {
          subject: `user:${member.id}`,
          action: 'read',
        });
        memberApplicationIds.push(app.id);
      }
    }
  }
  return { assignees, applicationIds, memberApplicationIds, criticality };
}

const SEVERITIES_SQL = `(values ('critical', 5, 9.5, 15, 50), ('high', 4, 7.5, 30, 250), ('medium', 3, 5.0, 90, 650),
  ('low', 2, 2.5, 180, 900), ('info', 1, 0.0, 365, 1000)) as x(severity, rank, score, sla, upto)`;

/** Schema features that came later than the first findings table, present in this checkout or not. */
interface SchemaFeatures {
  /** `findings.present`: false once a finding is absent from its scope's latest upload. */
  present: boolean;
  /** `finding_scopes`: a scope's latest scan is the last sighting of its present findings. */
  scopes: boolean;
  /** `findings.identity_base`: the identity twins share (not null). */
  identityBase: boolean;
  /** `sla_breached_at` exists (SLA breach events, 2026-11-28T1940). */
  slaBreachedAt: boolean;
}

async function schemaFeatures(sql: SqlExecutor): Promise<SchemaFeatures> {
  const rows = await sql.query<{
    present: boolean;
    scopes: boolean;
    identity_base: boolean;
    sla_breached_at: boolean;
  }>(
    `select exists (select 1 from information_schema.columns where table_schema = current_schema()
       and table_name = 'findings' and column_name = 'present') as present,
     exists (select 1 from information_schema.columns where table_schema = current_schema()
       and table_name = 'findings' and column_name = 'sla_breached_at') as sla_breached_at,
     to_regclass('finding_scopes') is not null as scopes,
     exists (select 1 from information_schema.columns where table_schema = current_schema()
       and table_name = 'findings' and column_name = 'identity_base') as identity_base`,
  );
  return {
    present: rows[0]?.present ?? false,
    scopes: rows[0]?.scopes ?? false,
    identityBase: rows[0]?.identity_base ?? false,
    slaBreachedAt: rows[0]?.sla_breached_at ?? false,
  };
}

function findingsSql(
  applicationId: number,
  perVersion: number,
  asset: number,
  assignees: number[],
  features: SchemaFeatures,
): string {
  return `
insert into findings (application_id, version_id, scanner_type_id, first_scan_id, last_scan_id, fingerprint,
  category, kind, title, severity, severity_rank, severity_score, status, description, rule_id, file_path, line,
  snippet, cwe_ids, cwe_id, tool_name, tool_version, risk_score, risk_severity, risk_exploitation, risk_age,
  risk_asset, risk_formula_version, assignee_id, due_date, first_seen_at, last_seen_at, fixed_at, created_at,
  updated_at${features.present ? ', present' : ''}${features.identityBase ? ', identity_base' : ''}${
    features.slaBreachedAt ? ', sla_breached_at' : ''
  })
select v.application_id, v.id, s.scanner_type_id, s.id, s.id, md5(v.application_id || ':' || g),
  'bench-analysis', 'code', r.rule || ' reaches a sink in Handler' || g, sv.severity, sv.rank, sv.score::float8,
  st.status, 'Seeded by the benchmark.', r.rule,
  'services/svc-' || (h.h2 % 8) || '/src/main/java/com/example/module' || (g % 50) || '/Handler' || g || '.java',
  1 + h.h3 % 2000, 'final String input' || g || ' = request.getParameter("q");', array[r.cwe], r.cwe,
  'CodeQL', '2.19.3',
  round(100 * ${asset} * (0.6 * sv.score / 10 + 0.3 * 0.2 + 0.1 * least(t.days_open::float8 / sv.sla, 1)))::int,
  sv.score::float8, 0.2, least(t.days_open::float8 / sv.sla, 1), ${asset}, ${RISK_FORMULA_VERSION},
  case when h.h3 < 250 then (array[${assignees.join(',')}])[1 + h.h3 % ${assignees.length}] end,
  t.first_seen + make_interval(days => sv.sla), t.first_seen, now() - make_interval(days => h.h2 % 7),
  case when st.status = 'fixed' then t.first_seen + make_interval(days => least(h.h3 % 60, t.days_open)) end,
  t.first_seen, t.first_seen${features.present ? ", st.status <> 'fixed'" : ''}${
    features.identityBase ? ", md5(v.application_id || ':' || g)" : ''
  }${
    // Open findings already past due were announced long ago (as the SLA migration marks them), so
    // the server's breach job does not announce 40% of the seeded findings during the scenarios.
    features.slaBreachedAt
      ? `, case when st.status in ('open', 'confirmed') and t.first_seen + make_interval(days => sv.sla) < now()
          then t.first_seen + make_interval(days => sv.sla) end`
      : ''
  }
from application_versions v
join scans s on s.version_id = v.id
cross join generate_series(1, ${perVersion}) g
cross join lateral (select abs(hashtext(v.application_id || ':' || g)) % 1000 as h1,
  abs(hashtext(v.id || ':' || g || ':status')) % 1000 as h2,
  abs(hashtext(v.id || ':' || g || ':assignee')) % 1000 as h3) h
cross join lateral (select * from ${SEVERITIES_SQL} where x.upto > h.h1 order by x.upto limit 1) sv
cross join lateral (select case when h.h2 < 550 then 'open' when h.h2 < 650 then 'confirmed'
  when h.h2 < 750 then 'false_positive' else 'fixed' end as status) st
cross join lateral (select (h.h1 * 7 + h.h2) % 365 as days_open) d
cross join lateral (select d.days_open, now() - make_interval(days => d.days_open) as first_seen) t
cross join lateral (select (array['java/sql-injection', 'java/xss', 'java/path-injection', 'js/redos',
  'java/ssrf', 'java/log-injection', 'js/incomplete-sanitization', 'py/stack-trace-exposure'])[1 + h.h1 % 8] as rule,
  (array[89, 79, 22, 1333, 918, 117, 116, 209])[1 + h.h1 % 8] as cwe) r
where v.application_id = ${applicationId}`;
}

const SCANS_SQL = `
insert into scans (application_id, version_id, scanner_type_id, scanner_type, tool_name, tool_version, file_name,
  file_size, file_sha256, status, findings_count, uploaded_via, started_at, completed_at, created_at, updated_at)
select v.application_id, v.id, t.id, 'sarif', 'CodeQL', '2.19.3', 'seed.sarif', 0, md5(v.id::text), 'completed',
  0, 'application_token', now(), now(), now() - make_interval(days => v.id % 40), now()
from application_versions v cross join scanner_types t where t.name = 'sarif'`;

const SCOPES_SQL = `
insert into finding_scopes (version_id, scanner_type_id, tool_name, category, last_scan_id, last_seen_at)
select s.version_id, s.scanner_type_id, 'CodeQL', 'bench-analysis', s.id, s.completed_at from scans s`;

/** Runs `work` over `items`, at most `concurrency` at a time. */
async function eachLimited<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>) {
  let next = 0;
  const runners = Array.from({ length: Math.min(concurrency, items.length) }, async () => {
    while (next < items.length) await work(items[next++] as T);
  });
  await Promise.all(runners);
}

/**
 * PostgreSQL's bulk seed: the findings table's secondary indexes and its unique constraint are
 * dropped while the rows go in (an index built once by sorting costs a fraction of 10M random
 * insertions into it), then built again exactly as they were (definitions read from the catalog,
 * so every index a migration added is rebuilt, whatever this file knows of). The primary key stays:
 * other tables reference it, and its insertions are appends.
 */
async function withoutFindingsIndexes(
  sql: SqlExecutor,
  log: (message: string) => void,
  work: () => Promise<void>,
): Promise<void> {
  const indexes = await sql.query<{ name: string; definition: string }>(
    `select i.relname as name, pg_get_indexdef(i.oid) as definition
     from pg_index x join pg_class i on i.oid = x.indexrelid
     where x.indrelid = 'findings'::regclass
       and not exists (select 1 from pg_constraint c where c.conindid = x.indexrelid)
     order by i.relname`,
  );
  const uniques = await sql.query<{ name: string; definition: string }>(
    `select conname as name, pg_get_constraintdef(oid) as definition from pg_constraint
     where conrelid = 'findings'::regclass and contype = 'u' order by conname`,
  );
  for (const index of indexes) await sql.exec(`drop index "${index.name}"`);
  for (const unique of uniques) await sql.exec(`alter table findings drop constraint "${unique.name}"`);
  await work();
  const started = performance.now();
  const builds = [
    ...uniques.map((unique) => `alter table findings add constraint "${unique.name}" ${unique.definition}`),
    ...indexes.map((index) => index.definition),
  ];
  // Two at a time: each sort gets its own 1 GB (a session setting, sent with the statement).
  await eachLimited(builds, 2, async (statement) => {
    const one = performance.now();
    await sql.exec(`set maintenance_work_mem = '1GB'; ${statement}`);
    log(`  built ${statement.slice(0, 90)}… (${((performance.now() - one) / 1000).toFixed(0)} s)`);
  });
  log(
    `  ${builds.length} indexes of findings built in ${((performance.now() - started) / 1000).toFixed(0)} s`,
  );
}

async function insertFindings(
  sql: SqlExecutor,
  structure: SeedStructure,
  perVersion: number,
  log: (message: string) => void,
): Promise<void> {
  const features = await schemaFeatures(sql);
  await sql.exec(SCANS_SQL);
  if (features.scopes) await sql.exec(SCOPES_SQL);
  const started = performance.now();
  let done = 0;
  const insert = async (applicationId: number) => {
    const asset = ASSET_WEIGHT[structure.criticality[applicationId] ?? 'high'];
    await sql.exec(findingsSql(applicationId, perVersion, asset, structure.assignees, features));
    done++;
    if (done % 10 === 0) {
      log(
        `  seeded ${(done * perVersion * VERSIONS.length).toLocaleString('en-US')} findings ` +
          `(${((performance.now() - started) / 1000).toFixed(0)} s)`,
      );
    }
  };
  if (sql.engine === 'pglite') {
    for (const applicationId of structure.applicationIds) await insert(applicationId);
    // As the server's vacuum job leaves the statistics: on PGlite its own maintenance, at its target.
    await maintainPglite(sql.kysely(() => {}));
    return;
  }
  // PostgreSQL: two applications at a time (the generating SELECT is CPU-bound in the database).
  await withoutFindingsIndexes(sql, log, () => eachLimited(structure.applicationIds, 2, insert));
  const vacuumed = performance.now();
  await sql.exec('vacuum analyze');
  log(`  vacuum analyze ${((performance.now() - vacuumed) / 1000).toFixed(0)} s`);
}

/** What a seed created, kept in the kept database (`--keep-seed`) to be found again. */
interface SeedStructure {
  assignees: number[];
  applicationIds: number[];
  memberApplicationIds: number[];
  criticality: Record<number, (typeof CRITICALITIES)[number]>;
}

/** Where a kept seed records itself once complete: a database without this row is seeded again. */
const SEED_MARK_SQL = `create table if not exists bench_seed (findings bigint not null, structure jsonb not null,
  seconds int not null, seeded_at timestamptz not null default now())`;

async function keptStructure(env: Environment, findings: number): Promise<SeedStructure | undefined> {
  return env.withSql(async (sql) => {
    await sql.exec(SEED_MARK_SQL);
    const [row] = await sql.query<{ structure: SeedStructure }>(
      'select structure from bench_seed where findings = $1',
      [findings],
    );
    return row?.structure;
  });
}

async function seed(
  engine: Engine,
  findings: number,
  options: { logLevel: string; keep: boolean },
  log: (message: string) => void,
) {
  let env: Environment;
  let structure: SeedStructure | undefined;
  if (engine === 'postgres' && options.keep) {
    const name = keptSeedDatabaseName(findings);
    const kept = await keptPostgresTarget(name, 'seeded');
    env = await Environment.on(kept.target, { logLevel: options.logLevel });
    structure = kept.created ? undefined : await keptStructure(env, findings);
    if (structure) log(`  reusing the kept seed ${name} (drop it to seed again)`);
    else if (!kept.created) throw new Error(`${name} exists without a complete seed: drop it and run again`);
  } else {
    env = await Environment.open(engine, 'seeded', { logLevel: options.logLevel });
  }
  const perVersion = Math.max(1, Math.round(findings / (GROUPS * APPS_PER_GROUP * VERSIONS.length)));
  if (!structure) {
    const started = performance.now();
    const created = await createStructure(env);
    await env.withSql((sql) => insertFindings(sql, created, perVersion, log));
    const seconds = Math.round((performance.now() - started) / 1000);
    log(`  seeded in ${seconds} s`);
    if (engine === 'postgres' && options.keep) {
      await env.withSql(async (sql) => {
        await sql.exec(SEED_MARK_SQL);
        await sql.query('insert into bench_seed (findings, structure, seconds) values ($1, $2, $3)', [
          findings,
          JSON.stringify(created),
          seconds,
        ]);
      });
    }
    structure = created;
  }
  const admin = env.api();
  const member = await signIn(env.server.url, MEMBER.email, MEMBER.password);
  const seeded: SeededDatabase = {
    env,
    admin: { principal: await principalOf(admin), headers: admin.headers },
    member: { principal: await principalOf(member), headers: member.headers },
    applicationIds: structure.applicationIds,
    memberApplicationIds: structure.memberApplicationIds,
    findings: perVersion * VERSIONS.length * structure.applicationIds.length,
  };
  return seeded;
}

const seeded = new Map<Engine, Promise<SeededDatabase>>();

/** The seeded database of `engine`, built on first use and shared by scenarios 4 and 5. */
export function seededDatabase(
  engine: Engine,
  options: RunOptions,
  log: (message: string) => void,
): Promise<SeededDatabase> {
  let database = seeded.get(engine);
  if (!database) {
    const findings = seedFindingsOf(options, engine);
    log(`  seeding ${findings.toLocaleString('en-US')} findings (${engine})…`);
    database = seed(engine, findings, { logLevel: options.logLevel, keep: options.keepSeed }, log);
    seeded.set(engine, database);
  }
  return database;
}

export async function disposeSeeded(): Promise<void> {
  const all = [...seeded.values()];
  seeded.clear();
  for (const database of all) {
    const resolved = await database.catch(() => undefined);
    await resolved?.env.dispose();
  }
}
