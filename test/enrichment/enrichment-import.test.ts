import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyEnrichment } from '../../src/domain/findings/enrichment.ts';
import { dueDatesInForce } from '../../src/domain/findings/sla.ts';
import { epssCsv, kevJson } from '../../scripts/enrichment-fixtures.ts';
import { makeApplication, makeFinding, makeUser, type TestUser } from '../support/factories.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { upload } from '../support/upload.ts';

const FIXTURES = new URL('../fixtures/enrichment/', import.meta.url);
const fixture = (name: string) => readFileSync(new URL(name, FIXTURES));

let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await makeUser(t, { role: 'admin' });
});
afterAll(() => t.close());

const importFile = (file: Buffer | string, fields: Record<string, string> = {}, user: TestUser = admin) =>
  upload(t, '/api/admin/enrichment', user.headers, { file, fileName: 'data', fields });

/** Everything an import may change, in a comparable form. */
async function state() {
  const epss = await t.db
    .selectFrom('epss_scores')
    .select(['cve', 'epss', 'percentile'])
    .orderBy('cve')
    .execute();
  const kev = await t.db.selectFrom('kev_entries').select(['cve', 'ransomware']).orderBy('cve').execute();
  const snapshots = await t.db
    .selectFrom('enrichment_snapshots')
    .select(['source', 'version', 'row_count', 'current'])
    .where('current', '=', true)
    .orderBy('source')
    .execute();
  return { epss, kev, snapshots };
}

async function reset() {
  await t.db.deleteFrom('epss_scores').execute();
  await t.db.deleteFrom('kev_entries').execute();
  await t.db.updateTable('findings').set({ kev_snapshot_id: null }).execute();
  await t.db.updateTable('finding_epss').set({ snapshot_id: null }).execute();
  await t.db.deleteFrom('enrichment_snapshots').execute();
}

describe('POST /api/admin/enrichment', () => {
  it('imports the EPSS fixture (gzip) as one snapshot with provenance; the same file again changes nothing', async () => {
    await reset();
    const first = await importFile(fixture('epss_scores-2026-11-27.csv.gz'));
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json()).toMatchObject({
      outcome: 'imported',
      rows_read: 400,
      snapshot: {
        source: 'epss',
        format: 'epss_csv',
        version: 'v2025.03.14',
        data_date: '2026-11-27',
        row_count: 400,
        imported_by: admin.id,
        origin: 'upload',
      },
    });
    expect(first.json().snapshot.released_at).toBe('2026-11-27T12:55:00.000Z');
    const log4j = await t.db
      .selectFrom('epss_scores')
      .selectAll()
      .where('cve', '=', 'CVE-2021-44228')
      .executeTakeFirstOrThrow();
    expect(log4j.epss).toBe(0.94358);
    const before = await state();
    const audited = await t.db
      .selectFrom('audit_events')
      .select(['actor_type', 'action'])
      .where('action', '=', 'enrichment.imported')
      .execute();
    // The test user calls with one of its API keys.
    expect(audited).toEqual([{ actor_type: 'api_key', action: 'enrichment.imported' }]);
    // The plain form of the same file: the same snapshot, nothing written.
    const again = await importFile(fixture('epss_scores-2026-11-27.csv'));
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ outcome: 'unchanged', rows_changed: 0 });
    expect(await state()).toEqual(before);
    // Nothing changed: no second audit row.
    expect(
      await t.db
        .selectFrom('audit_events')
        .select('id')
        .where('action', '=', 'enrichment.imported')
        .execute(),
    ).toHaveLength(1);
  });

  it('imports KEV JSON and CSV: the same entries; the CSV names its newest dateAdded', async () => {
    await reset();
    const json = await importFile(fixture('known_exploited_vulnerabilities.json'));
    expect(json.statusCode, json.body).toBe(201);
    expect(json.json().snapshot).toMatchObject({
      source: 'kev',
      format: 'kev_json',
      version: '2026.11.27',
      row_count: 6,
    });
    const fromJson = (await state()).kev;
    expect(fromJson.find((row) => row.cve === 'CVE-2021-44228')).toEqual({
      cve: 'CVE-2021-44228',
      ransomware: true,
    });
    const entry = await t.db
      .selectFrom('kev_entries')
      .selectAll()
      .where('cve', '=', 'CVE-2026-10001')
      .executeTakeFirstOrThrow();
    expect(entry.product).toBe('Widget, "Pro" edition');
    await reset();
    const csv = await importFile(gzipSync(fixture('known_exploited_vulnerabilities.csv')));
    expect(csv.statusCode, csv.body).toBe(201);
    expect(csv.json().snapshot).toMatchObject({ format: 'kev_csv', data_date: '2026-11-27', row_count: 6 });
    expect((await state()).kev).toEqual(fromJson);
  });

  it('refuses a malformed file with 400 naming the line or field, and changes nothing', async () => {
    await reset();
    await importFile(fixture('epss_scores-2026-11-27.csv'));
    const before = await state();
    const lines = epssCsv(50, '2026-11-28').split('\n');
    lines[30] = 'CVE-2020-1234,1.5,0.3';
    const bad = await importFile(lines.join('\n'));
    expect(bad.statusCode).toBe(400);
    expect(bad.headers['content-type']).toContain('application/problem+json');
    expect(bad.json()).toMatchObject({
      code: 'invalid_enrichment_file',
      errors: [{ path: 'line 31, field epss' }],
    });
    const header = await importFile('#model_version:v1,score_date:not-a-date\ncve,epss,percentile\n');
    expect(header.json().errors[0].path).toBe('line 1');
    const kev = JSON.parse(kevJson()) as { vulnerabilities: Record<string, unknown>[] };
    kev.vulnerabilities[2]!.dueDate = '2024-13-45';
    const badKev = await importFile(JSON.stringify(kev));
    expect(badKev.statusCode).toBe(400);
    expect(badKev.json().errors[0].path).toBe('vulnerabilities[2].dueDate');
    const corrupt = await importFile(gzipSync(fixture('epss_scores-2026-11-27.csv')).subarray(0, 900));
    expect(corrupt.statusCode).toBe(400);
    const unknown = await importFile('hello');
    expect(unknown.statusCode).toBe(400);
    expect(await state()).toEqual(before);
  });

  it('refuses an older file with 409 unless forced', async () => {
    await reset();
    expect((await importFile(epssCsv(20, '2026-11-27'))).statusCode).toBe(201);
    const stale = await importFile(epssCsv(20, '2026-11-20'));
    expect(stale.statusCode).toBe(409);
    expect(stale.json()).toMatchObject({ code: 'stale_snapshot', current: { data_date: '2026-11-27' } });
    const forced = await importFile(epssCsv(20, '2026-11-20'), { force: 'true' });
    expect(forced.statusCode).toBe(201);
    expect((await state()).snapshots).toEqual([
      { source: 'epss', version: 'v2025.03.14', row_count: 20, current: true },
    ]);
    const status = await t.app.inject({ url: '/api/enrichment/status', headers: admin.headers });
    expect(status.json().sources[0]).toMatchObject({
      source: 'epss',
      stale: true,
      fetch_configured: false,
      snapshot: { data_date: '2026-11-20' },
    });
    expect(status.json().sources[1]).toMatchObject({ source: 'kev', snapshot: null, stale: true });
    const metrics = await t.app.inject({ url: '/metrics' });
    expect(metrics.body).toMatch(
      /scanhub_enrichment_snapshot_age_seconds\{source="epss",version="v2025.03.14"\} \d+/,
    );
    expect(metrics.body).toContain('scanhub_enrichment_snapshot_rows{source="epss"} 20');
  });

  it('is strict: members without the permission get 403, unknown fields and missing files 400', async () => {
    const member = await makeUser(t);
    expect((await importFile(epssCsv(5), {}, member)).statusCode).toBe(403);
    const extra = await importFile(epssCsv(5), { version: 'x' });
    expect(extra.statusCode).toBe(400);
    expect(extra.json().errors[0].path).toBe('body.version');
    expect((await importFile(epssCsv(5), { force: 'yes' })).statusCode).toBe(400);
    const none = await upload(t, '/api/admin/enrichment', admin.headers, { fields: { force: 'true' } });
    expect(none.statusCode).toBe(400);
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/admin/enrichment',
          headers: admin.headers,
          payload: {},
        })
      ).statusCode,
    ).toBe(400);
    const settings = await t.app.inject({
      method: 'PATCH',
      url: '/api/admin/enrichment/settings',
      headers: admin.headers,
      payload: { epss_percentile_threshold: 2 },
    });
    expect(settings.statusCode).toBe(400);
  });

  it('property: a snapshot in pieces, in any order and repeated, ends in the state of the whole file', async () => {
    const whole = epssCsv(60, '2026-11-29', 'v-prop');
    const [header, columns, ...rows] = whole.trim().split('\n');
    await reset();
    await importFile(whole);
    const expected = await state();
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 3 }), { minLength: rows.length, maxLength: rows.length }),
        fc.boolean(),
        async (assignment, twice) => {
          await reset();
          const pieces = [0, 1, 2, 3]
            .map((piece) => rows.filter((_, index) => assignment[index] === piece))
            .filter((piece) => piece.length > 0);
          for (const piece of twice ? [...pieces, ...pieces] : pieces) {
            const answer = await importFile([header, columns, ...piece].join('\n'));
            expect([200, 201]).toContain(answer.statusCode);
          }
          expect(await state()).toEqual(expected);
        },
      ),
      { numRuns: 8 },
    );
  });
});

describe('findings carry EPSS and KEV', () => {
  it('re-scores set-wise, KEV wins, sets the earlier KEV due date, and fires events once across two imports', async () => {
    await reset();
    const app = await makeApplication(t, admin, { assetCriticality: 'critical' });
    const log4j = await makeFinding(t, app.id, {
      severity: 'medium',
      cve_ids: ['CVE-2021-44228'],
      risk_severity: 5.5,
      due_date: new Date(Date.now() + 90 * 86_400_000),
    });
    const spring = await makeFinding(t, app.id, {
      severity: 'low',
      cve_ids: ['CVE-2022-22965'],
      risk_severity: 2.5,
    });
    const plain = await makeFinding(t, app.id, { severity: 'high', cve_ids: [], epss: 0.42 });
    await importFile(fixture('epss_scores-2026-11-27.csv'));
    await importFile(fixture('known_exploited_vulnerabilities.json'));
    // The import also queues the same apply as a job, which the test app's workers may run first:
    // which of the two announces the listing does not matter, that it is announced once does (below).
    await applyEnrichment(t.db, 'all');
    const row = await t.db
      .selectFrom('findings')
      .selectAll()
      .where('id', '=', log4j.id)
      .executeTakeFirstOrThrow();
    const epssOf = async (id: number) =>
      (
        await t.db
          .selectFrom('finding_epss')
          .select(['epss', 'snapshot_id'])
          .where('finding_id', '=', id)
          .executeTakeFirst()
      )?.epss ?? null;
    expect(await epssOf(log4j.id)).toBe(0.94358);
    expect(row).toMatchObject({
      in_kev: true,
      kev_due_date: '2021-12-24',
      kev_ransomware: true,
      risk_exploitation: 1,
    });
    expect(row.due_date?.toISOString()).toBe('2021-12-24T23:59:59.000Z');
    // The factory's stored M is 0.65: 100 × 0.65 × (0.6 × 0.55 + 0.3 × 1 + 0.1 × 0) = 40.95 → 41 (X = 0.2 gave 29).
    expect(row.risk_score).toBe(41);
    const springRow = await t.db
      .selectFrom('findings')
      .selectAll()
      .where('id', '=', spring.id)
      .executeTakeFirstOrThrow();
    expect(springRow.risk_exploitation).toBe(1);
    expect(await epssOf(plain.id)).toBe(0.42);

    const detail = await t.app.inject({ url: `/api/findings/${log4j.id}`, headers: admin.headers });
    expect(detail.json()).toMatchObject({
      epss_percentile: expect.any(Number),
      kev: { date_added: '2021-12-10', due_date: '2021-12-24', ransomware: true },
      risk: {
        exploitation: 1,
        exploitation_source: 'kev',
        exploitation_explanation: expect.stringContaining('certain'),
      },
    });
    expect(detail.json().timeline.map((entry: { type: string }) => entry.type)).toEqual(
      expect.arrayContaining(['kev_listed', 'due_date_changed']),
    );

    // A second, newer import of both: nothing new to announce.
    await importFile(epssCsv(400, '2026-11-28'));
    await importFile(kevJson('2026.11.28', '2026-11-28T10:00:00Z'));
    await applyEnrichment(t.db, 'all');
    const events = await t.db
      .selectFrom('events')
      .select(['type', 'finding_id'])
      .where('finding_id', 'in', [log4j.id, spring.id])
      .where('type', 'in', ['finding.kev_listed', 'finding.epss_changed'])
      .execute();
    expect(events.filter((event) => event.type === 'finding.kev_listed')).toHaveLength(2);
    for (const id of [log4j.id, spring.id]) {
      expect(
        events.filter((event) => event.finding_id === id && event.type === 'finding.kev_listed'),
      ).toHaveLength(1);
    }

    const listed = await t.app.inject({
      url: `/api/findings?application_id=${app.id}&kev=true`,
      headers: admin.headers,
    });
    expect(
      listed
        .json()
        .findings.map((f: { id: number }) => f.id)
        .sort(),
    ).toEqual([log4j.id, spring.id].sort());
    const byEpss = await t.app.inject({
      url: `/api/findings?application_id=${app.id}&sort_by=epss`,
      headers: admin.headers,
    });
    expect(byEpss.json().findings.map((f: { id: number }) => f.id)).toEqual([spring.id, log4j.id, plain.id]);
    const min = await t.app.inject({
      url: `/api/findings?application_id=${app.id}&epss_min=0.95`,
      headers: admin.headers,
    });
    expect(min.json().findings.map((f: { id: number }) => f.id)).toEqual([spring.id]);

    // The setting off: the SLA's due date comes back.
    const off = await t.app.inject({
      method: 'PATCH',
      url: '/api/admin/enrichment/settings',
      headers: admin.headers,
      payload: { kev_due_dates: false },
    });
    expect(off.statusCode).toBe(200);
    await t.jobs.drained('sla-recompute'); // the answer does not wait for the recompute
    // The due date in force: the recompute writes it to the overlay (domain/findings/sla.ts).
    const after = (await dueDatesInForce(t.db, [log4j.id])).get(log4j.id);
    expect(after!.getTime()).toBeGreaterThan(Date.parse('2022-01-01'));
    const shown = await t.app.inject({ url: `/api/findings/${log4j.id}`, headers: admin.headers });
    expect(shown.json().due_date).toBe(after!.toISOString());
    await t.app.inject({
      method: 'PATCH',
      url: '/api/admin/enrichment/settings',
      headers: admin.headers,
      payload: { kev_due_dates: true },
    });
    await t.jobs.drained('sla-recompute');
  });
});
