import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeApplication, makeUser, type TestUser } from '../support/factories.ts';
import { liveReport, liveSecrets, type LiveState } from '../support/live-fixtures.ts';
import { corpusPath } from '../support/parse-corpus.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { upload } from '../support/upload.ts';

/**
 * Issue 9 item 5: no secret value is retrievable through the API, nor kept in any table. Real
 * secret-scanner reports (the live tree's gitleaks JSON and SARIF and secretlint SARIF written with
 * --no-maskSecrets, and the corpus' gitleaks, TruffleHog and trufflehog3 files) are uploaded, every
 * route that shows findings, scans or their history is read, and each response is searched for each
 * secret, as are all rows of all tables.
 */

let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await makeUser(t, { role: 'admin' });
});
afterAll(() => t.close());

const CORPUS_FILES = [
  'gitleaks/data_many.json',
  'gitleaks/redacted_data_many.json',
  'gitleaks/version_7.5.0.json',
  'gitleaks/gitleaks8_many.json',
  'trufflehog/v2_many_vulns.json',
  'trufflehog/v3_git.json',
  'trufflehog/v3_github.json',
  'trufflehog3/many_vulns_legacy.json',
  'trufflehog3/many_vulns_current.json',
];

/** The fields in which these tools write the secret (or a match around it). */
const SECRET_KEYS = new Set(['Secret', 'Match', 'offender', 'Raw', 'RawV2', 'stringsFound', 'secret']);

function secretsIn(value: unknown, found: Set<string>): void {
  if (Array.isArray(value)) for (const item of value) secretsIn(item, found);
  else if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      const candidates = SECRET_KEYS.has(key) ? (Array.isArray(inner) ? inner : [inner]) : [];
      for (const candidate of candidates) {
        // Placeholders of reports redacted by the tool are not secrets.
        if (typeof candidate === 'string' && candidate.trim().length >= 8 && !candidate.includes('REDACTED'))
          found.add(candidate.trim());
      }
      secretsIn(inner, found);
    }
  }
}

/** Every secret of a corpus file (JSON, or TruffleHog's JSON Lines). */
function corpusSecrets(file: string): string[] {
  const text = readFileSync(corpusPath(file), 'utf8');
  const documents = file.startsWith('trufflehog/')
    ? text
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as unknown)
    : [JSON.parse(text) as unknown];
  const found = new Set<string>();
  for (const document of documents) secretsIn(document, found);
  return [...found];
}

const LIVE_REPORTS = ['gitleaks.json', 'gitleaks.sarif', 'secretlint-unmasked.sarif'];

describe('secret values never leave the scanner report (issue 9 item 5)', () => {
  it('appear in no API response and no database row', async () => {
    const secrets = [...liveSecrets(), ...CORPUS_FILES.flatMap(corpusSecrets)];
    // The fixtures really carry them, or this test would prove nothing.
    expect(secrets.length).toBeGreaterThan(40);
    for (const secret of liveSecrets().slice(0, 5)) {
      expect(liveReport('v1', 'gitleaks.json').toString('utf8')).toContain(secret);
    }

    const app = await makeApplication(t, admin);
    const responses: [string, string][] = [];
    const read = async (url: string) => {
      const response = await t.app.inject({ url, headers: admin.headers });
      expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
      responses.push([url, response.body]);
      return response.json() as unknown;
    };
    const ingest = async (file: Buffer, fileName: string, version: string) => {
      const response = await upload(
        t,
        '/api/ingest',
        { 'x-api-token': app.api_token },
        { file, fileName, fields: { version } },
      );
      expect(response.statusCode, `${fileName}: ${response.body}`).toBe(201);
      responses.push([`ingest ${fileName}`, response.body]);
    };
    for (const state of ['v1', 'v2'] as LiveState[]) {
      for (const report of LIVE_REPORTS) await ingest(liveReport(state, report), report, state);
    }
    for (const file of CORPUS_FILES) await ingest(readFileSync(corpusPath(file)), file, 'v1');

    const list = (await read(`/api/findings?applicationId=${app.id}&perPage=200`)) as {
      findings: { id: number; version_id: number }[];
      pagination: { total: number };
    };
    expect(list.findings.length).toBe(list.pagination.total);
    expect(list.findings.length).toBeGreaterThan(20);
    for (const finding of list.findings) {
      await read(`/api/findings/${finding.id}`);
      await read(`/api/findings/${finding.id}/timeline`);
    }
    const versions = [...new Set(list.findings.map((f) => f.version_id))];
    for (const versionId of versions)
      await read(`/api/applications/${app.id}/versions/${versionId}/findings`);
    await read(`/api/applications/${app.id}/versions/compare?from=v1&to=v2`);
    await read(`/api/applications/${app.id}/versions`);
    await read(`/api/applications/${app.id}`);
    const scans = (await read(`/api/scans?applicationId=${app.id}`)) as { id: number }[];
    for (const scan of scans) await read(`/api/scans/${scan.id}`);
    await read('/api/dashboard/stats');

    for (const [url, body] of responses) {
      for (const secret of secrets) expect(body, `${url} shows a secret`).not.toContain(secret);
    }

    const tables = await sql<{ table_name: string }>`
      select table_name from information_schema.tables
      where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(t.db);
    expect(tables.rows.map((row) => row.table_name)).toContain('findings');
    for (const { table_name: table } of tables.rows) {
      const rows = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(t.db);
      const dump = JSON.stringify(rows.rows);
      for (const secret of secrets) expect(dump, `table ${table} holds a secret`).not.toContain(secret);
    }
  });
});
