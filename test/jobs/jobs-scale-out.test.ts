import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sarifFile } from '../../bench/generate-sarif.ts';
import { startServerProcess, type ServerProcess } from '../support/server-process.ts';
import { multipartBody } from '../support/upload.ts';

/**
 * Async uploads are pg-boss jobs: two servers on one PostgreSQL share them, and a server killed in
 * the middle of its work neither loses an upload nor lets one be merged twice. Needs a PostgreSQL
 * server (two processes cannot share an embedded database), so it runs in the PostgreSQL pass.
 */

const serverUrl = process.env.TEST_DATABASE_URL;
const ADMIN = { email: 'scale-admin@scanhub.local', password: 'scale-out-admin-password' };
const UPLOADS = 20;
const RESULTS_PER_UPLOAD = 2_000;

let databaseUrl: string;
let database: string;
const dataDirs: string[] = [];
const servers: ServerProcess[] = [];

async function admin<T>(work: (client: pg.Client) => Promise<T>, url = serverUrl): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function start(): Promise<ServerProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'scanhub-scale-'));
  dataDirs.push(dataDir);
  const server = await startServerProcess({
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    SCANHUB_ADMIN_EMAIL: ADMIN.email,
    SCANHUB_ADMIN_PASSWORD: ADMIN.password,
    SCANHUB_SECRET_KEY: 'scale-out-secret-key-0123456789abcdef',
    RATE_LIMIT_PER_MINUTE: '100000',
    // A dead worker's job is handed to another after this long.
    JOB_TIMEOUT_SECONDS: '8',
  });
  servers.push(server);
  return server;
}

async function api(base: string, path: string, init: RequestInit & { key?: string } = {}) {
  const response = await fetch(`${base}${path}`, {
    ...init,
    headers: {
      ...(init.body && typeof init.body === 'string' ? { 'content-type': 'application/json' } : {}),
      ...(init.key ? { 'x-api-key': init.key } : {}),
      ...(init.headers as Record<string, string>),
    },
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

beforeAll(async () => {
  if (!serverUrl) return;
  database = `scanhub_scale_${randomBytes(5).toString('hex')}`;
  await admin((client) => client.query(`create database ${database}`));
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  databaseUrl = url.toString();
}, 60_000);

afterAll(async () => {
  await Promise.all(servers.map((server) => server.kill()));
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  if (serverUrl && database)
    await admin((client) => client.query(`drop database if exists ${database} with (force)`));
}, 60_000);

describe.runIf(serverUrl)('async uploads on two servers', () => {
  it('complete exactly once each, with one scan.completed event, through a server crash', async () => {
    const [first, second] = [await start(), await start()] as [ServerProcess, ServerProcess];

    const login = await fetch(`${first.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ADMIN),
    });
    const cookie = login.headers.get('set-cookie')?.split(';')[0] ?? '';
    const csrf = (await api(first.url, '/api/csrf-token', { headers: { cookie } })).body.csrfToken;
    const key = (
      await api(first.url, '/api/api-keys', {
        method: 'POST',
        headers: { cookie, 'x-csrf-token': csrf },
        body: JSON.stringify({ name: 'scale-out' }),
      })
    ).body.key;
    const group = await api(first.url, '/api/groups', {
      method: 'POST',
      key,
      body: JSON.stringify({ name: 'Scale', path: 'scale' }),
    });
    const application = await api(first.url, '/api/applications', {
      method: 'POST',
      key,
      body: JSON.stringify({ name: 'Scale', slug: 'scale', group_id: group.body.id }),
    });
    const token: string = application.body.api_token;

    // Two uploads per version, of different slices, so each version's findings are known exactly.
    const scanIds: number[] = [];
    for (let i = 0; i < UPLOADS; i++) {
      const file = await sarifFile({
        count: RESULTS_PER_UPLOAD,
        offset: (i % 2) * RESULTS_PER_UPLOAD,
        seed: 7,
      });
      const { body, contentType } = multipartBody({
        file: readFileSync(file),
        fileName: 'scale.sarif',
        fields: { version: `v${Math.floor(i / 2)}` },
      });
      const server = i % 2 === 0 ? first : second;
      const response = await fetch(`${server.url}/api/ingest?async=true`, {
        method: 'POST',
        headers: { 'x-api-token': token, 'content-type': contentType },
        body,
      });
      expect(response.status).toBe(202);
      scanIds.push(((await response.json()) as { scan: { id: number } }).scan.id);
    }

    // Kill one server while work remains, then bring it back.
    const unfinished = (await api(second.url, '/api/scans?limit=100', { key })).body.filter(
      (scan: { status: string }) => scan.status !== 'completed',
    );
    await first.kill();
    expect(unfinished.length, 'the crash came after all the work was done').toBeGreaterThan(0);
    const restarted = await start();

    const deadline = Date.now() + 240_000;
    let scans: { id: number; status: string }[] = [];
    while (Date.now() < deadline) {
      scans = (await api(second.url, '/api/scans?limit=100', { key })).body;
      if (scans.length === UPLOADS && scans.every((scan) => scan.status === 'completed')) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(scans.map((scan) => scan.status)).toEqual(Array(UPLOADS).fill('completed'));

    await admin(async (client) => {
      const events = await client.query<{ scan_id: number; n: number }>(
        `select scan_id, count(*)::int as n from events where type = 'scan.completed' group by scan_id order by scan_id`,
      );
      expect(events.rows).toEqual(scanIds.map((id) => ({ scan_id: id, n: 1 })));
      const perVersion = await client.query<{ name: string; findings: number; fingerprints: number }>(
        `select v.name, count(f.id)::int as findings, count(distinct f.fingerprint)::int as fingerprints
         from application_versions v join findings f on f.version_id = v.id group by v.name order by v.name`,
      );
      expect(perVersion.rows).toHaveLength(UPLOADS / 2);
      for (const row of perVersion.rows) expect(row.findings).toBe(row.fingerprints);
      const left = await client.query(`select count(*)::int as n from upload_chunks`);
      expect(left.rows[0].n).toBe(0);
    }, databaseUrl);
    expect(restarted.output()).not.toMatch(/error/i);
  }, 300_000);
});
