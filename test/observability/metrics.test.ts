import { sql } from 'kysely';
import { Gauge } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STAGING_YOUNG_GENERATION_MB } from '../../src/ingest/stage-in-worker.ts';
import { makeApplication, makeUser } from '../support/factories.ts';
import { buildSarif, manyResults } from '../support/sarif-builder.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { upload } from '../support/upload.ts';

/**
 * `/metrics` in the Prometheus text format, checked the way `promtool check metrics` would: every
 * sample belongs to a family declared by HELP and TYPE before it, names and labels are valid,
 * values are numbers, histograms are complete, no series repeats, counters end in `_total`.
 */

interface Family {
  type: string;
  samples: { name: string; labels: Record<string, string>; value: number }[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

function parseExposition(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const helped = new Set<string>();
  const seen = new Set<string>();
  expect(text.endsWith('\n'), 'ends with a newline').toBe(true);
  for (const line of text.split('\n').filter((entry) => entry !== '')) {
    const meta = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line);
    if (meta) {
      const [, kind, name = '', rest = ''] = meta;
      expect(name, line).toMatch(NAME);
      if (kind === 'HELP') helped.add(name);
      else {
        expect(['counter', 'gauge', 'histogram', 'summary', 'untyped'], line).toContain(rest);
        expect(families.has(name), `TYPE of ${name} declared twice`).toBe(false);
        families.set(name, { type: rest, samples: [] });
      }
      continue;
    }
    expect(line.startsWith('#'), `unexpected comment ${line}`).toBe(false);
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)( -?[0-9]+)?$/.exec(line);
    expect(sample, `not a sample: ${line}`).not.toBeNull();
    const [, name = '', , rawLabels = '', rawValue = ''] = sample ?? [];
    const labels: Record<string, string> = {};
    for (const pair of rawLabels.match(/[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*"/g) ?? []) {
      const eq = pair.indexOf('=');
      const label = pair.slice(0, eq);
      expect(label, line).toMatch(LABEL);
      labels[label] = pair.slice(eq + 2, -1);
    }
    const value = rawValue === '+Inf' ? Infinity : rawValue === '-Inf' ? -Infinity : Number(rawValue);
    expect(rawValue === 'NaN' || !Number.isNaN(value), `value of ${line}`).toBe(true);
    const family = [...families.keys()].find(
      (candidate) => name === candidate || name.replace(/_(bucket|sum|count)$/, '') === candidate,
    );
    expect(family, `${name} has no TYPE before it`).toBeDefined();
    expect(helped.has(family ?? ''), `${family} has no HELP`).toBe(true);
    const series = `${name}{${Object.entries(labels)
      .sort()
      .map(([k, v]) => `${k}=${v}`)
      .join(',')}}`;
    expect(seen.has(series), `${series} repeated`).toBe(false);
    seen.add(series);
    families.get(family ?? '')?.samples.push({ name, labels, value });
  }
  for (const [name, family] of families) {
    if (family.type === 'counter') expect(name, 'counter names end in _total').toMatch(/_total$/);
    if (family.type === 'histogram' && family.samples.length > 0) {
      const infinite = family.samples.filter((s) => s.name === `${name}_bucket` && s.labels.le === '+Inf');
      const counts = family.samples.filter((s) => s.name === `${name}_count`);
      expect(infinite.length, `${name} +Inf buckets`).toBe(counts.length);
      for (const count of counts) {
        const match = infinite.find((bucket) =>
          Object.entries(count.labels).every(([key, value]) => bucket.labels[key] === value),
        );
        expect(match?.value, `${name} +Inf bucket equals its count`).toBe(count.value);
      }
    }
  }
  return families;
}

const sampleValue = (families: Map<string, Family>, name: string, labels: Record<string, string>) =>
  [...families.values()]
    .flatMap((family) => family.samples)
    .find(
      (sample) => sample.name === name && Object.entries(labels).every(([k, v]) => sample.labels[k] === v),
    )?.value;

describe('/metrics without a token configured', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('is valid exposition format and counts requests, uploads, jobs and the database', async () => {
    const admin = await makeUser(t, { role: 'admin' });
    const app = await makeApplication(t, admin);
    const sarif = buildSarif({ tool: 'metrics-probe', results: manyResults(25) });
    const uploaded = await upload(
      t,
      '/api/ingest',
      { 'x-api-token': app.api_token },
      { file: Buffer.from(sarif) },
    );
    expect(uploaded.statusCode).toBe(201);
    await t.app.inject({ url: `/api/findings/999999`, headers: admin.headers });

    const response = await t.app.inject({ url: '/metrics' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('text/plain');
    expect(response.headers['content-type']).toContain('version=0.0.4');
    const families = parseExposition(response.body);

    expect(sampleValue(families, 'scanhub_ingest_findings_total', { format: 'sarif' })).toBe(25);
    expect(sampleValue(families, 'scanhub_ingest_bytes_total', { format: 'sarif' })).toBe(
      Buffer.byteLength(sarif),
    );
    expect(
      sampleValue(families, 'scanhub_ingest_duration_seconds_count', { format: 'sarif', mode: 'sync' }),
    ).toBe(1);
    expect(
      sampleValue(families, 'scanhub_http_request_duration_seconds_count', {
        route: '/api/ingest',
        method: 'POST',
        status: '201',
      }),
    ).toBe(1);
    // The route pattern, never the raw URL with its id.
    expect(
      sampleValue(families, 'scanhub_http_request_duration_seconds_count', {
        route: '/api/findings/:id',
        status: '404',
      }),
    ).toBe(1);
    const routes =
      families.get('scanhub_http_request_duration_seconds')?.samples.map((s) => s.labels.route) ?? [];
    expect(routes.some((route) => route?.includes('999999'))).toBe(false);
    expect(
      families
        .get('scanhub_webhook_deliveries_total')
        ?.samples.map((s) => s.labels.outcome)
        .sort(),
    ).toEqual(['delivered', 'failed', 'retried']);
    expect(families.get('scanhub_jobs')?.type).toBe('gauge');
    const engine = t.database.kind === 'pglite' ? 'pglite' : 'postgres';
    const connections = families.get('scanhub_database_connections')?.samples ?? [];
    expect(connections.length).toBeGreaterThan(0);
    expect(connections.every((sample) => sample.labels.engine === engine)).toBe(true);
    const pgliteMemory = families.get('scanhub_pglite_memory_bytes');
    if (t.database.kind === 'pglite') {
      // Shared buffers alone are 32 MB at the least; a field PGlite renamed would read 0 here.
      expect(sampleValue(families, 'scanhub_pglite_memory_bytes', {})).toBeGreaterThan(32 * 2 ** 20);
    } else {
      expect(pgliteMemory).toBeUndefined();
    }
    expect(families.has('scanhub_process_cpu_seconds_total')).toBe(true);
    // The upload was parsed in the staging thread, which this process started and still runs.
    expect(sampleValue(families, 'scanhub_staging_threads_started_total', {})).toBeGreaterThanOrEqual(1);
    expect(sampleValue(families, 'scanhub_staging_jobs', {})).toBe(0);
    // Its heap, which the process's own heap metrics (the server thread's) leave out.
    const stagingYoung = sampleValue(families, 'scanhub_staging_heap_bytes', { space: 'young' }) ?? 0;
    expect(stagingYoung).toBeGreaterThan(0);
    expect(stagingYoung).toBeLessThanOrEqual(STAGING_YOUNG_GENERATION_MB * 2 ** 20);
    expect(sampleValue(families, 'scanhub_staging_heap_bytes', { space: 'total' })).toBeGreaterThan(
      stagingYoung,
    );
  });

  it('spells not-a-number NaN, as the format requires (prom-client writes Nan)', async () => {
    const probe = new Gauge({ name: 'scanhub_test_not_a_number', help: 'a gauge set to Nan', registers: [] });
    probe.set(Number.NaN);
    t.metrics.registry.registerMetric(probe);
    try {
      const body = (await t.app.inject({ url: '/metrics' })).body;
      expect(body).toMatch(/^scanhub_test_not_a_number NaN$/m);
      expect(body).not.toMatch(/^[^#\n].* Nan$/m);
      // Help text may end with the word; only sample values are rewritten.
      expect(body).toContain('# HELP scanhub_test_not_a_number a gauge set to Nan\n');
      expect(Number.isNaN(sampleValue(parseExposition(body), 'scanhub_test_not_a_number', {}))).toBe(true);
    } finally {
      t.metrics.registry.removeSingleMetric('scanhub_test_not_a_number');
    }
  });

  it('reports ready, and not ready while a migration is pending', async () => {
    expect((await t.app.inject({ url: '/readyz' })).statusCode).toBe(200);
    const last = await sql<{ name: string; timestamp: string }>`
      select name, timestamp from kysely_migration order by name desc limit 1`.execute(t.db);
    const row = last.rows[0];
    if (!row) throw new Error('no migrations recorded');
    await sql`delete from kysely_migration where name = ${row.name}`.execute(t.db);
    try {
      const response = await t.app.inject({ url: '/readyz' });
      expect(response.statusCode).toBe(503);
      expect(response.json()).toMatchObject({ code: 'migrations_pending' });
      expect(response.json().detail).toContain(row.name);
    } finally {
      await sql`insert into kysely_migration (name, timestamp) values (${row.name}, ${row.timestamp})`.execute(
        t.db,
      );
    }
    expect((await t.app.inject({ url: '/readyz' })).statusCode).toBe(200);
  });
});

describe('/metrics with METRICS_TOKEN', () => {
  let t: TestApp;
  const token = 'metrics-token-0123456789abcdef';
  beforeAll(async () => {
    t = await createTestApp({ metricsToken: token });
  });
  afterAll(() => t.close());

  it('answers only the bearer of the token', async () => {
    expect((await t.app.inject({ url: '/metrics' })).statusCode).toBe(401);
    const wrong = await t.app.inject({
      url: '/metrics',
      headers: { authorization: 'Bearer not-the-token-at-all' },
    });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.headers['content-type']).toContain('application/problem+json');
    const right = await t.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${token}` } });
    expect(right.statusCode).toBe(200);
    parseExposition(right.body);
  });
});
