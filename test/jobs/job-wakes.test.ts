import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import type { App } from '../../src/app-context.ts';
import { loadConfig } from '../../src/config.ts';
import { createAppContext } from '../../src/context.ts';
import { openDatabase } from '../../src/db/database.ts';
import { makeApplication, makeUser, type TestUser } from '../support/factories.ts';
import { buildSarif } from '../support/sarif-builder.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { upload } from '../support/upload.ts';
import { eventually, startReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

/**
 * Every process that runs workers hears of the jobs and events any process commits (a notice at
 * commit); polling (JOB_POLL_SECONDS) only finds what no notice announced: retries, cron jobs. With
 * polls ten minutes apart, what a request starts must still run at once, whichever process took the
 * request: a missing notice or wake makes these wait for a poll that does not come within the test.
 */
const POLL_SECONDS = 600;
const WITHIN_MS = 15_000;

let t: TestApp;
let admin: TestUser;
let receiver: WebhookReceiver | undefined;

beforeAll(async () => {
  t = await createTestApp({
    jobs: { ...loadConfig({}).jobs, pollSeconds: POLL_SECONDS },
    outbound: { allowPrivate: true },
  });
  admin = await makeUser(t, { role: 'admin' });
});
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});
afterAll(() => t.close());

const sarif = buildSarif({
  results: [
    { ruleId: 'xss', path: 'src/a.ts', line: 3, level: 'error' },
    { ruleId: 'sqli', path: 'src/b.ts', line: 9, level: 'warning' },
  ],
});

/** What receives the request: `t` itself, or another process on the same database. */
type Receiver = Pick<TestApp, 'app'>;

/** An async upload sent to `via` is ingested (by `t`'s workers) within the test's window. */
async function expectAsyncUploadIngested(via: Receiver): Promise<void> {
  const app = await makeApplication(t, admin);
  const headers = { 'x-api-token': app.api_token };
  const accepted = await upload(via, '/api/ingest?async=true', headers, { file: sarif });
  expect(accepted.statusCode).toBe(202);
  const scanId = accepted.json().scan.id as number;
  const scan = await eventually(async () => {
    const response = await t.app.inject({ url: `/api/scans/${scanId}`, headers: admin.headers });
    const body = response.json() as { status: string; findings_count: number };
    return body.status === 'pending' || body.status === 'processing' ? undefined : body;
  }, WITHIN_MS);
  expect(scan).toMatchObject({ status: 'completed', findings_count: 2 });
}

/** An upload sent to `via` reaches a subscribed webhook (through `t`'s dispatcher) within the window. */
async function expectWebhookDelivered(via: Receiver): Promise<void> {
  const app = await makeApplication(t, admin);
  receiver = await startReceiver();
  const subscribed = await t.app.inject({
    method: 'POST',
    url: `/api/applications/${app.id}/webhooks`,
    headers: admin.headers,
    payload: { url: receiver.url, events: 'finding.created' },
  });
  expect(subscribed.statusCode).toBe(201);
  const uploaded = await upload(via, '/api/ingest', { 'x-api-token': app.api_token }, { file: sarif });
  expect(uploaded.statusCode).toBe(201);
  const requests = await receiver.waitFor(2, WITHIN_MS);
  expect(requests.map((request) => request.headers['x-service-event'])).toEqual([
    'finding.created',
    'finding.created',
  ]);
}

// PostgreSQL only: two processes cannot share an embedded database. The sender runs no workers,
// as a server with JOBS_IN_SERVER=false beside a `scanhub worker` (here, `t`).
describe.runIf(process.env.TEST_DATABASE_URL)(
  `sent by another process, with polls ${POLL_SECONDS} s apart`,
  () => {
    let sender: { app: App; close(): Promise<void> } | undefined;
    beforeAll(async () => {
      const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(t.db);
      const database = await openDatabase({ url: process.env.TEST_DATABASE_URL, schema: rows[0]?.schema });
      const quiet = { info: () => {}, warn: () => {}, error: () => {} };
      const context = await createAppContext(t.config, database, t.secretKey, quiet, { work: false });
      const app = await buildApp(context, { logger: false });
      await app.ready();
      sender = {
        app,
        close: async () => {
          await app.close();
          await context.jobs.stop();
          await database.close();
        },
      };
    });
    afterAll(() => sender?.close());

    it("an async upload is ingested by this process's workers", () => expectAsyncUploadIngested(sender!));

    it("an upload's events reach a webhook through this process's dispatcher", () =>
      expectWebhookDelivered(sender!));
  },
);

describe(`with job polls ${POLL_SECONDS} s apart`, () => {
  it('an async upload is ingested', () => expectAsyncUploadIngested(t));

  it('async uploads sent together are each ingested, not one per wake', async () => {
    const app = await makeApplication(t, admin);
    const accepted = await Promise.all(
      ['1', '2', '3', '4'].map((version) =>
        upload(
          t,
          '/api/ingest?async=true',
          { 'x-api-token': app.api_token },
          { file: sarif, fields: { version } },
        ),
      ),
    );
    expect(accepted.map((response) => response.statusCode)).toEqual([202, 202, 202, 202]);
    const scanIds = accepted.map((response) => response.json().scan.id as number);
    const statuses = await eventually(async () => {
      const scans = await Promise.all(
        scanIds.map(async (id) => {
          const response = await t.app.inject({ url: `/api/scans/${id}`, headers: admin.headers });
          return (response.json() as { status: string }).status;
        }),
      );
      return scans.every((status) => status === 'completed') ? scans : undefined;
    }, WITHIN_MS);
    expect(statuses).toEqual(['completed', 'completed', 'completed', 'completed']);
  });

  it("an upload's events reach a webhook: the outbox watch wakes the dispatcher, the dispatcher the deliveries", () =>
    expectWebhookDelivered(t));

  it.skipIf(Boolean(process.env.TEST_DATABASE_URL))(
    "on PGlite, a big upload's vacuum runs after its answer",
    async () => {
      const app = await makeApplication(t, admin);
      const results = Array.from({ length: 10_000 }, (_, index) => ({
        ruleId: `rule-${index % 7}`,
        path: `src/file-${index}.ts`,
        line: index + 1,
      }));
      const response = await upload(
        t,
        '/api/ingest',
        { 'x-api-token': app.api_token },
        { file: buildSarif({ tool: 'vacuum-wake', results }) },
      );
      expect(response.statusCode).toBe(201);
      const state = await eventually(async () => {
        const { rows } = await sql<{ state: string }>`
          select state from ${sql.table(`${t.database.jobSchema}.job`)}
          where name = 'vacuum-after-ingest'`.execute(t.db);
        return rows[0]?.state === 'completed' ? rows[0].state : undefined;
      }, WITHIN_MS);
      expect(state).toBe('completed');
    },
    60_000,
  );
  it('a job sent with no wake runs at once: its notice wakes the worker', async () => {
    await t.jobs.send(t.db, 'tracker-reconcile', {});
    const state = await eventually(async () => {
      const { rows } = await sql<{ state: string }>`
        select state from ${sql.table(`${t.database.jobSchema}.job`)} where name = 'tracker-reconcile'`.execute(
        t.db,
      );
      return rows[0]?.state === 'completed' ? rows[0].state : undefined;
    }, WITHIN_MS);
    expect(state).toBe('completed');
  });

  it('a job sent without a notice waits for the poll (the setting reaches the workers)', async () => {
    // Last in the file: each worker fetches once when it starts, and under load that first fetch
    // came after a job sent by the file's first test (CI, 71da189). Two more seconds of margin.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    // Written as pg-boss writes a job, without the notice `jobs.send` adds: as one sent while this
    // process's listening connection was down.
    await sql`insert into ${sql.table(`${t.database.jobSchema}.job`)} (name, data)
      values ('maintenance-daily', '{}'::jsonb)`.execute(t.db);
    // pg-boss's own default would have fetched it within 2 s.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const { rows } = await sql<{ state: string }>`
      select state from ${sql.table(`${t.database.jobSchema}.job`)} where name = 'maintenance-daily'`.execute(
      t.db,
    );
    expect(rows.map((row) => row.state)).toEqual(['created']);
  });
});
