import type { UserPrincipal } from '../src/access/principal.ts';
import { captureQueries, postgresExecutor } from './sql.ts';

/**
 * EXPLAIN (ANALYZE, BUFFERS) of the statements the findings list (scenario 4's combinations) and
 * the dashboard (scenario 5) send, on a kept seeded database:
 *   npx tsx bench/explain-seeded.ts postgres://postgres@127.0.0.1:5432/scanhub_bench_seed_10000000 [filter]
 * Prints each statement's plan; `filter` keeps the probes whose name contains it.
 */
const url = process.argv[2];
if (!url) throw new Error('usage: explain-seeded.ts <database url> [filter]');
const filter = process.argv[3] ?? '';
const sqlx = postgresExecutor(url, 4);
const principal = async (email: string): Promise<UserPrincipal> => {
  const [user] = await sqlx.query<{ id: number; email: string; name: string; role: 'admin' | 'member' }>(
    'select id, email, name, role from users where email = $1',
    [email],
  );
  if (!user) throw new Error(`no user ${email}`);
  return { kind: 'user', ...user, via: 'api_key' };
};
const admin = await principal('bench-admin@scanhub.local');
const member = await principal('bench-member@scanhub.local');
const [app] = await sqlx.query<{ structure: { applicationIds: number[] } }>(
  'select structure from bench_seed',
);
const list = await import('../src/modules/findings/findings.service.ts');
const dashboard = await import('../src/modules/dashboard/dashboard.service.ts');
type ListInput = Parameters<typeof list.listFindings>[2];
const listOf = (who: UserPrincipal, input: Record<string, unknown>) => (db: never) =>
  list.listFindings(db, who, input as ListInput);
const probes: [string, (db: never) => Promise<unknown>][] = [
  [
    'app + status + severity by risk',
    listOf(admin, {
      application_id: app?.structure.applicationIds[7],
      status: ['open'],
      severity: ['critical,high'],
      sort_by: 'risk_score',
      order: 'desc',
    }),
  ],
  ['member: all readable', listOf(member, {})],
  ['member: assignedTo=me, open', listOf(member, { assigned_to: 'me', status: ['open,confirmed'] })],
  ['open by risk, page 50', listOf(admin, { status: ['open'], sort_by: 'risk_score', page: 50 })],
  ['admin: everything, newest first', listOf(admin, { sort_by: 'created_at', order: 'desc' })],
  ['dashboard admin', (db) => dashboard.dashboardStats(db, admin, {})],
  ['dashboard member', (db) => dashboard.dashboardStats(db, member, {})],
];
for (const [name, run] of probes) {
  if (!name.includes(filter)) continue;
  const statements = await captureQueries(sqlx, (db) => run(db as never));
  for (const statement of statements) {
    const plan = await sqlx.query<{ 'QUERY PLAN': string }>(
      `explain (analyze, buffers) ${statement.sql}`,
      statement.parameters,
    );
    console.log(`\n=== ${name}\n${statement.sql}\n${plan.map((row) => row['QUERY PLAN']).join('\n')}`);
  }
}
await sqlx.close();
