import { CONCERNS } from '../../src/domain/findings/concern.ts';
import fc from 'fast-check';
import type { InjectOptions } from 'fastify';
import { sql } from 'kysely';
import { systemAuditContext } from '../../src/events/audit.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FindingStatus } from '../../src/db/schema.ts';
import { announceSlaBreaches } from '../../src/domain/findings/sla-breach.ts';
import {
  BUILT_IN_SLA_DAYS,
  dueDatesInForce,
  kevDueDate,
  recomputeDueDates,
  recomputeDueDatesInBatches,
  slaDaysOf,
  slaDaysLiteralSql,
  slaDueDate,
  slaDueDateSql,
  type SlaDays,
} from '../../src/domain/findings/sla.ts';
import { SEVERITIES } from '../../src/domain/findings/severity.ts';
import { changeStatus } from '../../src/domain/findings/status.ts';
import { findingDetail, listFindings } from '../../src/modules/findings/findings.service.ts';
import { updateSlaConfiguration } from '../../src/modules/sla/sla.service.ts';
import { slaJobs } from '../../src/modules/sla/sla.jobs.ts';
import {
  grant,
  makeApplication,
  makeFinding,
  makeGroup,
  makeUser,
  type TestUser,
} from '../support/factories.ts';
import { buildSarif } from '../support/sarif-builder.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { upload } from '../support/upload.ts';

/**
 * SLA configurations and due dates, by time travel: every clock is a parameter (service arguments,
 * the breach job's payload), and findings are first seen at a fixed T0.
 */

let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await makeUser(t, { role: 'admin' });
});
afterAll(() => t.close());

const DAY = 86_400_000;
const T0 = new Date('2026-03-01T00:00:00.000Z');
const at = (days: number) => new Date(T0.getTime() + days * DAY);

const api = async (
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE',
  url: string,
  user: TestUser,
  payload?: object,
) => {
  const options: InjectOptions = { method, url, headers: user.headers };
  if (payload !== undefined) options.payload = payload as InjectOptions['payload'];
  return t.app.inject(options);
};

async function createConfiguration(user: TestUser, body: Record<string, unknown>) {
  const response = await api('POST', '/api/sla-configurations', user, body);
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as { id: number };
}

/** Waits for the `sla-recompute` jobs a change queued (the API answers before they run). */
const recomputed = () => t.jobs.drained('sla-recompute');

/** The due date in force (a recompute's overlay, else the findings row's). */
const dueOf = async (id: number) => (await dueDatesInForce(t.db, [id])).get(id) ?? null;

/** A finding first seen at T0 whose due date comes from its SLA (recomputed as a change would). */
async function slaFinding(applicationId: number, severity: 'critical' | 'high' | 'low' = 'critical') {
  const finding = await makeFinding(t, applicationId, { severity, first_seen_at: T0 });
  await recomputeDueDates(t.db, { applicationIds: [applicationId] }, T0);
  return finding;
}

async function move(id: number, applicationId: number, from: FindingStatus, to: FindingStatus, now: Date) {
  await t.db.transaction().execute((trx) =>
    changeStatus(trx, [{ findingId: id, applicationId, from, to }], {
      actor: { userId: admin.id },
      reason: 'status_changed',
      now,
    }),
  );
  // changeStatus sets fixed_at from its clock; nothing else reads the wall clock.
}

describe('due dates: TypeScript and SQL agree', () => {
  it('slaDueDate equals slaDueDateSql for any severity, concern, first sighting, pause and days (quality: none)', async () => {
    const days = fc.oneof(fc.constant(null), fc.integer({ min: 1, max: 3650 }));
    const table = fc.record(
      Object.fromEntries(SEVERITIES.map((s) => [s, days])) as Record<string, typeof days>,
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...SEVERITIES),
        fc.date({ min: new Date('2000-01-01'), max: new Date('2090-01-01'), noInvalidDate: true }),
        fc.integer({ min: 0, max: 400 * 86_400 }),
        table,
        fc.constantFrom(...CONCERNS),
        async (severity, firstSeenAt, pausedSeconds, slaDays, concern) => {
          const expected = slaDueDate({
            severity,
            concern,
            firstSeenAt,
            pausedSeconds,
            days: slaDays as SlaDays,
          });
          const { rows } = await sql<{ due: Date | null }>`select ${slaDueDateSql({
            severity: sql`${severity}::text`,
            concern: sql`${concern}::text`,
            firstSeenAt: sql`${firstSeenAt.toISOString()}::timestamptz`,
            pausedSeconds: sql`${pausedSeconds}::integer`,
            days: slaDaysLiteralSql(slaDays as SlaDays),
          })} as due`.execute(t.db);
          expect(rows[0]?.due?.getTime() ?? null).toBe(expected?.getTime() ?? null);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('recompute: the batched job equals the TypeScript reference', () => {
  it('open SLA findings get kevDueDate(slaDueDate(...)) of the configuration in force; others keep theirs; a rerun writes nothing', async () => {
    const group = await makeGroup(t, admin);
    const apps = [
      await makeApplication(t, admin, { groupId: group.id }),
      await makeApplication(t, admin, { groupId: group.id }),
      await makeApplication(t, admin, { groupId: group.id }),
    ];
    const configurations = [
      await createConfiguration(admin, { name: `prop-a-${group.id}` }),
      await createConfiguration(admin, { name: `prop-b-${group.id}` }),
    ];
    const days = fc.record({
      days: fc.integer({ min: 1, max: 400 }),
      enforced: fc.boolean(),
    });
    const severities = fc.record(
      Object.fromEntries(SEVERITIES.map((s) => [s, days])) as Record<string, typeof days>,
    );
    const finding = fc.record({
      app: fc.integer({ min: 0, max: apps.length - 1 }),
      severity: fc.constantFrom(...SEVERITIES),
      concern: fc.constantFrom(...CONCERNS),
      status: fc.constantFrom<FindingStatus>('open', 'confirmed', 'fixed', 'false_positive'),
      source: fc.constantFrom<'sla' | 'manual'>('sla', 'sla', 'manual'),
      firstSeenDays: fc.integer({ min: -400, max: 0 }),
      pausedSeconds: fc.integer({ min: 0, max: 90 * 86_400 }),
      kevDueDay: fc.option(fc.integer({ min: -30, max: 400 }), { nil: null }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(severities, { minLength: 2, maxLength: 2 }),
        // Per application: its own configuration (0, 1) or none (inherits the group's or the default).
        fc.array(fc.constantFrom<number | null>(0, 1, null), { minLength: 3, maxLength: 3 }),
        fc.constantFrom<number | null>(0, 1, null),
        fc.array(finding, { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 1, max: 3 }),
        async (tables, own, groupOwn, findings, batch) => {
          for (const [index, table] of tables.entries()) {
            const columns = Object.fromEntries(
              SEVERITIES.flatMap((s) => [
                [`${s}_days`, table[s]?.days ?? 1],
                [`${s}_enforced`, table[s]?.enforced ?? true],
              ]),
            );
            await t.db
              .updateTable('sla_configurations')
              .set(columns)
              .where('id', '=', configurations[index]?.id ?? 0)
              .execute();
          }
          const idOf = (choice: number | null) =>
            choice === null ? null : (configurations[choice]?.id ?? null);
          await t.db
            .updateTable('groups')
            .set({ sla_configuration_id: idOf(groupOwn) })
            .where('id', '=', group.id)
            .execute();
          for (const [index, app] of apps.entries()) {
            await t.db
              .updateTable('applications')
              .set({ sla_configuration_id: idOf(own[index] ?? null) })
              .where('id', '=', app.id)
              .execute();
          }
          await t.db
            .deleteFrom('findings')
            .where(
              'application_id',
              'in',
              apps.map((app) => app.id),
            )
            .execute();
          const stale = new Date('2030-01-01T00:00:00.000Z');
          const made = [];
          for (const f of findings) {
            const row = await makeFinding(t, apps[f.app]?.id ?? 0, {
              severity: f.severity,
              concern: f.concern,
              status: f.status,
              first_seen_at: at(f.firstSeenDays),
              sla_paused_seconds: f.pausedSeconds,
              kev_due_date: f.kevDueDay === null ? null : at(f.kevDueDay).toISOString().slice(0, 10),
              due_date_source: f.source,
              due_date: stale,
            });
            made.push({ ...f, id: row.id });
          }
          const kevOn =
            (await t.db.selectFrom('enrichment_settings').select('kev_due_dates').executeTakeFirst())
              ?.kev_due_dates ?? true;
          const defaults = await t.db
            .selectFrom('sla_configurations')
            .selectAll()
            .where('is_default', '=', true)
            .executeTakeFirstOrThrow();
          const changed = await recomputeDueDatesInBatches(t.db, { groupId: group.id }, at(1), batch);
          // The due date in force: the recompute writes the overlay, not findings.
          const rows = new Map(
            [
              ...(
                await dueDatesInForce(
                  t.db,
                  made.map((f) => f.id),
                )
              ).entries(),
            ].map(([id, due]) => [id, due?.getTime() ?? null]),
          );
          let moved = 0;
          for (const f of made) {
            const choice = own[f.app] ?? groupOwn;
            const configuration =
              choice === null
                ? undefined
                : await t.db
                    .selectFrom('sla_configurations')
                    .selectAll()
                    .where('id', '=', configurations[choice]?.id ?? 0)
                    .executeTakeFirstOrThrow();
            const slaDays = slaDaysOf(configuration ?? defaults);
            const recomputes = (f.status === 'open' || f.status === 'confirmed') && f.source === 'sla';
            const expected = recomputes
              ? kevDueDate(
                  slaDueDate({
                    severity: f.severity,
                    concern: f.concern,
                    firstSeenAt: at(f.firstSeenDays),
                    pausedSeconds: f.pausedSeconds,
                    days: slaDays,
                  }),
                  f.kevDueDay === null ? null : at(f.kevDueDay).toISOString().slice(0, 10),
                  kevOn,
                )
              : stale;
            if (recomputes && expected?.getTime() !== stale.getTime()) moved++;
            expect(rows.get(f.id), JSON.stringify(f)).toBe(expected?.getTime() ?? null);
          }
          expect(changed).toBe(moved);
          // Idempotent: a second run (a retried or duplicated job) writes nothing.
          expect(await recomputeDueDatesInBatches(t.db, { groupId: group.id }, at(2), batch)).toBe(0);
        },
      ),
      { numRuns: 25 },
    );
  });
});

describe('the default configuration', () => {
  it('reproduces the built-in table: an upload is due first seen + 15 days (critical) … 365 (info)', async () => {
    const list = await api('GET', '/api/sla-configurations', admin);
    expect(list.statusCode).toBe(200);
    const defaults = (
      list.json() as { is_default: boolean; severities: Record<string, { days: number }> }[]
    ).find((configuration) => configuration.is_default);
    expect(Object.fromEntries(SEVERITIES.map((s) => [s, defaults?.severities[s]?.days]))).toEqual(
      BUILT_IN_SLA_DAYS,
    );

    const app = await makeApplication(t, admin);
    const response = await upload(
      t,
      '/api/ingest',
      { 'x-api-token': app.api_token },
      {
        file: buildSarif({ results: [{ ruleId: 'R1', path: 'a.ts', line: 1, level: 'error' }] }),
        fileName: 'r.sarif',
      },
    );
    expect(response.statusCode, response.body).toBe(201);
    const row = await t.db
      .selectFrom('findings')
      .select(['severity', 'first_seen_at', 'due_date', 'due_date_source'])
      .where('application_id', '=', app.id)
      .executeTakeFirstOrThrow();
    expect(row.severity).toBe('high');
    expect(row.due_date_source).toBe('sla');
    expect(row.due_date?.getTime()).toBe(row.first_seen_at.getTime() + 30 * DAY);
  });

  it('an upload takes the days of the application’s configuration, and none for an unenforced severity', async () => {
    const app = await makeApplication(t, admin);
    const strict = await createConfiguration(admin, {
      name: `strict-upload-${app.id}`,
      severities: { high: { days: 5 }, medium: { enforced: false } },
    });
    expect(
      (
        await api('PUT', `/api/applications/${app.id}/sla-configuration`, admin, {
          sla_configuration_id: strict.id,
        })
      ).statusCode,
    ).toBe(200);
    const response = await upload(
      t,
      '/api/ingest',
      { 'x-api-token': app.api_token },
      {
        file: buildSarif({
          results: [
            { ruleId: 'R1', path: 'a.ts', line: 1, level: 'error' },
            { ruleId: 'R2', path: 'b.ts', line: 2, level: 'warning' },
          ],
        }),
        fileName: 'r.sarif',
      },
    );
    expect(response.statusCode, response.body).toBe(201);
    const rows = await t.db
      .selectFrom('findings')
      .select(['severity', 'first_seen_at', 'due_date'])
      .where('application_id', '=', app.id)
      .orderBy('severity_rank', 'desc')
      .execute();
    expect(
      rows.map((row) => [
        row.severity,
        row.due_date && (row.due_date.getTime() - row.first_seen_at.getTime()) / DAY,
      ]),
    ).toEqual([
      ['high', 5],
      ['medium', null],
    ]);
  });
});

describe('inheritance: group → subgroup → application', () => {
  it('takes the nearest assignment and follows every change; a sibling path is no subgroup', async () => {
    const root = await makeGroup(t, admin, { path: `org-${Date.now()}` });
    const team = await makeGroup(t, admin, { path: `${root.path}/team` });
    const sibling = await makeGroup(t, admin, { path: `${root.path}-other` });
    const app = await makeApplication(t, admin, { groupId: team.id });
    const outside = await makeApplication(t, admin, { groupId: sibling.id });
    const finding = await slaFinding(app.id);
    const other = await slaFinding(outside.id);
    expect(await dueOf(finding.id)).toEqual(at(15));

    const org = await createConfiguration(admin, {
      name: `org-${root.id}`,
      severities: { critical: { days: 7 } },
    });
    const teamConfiguration = await createConfiguration(admin, {
      name: `team-${team.id}`,
      severities: { critical: { days: 3 } },
    });
    const own = await createConfiguration(admin, {
      name: `own-${app.id}`,
      severities: { critical: { days: 1 } },
    });

    const assign = async (url: string, id: number | null) => {
      const response = await api('PUT', url, admin, { sla_configuration_id: id });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).not.toHaveProperty('recomputed'); // answered before the recompute
      await recomputed();
      return response.json() as { inherited_from: string; group_path: string | null };
    };
    await assign(`/api/groups/${root.id}/sla-configuration`, org.id);
    expect(await dueOf(finding.id)).toEqual(at(7));
    expect(await dueOf(other.id)).toEqual(at(15)); // `org-x-other` is not inside `org-x`
    await assign(`/api/groups/${team.id}/sla-configuration`, teamConfiguration.id);
    expect(await dueOf(finding.id)).toEqual(at(3));
    await assign(`/api/applications/${app.id}/sla-configuration`, own.id);
    expect(await dueOf(finding.id)).toEqual(at(1));
    const back = await assign(`/api/applications/${app.id}/sla-configuration`, null);
    expect(back).toMatchObject({ inherited_from: 'group', group_path: team.path });
    expect(await dueOf(finding.id)).toEqual(at(3));
    await assign(`/api/groups/${team.id}/sla-configuration`, null);
    expect(await dueOf(finding.id)).toEqual(at(7));
    // Deleting the group's configuration: the subtree falls back to the default.
    expect((await api('DELETE', `/api/sla-configurations/${org.id}`, admin)).statusCode).toBe(204);
    await recomputed();
    expect(await dueOf(finding.id)).toEqual(at(15));
    const view = await api('GET', `/api/applications/${app.id}/sla-configuration`, admin);
    expect(view.json()).toMatchObject({ assigned_id: null, inherited_from: 'default' });
  });
});

describe('time travel', () => {
  it('a finding fixed within its SLA and one fixed after it; closed due dates stay frozen', async () => {
    const app = await makeApplication(t, admin);
    const early = await slaFinding(app.id);
    const late = await slaFinding(app.id);
    await move(early.id, app.id, 'open', 'fixed', at(5));
    await move(late.id, app.id, 'open', 'fixed', at(20));
    const earlyView = await findingDetail(t.db, early.id, at(30));
    const lateView = await findingDetail(t.db, late.id, at(30));
    expect(earlyView).toMatchObject({ sla_breached: false, sla_days_remaining: 10 });
    expect(lateView).toMatchObject({ sla_breached: true, sla_days_remaining: -5 });
    // What the metrics count as "fixed within SLA": fixed_at <= due_date.
    const { rows } = await sql<{ id: number; within: boolean }>`
      select id, fixed_at <= due_date as within from findings where application_id = ${app.id} order by id`.execute(
      t.db,
    );
    expect(rows.map((row) => row.within)).toEqual([true, false]);
    // A configuration changed afterwards leaves closed findings' due dates as they were.
    const view = await api('GET', `/api/applications/${app.id}/sla-configuration`, admin);
    const configuration = await createConfiguration(admin, {
      name: `later-${app.id}`,
      severities: { critical: { days: 30 } },
    });
    await api('PUT', `/api/applications/${app.id}/sla-configuration`, admin, {
      sla_configuration_id: configuration.id,
    });
    await recomputed();
    expect(view.statusCode).toBe(200);
    expect(await dueOf(early.id)).toEqual(at(15));
    expect(await dueOf(late.id)).toEqual(at(15));
  });

  it('a configuration changed mid-way moves open SLA due dates, not manual ones', async () => {
    const group = await makeGroup(t, admin);
    const app = await makeApplication(t, admin, { groupId: group.id });
    const configuration = await createConfiguration(admin, { name: `midway-${app.id}` });
    await api('PUT', `/api/groups/${group.id}/sla-configuration`, admin, {
      sla_configuration_id: configuration.id,
    });
    await recomputed();
    const finding = await slaFinding(app.id);
    const manual = await slaFinding(app.id);
    const assigned = await api('PATCH', `/api/findings/${manual.id}/assign`, admin, {
      userId: admin.id,
      dueDate: '2026-12-24T00:00:00Z',
    });
    expect(assigned.statusCode, assigned.body).toBe(200);
    expect(await findingDetail(t.db, finding.id, at(10))).toMatchObject({
      sla_breached: false,
      sla_days_remaining: 5,
    });

    const row = await t.db
      .selectFrom('sla_configurations')
      .selectAll()
      .where('id', '=', configuration.id)
      .executeTakeFirstOrThrow();
    await updateSlaConfiguration(
      t.db,
      t.jobs,
      admin.principal,
      row,
      { severities: { critical: { days: 7 } } },
      systemAuditContext('sla test'),
      at(10),
    );
    await recomputed();
    expect(await dueOf(finding.id)).toEqual(at(7));
    expect(await findingDetail(t.db, finding.id, at(10))).toMatchObject({
      sla_breached: true,
      sla_days_remaining: -3,
      due_date_source: 'sla',
    });
    expect(await findingDetail(t.db, manual.id, at(10))).toMatchObject({
      due_date: '2026-12-24T00:00:00.000Z',
      due_date_source: 'manual',
    });
    // The list filters read the same clock.
    const ids = async (sla: 'breached' | 'due_soon', now: Date) =>
      (await listFindings(t.db, admin.principal, { application_id: app.id, sla }, now)).findings.map(
        (f) => f.id,
      );
    expect(await ids('breached', at(10))).toEqual([finding.id]);
    expect(await ids('due_soon', at(1))).toEqual([finding.id]);
    expect(await ids('due_soon', at(10))).toEqual([]);
  });

  it('the clock pauses while dismissed (an accepted risk) and runs again when reopened', async () => {
    const app = await makeApplication(t, admin);
    const finding = await slaFinding(app.id);
    await move(finding.id, app.id, 'open', 'false_positive', at(5));
    expect(await findingDetail(t.db, finding.id, at(20))).toMatchObject({
      sla_days_remaining: null,
      sla_breached: false,
    });
    // Dismissed findings are not announced, however late.
    await announceSlaBreaches(t.db, at(20));
    const breached = await t.db
      .selectFrom('findings')
      .select('sla_breached_at')
      .where('id', '=', finding.id)
      .executeTakeFirstOrThrow();
    expect(breached.sla_breached_at).toBeNull();
    await move(finding.id, app.id, 'false_positive', 'open', at(25));
    expect(await dueOf(finding.id)).toEqual(at(35)); // 15 days + 20 paused
    expect(await findingDetail(t.db, finding.id, at(30))).toMatchObject({
      sla_days_remaining: 5,
      sla_breached: false,
    });
  });
});

describe('finding.sla_breached', () => {
  it('is announced once per finding across job runs, with a timeline entry, and sets off policies', async () => {
    // Earlier tests' findings may breach in these runs too: count only this application's.
    const app = await makeApplication(t, admin);
    const policy = await api('POST', '/api/policies', admin, {
      name: `breach-${app.id}`,
      scope_type: 'application',
      scope_id: app.id,
      event_types: ['finding.sla_breached'],
      conditions: [{ field: 'sla_breached', op: 'eq', value: true }],
      actions: [{ type: 'change_status', target: 'confirmed' }],
    });
    expect(policy.statusCode, policy.body).toBe(201);
    const critical = await slaFinding(app.id, 'critical');
    const high = await slaFinding(app.id, 'high');

    const eventsOf = () =>
      t.db
        .selectFrom('events')
        .select(['finding_id', 'data'])
        .where('type', '=', 'finding.sla_breached')
        .where('application_id', '=', app.id)
        .orderBy('id')
        .execute();

    const handler = slaJobs['sla-breaches'];
    if (!('handler' in handler)) throw new Error('sla-breaches runs one job at a time');
    const context = { ...t, log: { info: () => {}, warn: () => {}, error: () => {} } } as never;

    await handler.handler(context, { now: at(14).toISOString() });
    expect(await eventsOf()).toEqual([]);
    await handler.handler(context, { now: at(16).toISOString() });
    await handler.handler(context, { now: at(17).toISOString() });
    expect((await eventsOf()).map((event) => event.finding_id)).toEqual([critical.id]);
    await handler.handler(context, { now: at(31).toISOString() });
    await handler.handler(context, { now: at(60).toISOString() });
    const events = await eventsOf();
    expect(events.map((event) => event.finding_id)).toEqual([critical.id, high.id]);
    expect(events[0]?.data).toMatchObject({
      severity: 'critical',
      due_date: at(15).toISOString(),
      breached_at: at(16).toISOString(),
    });

    const rows = await t.db
      .selectFrom('findings')
      .select(['id', 'status', 'sla_breached_at'])
      .where('application_id', '=', app.id)
      .orderBy('id')
      .execute();
    expect(rows).toEqual([
      { id: critical.id, status: 'confirmed', sla_breached_at: at(16) },
      { id: high.id, status: 'confirmed', sla_breached_at: at(31) },
    ]);
    const timeline = await t.db
      .selectFrom('finding_events')
      .select('finding_id')
      .where('type', '=', 'sla_breached')
      .where('finding_id', 'in', [critical.id, high.id])
      .execute();
    expect(timeline).toHaveLength(2);
  });

  it('two runs at once announce each finding once', async () => {
    const app = await makeApplication(t, admin);
    const findings = await Promise.all(
      [1, 2, 3].map(() => makeFinding(t, app.id, { severity: 'low', first_seen_at: T0 })),
    );
    await recomputeDueDates(t.db, { applicationIds: [app.id] }, T0);
    await Promise.all([announceSlaBreaches(t.db, at(400), 2), announceSlaBreaches(t.db, at(400), 2)]);
    const { rows } = await sql<{ finding_id: number; n: number }>`
      select finding_id, count(*)::integer as n from events
      where type = 'finding.sla_breached' and application_id = ${app.id} group by finding_id order by finding_id`.execute(
      t.db,
    );
    // Made at once, the findings' ids need not follow the order of \`findings\`.
    const ids = findings.map((finding) => finding.id).sort((a, b) => a - b);
    expect(rows).toEqual(ids.map((id) => ({ finding_id: id, n: 1 })));
  });
});

describe('/api/sla-configurations access', () => {
  it('walks 401, 403, 400, 404, 409 and success; a group writer manages its own configuration', async () => {
    const owner = await makeUser(t);
    const outsider = await makeUser(t);
    const group = await makeGroup(t, owner);
    const app = await makeApplication(t, owner, { groupId: group.id });
    const reader = await makeUser(t);
    await grant(t, reader, app.id, 'read');

    expect((await t.app.inject({ method: 'GET', url: '/api/sla-configurations' })).statusCode).toBe(401);
    // A member may not make a global configuration.
    expect(
      (await api('POST', '/api/sla-configurations', owner, { name: `global-${group.id}` })).statusCode,
    ).toBe(403);
    // Strict bodies: unknown fields, days out of range.
    const bad = await api('POST', '/api/sla-configurations', owner, {
      name: 'x',
      owner_group_id: group.id,
      severities: { critical: { days: 0 } },
      extra: 1,
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.headers['content-type']).toContain('application/problem+json');
    // A group the member cannot read is not there.
    expect(
      (
        await api('POST', '/api/sla-configurations', outsider, {
          name: `o-${group.id}`,
          owner_group_id: group.id,
        })
      ).statusCode,
    ).toBe(404);

    const created = await createConfiguration(owner, {
      name: `team-sla-${group.id}`,
      owner_group_id: group.id,
      severities: { critical: { days: 7 }, high: { days: 30 } },
    });
    expect(
      (
        await api('POST', '/api/sla-configurations', owner, {
          name: `team-sla-${group.id}`,
          owner_group_id: group.id,
        })
      ).statusCode,
    ).toBe(409);
    expect((await api('GET', `/api/sla-configurations/${created.id}`, outsider)).statusCode).toBe(404);
    expect(
      (await api('PATCH', `/api/sla-configurations/${created.id}`, reader, { name: 'nope' })).statusCode,
    ).toBe(403);
    const patched = await api('PATCH', `/api/sla-configurations/${created.id}`, owner, {
      severities: { low: { enforced: false } },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().severities).toMatchObject({
      critical: { days: 7, enforced: true },
      low: { enforced: false },
    });

    // Assignment: write on the target; a group's own configuration stays in its subtree.
    expect(
      (
        await api('PUT', `/api/applications/${app.id}/sla-configuration`, reader, {
          sla_configuration_id: created.id,
        })
      ).statusCode,
    ).toBe(403);
    const elsewhere = await makeGroup(t, owner);
    const refused = await api('PUT', `/api/groups/${elsewhere.id}/sla-configuration`, owner, {
      sla_configuration_id: created.id,
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().code).toBe('sla_configuration_not_in_scope');
    const assigned = await api('PUT', `/api/groups/${group.id}/sla-configuration`, owner, {
      sla_configuration_id: created.id,
    });
    expect(assigned.statusCode, assigned.body).toBe(200);
    expect(
      (
        await t.db
          .selectFrom('groups')
          .select('sla_configuration_id')
          .where('id', '=', group.id)
          .executeTakeFirstOrThrow()
      ).sla_configuration_id,
    ).toBe(created.id);

    // The default is global: members read it, only admins change it, nobody deletes it.
    const defaults = await t.db
      .selectFrom('sla_configurations')
      .select('id')
      .where('is_default', '=', true)
      .executeTakeFirstOrThrow();
    expect((await api('GET', `/api/sla-configurations/${defaults.id}`, owner)).statusCode).toBe(200);
    expect(
      (await api('PATCH', `/api/sla-configurations/${defaults.id}`, owner, { name: 'mine' })).statusCode,
    ).toBe(403);
    expect((await api('DELETE', `/api/sla-configurations/${defaults.id}`, admin)).statusCode).toBe(409);
    expect((await api('DELETE', `/api/sla-configurations/${created.id}`, owner)).statusCode).toBe(204);
  });
});
