import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchEnrichment } from '../../src/modules/enrichment/enrichment-fetch.ts';
import { epssCsv, kevJson } from '../../scripts/enrichment-fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

/** The feeds, served by this test on 127.0.0.1: nothing else is reached. */
let server: Server;
let base: string;
const requests: string[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    requests.push(request.url ?? '');
    if (request.url === '/epss.csv.gz') {
      response
        .writeHead(200, { 'content-type': 'application/gzip' })
        .end(gzipSync(epssCsv(300, '2026-11-28')));
    } else if (request.url === '/kev.json') {
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(kevJson('2026.11.28', '2026-11-28T09:00:00Z'));
    } else if (request.url === '/moved') {
      response.writeHead(302, { location: '/kev.json' }).end();
    } else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const log = { info: () => {}, warn: () => {}, error: () => {} };

async function withApp<T>(
  config: Parameters<typeof createTestApp>[0],
  run: (t: TestApp) => Promise<T>,
): Promise<T> {
  const t = await createTestApp(config);
  try {
    return await run(t);
  } finally {
    await t.close();
  }
}

describe('enrichment-fetch', () => {
  it('sends no request when no URL is set', async () => {
    await withApp({}, async (t) => {
      const before = requests.length;
      expect(await fetchEnrichment({ ...t, log })).toEqual([]);
      expect(requests.length).toBe(before);
    });
  });

  it('downloads EPSS (gzip) and KEV through the guard and imports them; the next run changes nothing', async () => {
    await withApp(
      {
        enrichment: { epssUrl: `${base}/epss.csv.gz`, kevUrl: `${base}/kev.json` },
        outbound: { allowPrivate: true },
      },
      async (t) => {
        const first = await fetchEnrichment({ ...t, log });
        expect(
          first.map((outcome) => ('result' in outcome ? outcome.result.outcome : outcome.error)),
        ).toEqual(['imported', 'imported']);
        const snapshots = await t.db
          .selectFrom('enrichment_snapshots')
          .select(['source', 'origin', 'row_count', 'file_name'])
          .orderBy('source')
          .execute();
        expect(snapshots).toEqual([
          { source: 'epss', origin: 'fetch', row_count: 300, file_name: 'epss.csv.gz' },
          { source: 'kev', origin: 'fetch', row_count: 6, file_name: 'kev.json' },
        ]);
        const again = await fetchEnrichment({ ...t, log });
        expect(
          again.map((outcome) => ('result' in outcome ? outcome.result.outcome : outcome.error)),
        ).toEqual(['unchanged', 'unchanged']);
      },
    );
  });

  it('is refused by the outbound guard on a loopback address when private addresses are not allowed; no redirects', async () => {
    await withApp(
      {
        enrichment: { epssUrl: `${base}/epss.csv.gz`, kevUrl: `${base}/moved` },
        outbound: { allowPrivate: false },
      },
      async (t) => {
        const outcomes = await fetchEnrichment({ ...t, log });
        expect(outcomes.map((outcome) => ('error' in outcome ? outcome.error : 'imported'))).toEqual([
          expect.stringContaining('not allowed'),
          expect.stringContaining('not allowed'),
        ]);
        expect(await t.db.selectFrom('enrichment_snapshots').select('id').execute()).toEqual([]);
      },
    );
    await withApp(
      { enrichment: { epssUrl: undefined, kevUrl: `${base}/moved` }, outbound: { allowPrivate: true } },
      async (t) => {
        const [outcome] = await fetchEnrichment({ ...t, log });
        expect(outcome && 'error' in outcome ? outcome.error : '').toBe('answered 302');
      },
    );
  });
});

describe('an upload after an import', () => {
  it('gets EPSS and KEV on its new findings by the enrichment-apply-version job, never in the upload', async () => {
    const { makeApplication, makeUser } = await import('../support/factories.ts');
    const { upload } = await import('../support/upload.ts');
    const { readFileSync } = await import('node:fs');
    await withApp({}, async (t) => {
      const admin = await makeUser(t, { role: 'admin' });
      const kev = readFileSync(
        new URL('../fixtures/enrichment/known_exploited_vulnerabilities.json', import.meta.url),
      );
      expect(
        (await upload(t, '/api/admin/enrichment', admin.headers, { file: kev, fileName: 'kev.json' }))
          .statusCode,
      ).toBe(201);
      const app = await makeApplication(t, admin);
      const answer = await upload(t, `/api/applications/${app.id}/ingest`, admin.headers, {
        file: 'corpus:cyclonedx/log4j.json',
        fileName: 'log4j.json',
      });
      expect(answer.statusCode, answer.body).toBe(201);
      const log4j = () =>
        t.db
          .selectFrom('findings')
          .select(['in_kev', 'kev_due_date', 'risk_exploitation'])
          .where('application_id', '=', app.id)
          .where(sql<boolean>`'CVE-2021-44228' = any(cve_ids)`)
          .executeTakeFirst();
      await expect.poll(async () => (await log4j())?.in_kev, { timeout: 30_000, interval: 250 }).toBe(true);
      expect(await log4j()).toMatchObject({ kev_due_date: '2021-12-24', risk_exploitation: 1 });
    });
  }, 90_000);
});
