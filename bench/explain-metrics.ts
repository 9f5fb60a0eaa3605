import type { UserPrincipal } from '../src/access/principal.ts';
import { captureQueries, postgresExecutor } from './sql.ts';

/**
 * EXPLAIN (ANALYZE, BUFFERS) of the statements the metrics API (scenario 15) sends for its member
 * (5 whole groups + 50 single applications) or admin, on the kept seeded year (`--keep-seed`):
 *   npx tsx bench/explain-metrics.ts postgres://postgres@127.0.0.1:5432/scanhub_bench_seed_metrics_10000 [filter] [admin]
 * Prints each statement's plan; `filter` keeps the queries whose name contains it.
 */
const url = process.argv[2];
if (!url) throw new Error('usage: explain-metrics.ts <database url> [filter] [admin]');
const filter = process.argv[3] ?? '';
const email =
  process.argv[4] === 'admin' ? 'bench-admin@scanhub.local' : 'bench-metrics-member@scanhub.local';
const sqlx = postgresExecutor(url, 4);
const [user] = await sqlx.query<{ id: number; email: string; name: string; role: 'admin' | 'member' }>(
  'select id, email, name, role from users where email = $1',
  [email],
);
if (!user) throw new Error(`no user ${email}`);
const who: UserPrincipal = { kind: 'user', ...user, via: 'api_key' };
const [seed] = await sqlx.query<{ last: string }>(
  `select to_char(last, 'YYYY-MM-DD') as last from bench_metrics_seed`,
);
if (!seed) throw new Error('no bench_metrics_seed: seed with --keep-seed');
const first = new Date(Date.parse(seed.last) - 364 * 86_400_000).toISOString().slice(0, 10);
const year = { from: first, to: seed.last };
const service = await import('../src/modules/metrics/metrics.service.ts');
const probes: [string, (db: never) => Promise<unknown>][] = [
  ['open-over-time weekly', (db) => service.openOverTime(db, who, { ...year, interval: 'week' })],
  [
    'open-over-time weekly, one application (admin)',
    (db) =>
      service.openOverTime(db, who, {
        ...year,
        interval: 'week',
        application_id: process.env['APPLICATION_ID'] ?? '124',
      }),
  ],
  ['open-over-time daily', (db) => service.openOverTime(db, who, { ...year, interval: 'day' })],
  ['new-vs-fixed weekly', (db) => service.newVersusFixed(db, who, { ...year, interval: 'week' })],
  ['time-to-fix monthly', (db) => service.timeToFix(db, who, { ...year, interval: 'month' })],
  ['time-to-fix by scanner', (db) => service.timeToFix(db, who, { ...year, by: 'scanner' })],
  ['sla monthly', (db) => service.slaCompliance(db, who, { ...year, interval: 'month' })],
  ['ageing', (db) => service.ageing(db, who, year)],
  ['burndown weekly', (db) => service.burndown(db, who, { ...year, interval: 'week' })],
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
