import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeApplication, makeGroup, makeUser, type TestUser } from '../support/factories.ts';
import { corpusPath } from '../support/parse-corpus.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { upload } from '../support/upload.ts';

/**
 * Every corpus file goes through `POST /api/ingest` as a CI job would send it: no scannerType, the
 * format detected from content, and the count DefectDojo's own tests expect (MANIFEST.tsv).
 */

interface Row {
  format: string;
  file: string;
  expected: number | null;
}

const rows: Row[] = readFileSync(corpusPath('MANIFEST.tsv'), 'utf8')
  .split('\n')
  .slice(1)
  .filter((line) => line.trim() !== '')
  .map((line) => {
    const [format = '', file = '', , , , expected = ''] = line.split('\t');
    return { format, file, expected: expected === '' ? null : Number(expected) };
  });

/** Where scanhub deliberately differs from DefectDojo, with the parser test that explains why. */
const OUTCOME: Record<string, { format?: string; count?: number; scannerType?: string; status?: number }> = {
  // One finding per distinct secret (docs/architecture.md, "Finding identity"); DefectDojo merges
  // per file and reason.
  'trufflehog/v2_many_vulns.json': { count: 19 },
  'trufflehog3/many_vulns_legacy.json': { count: 21 },
  // MANIFEST gives no number for these; the parser tests pin them against the file's content.
  'checkov/checkov-report-many-vuln.json': { count: 3 },
  'gitlab_dep_scan/gl-dependency-scanning-report-many-vuln_v15.json': { count: 6 },
  'dependency_check/dc_empty.xml': { count: 0 },
  // npm 7 output kept in the npm_audit folder: content decides.
  'npm_audit/many_vuln_npm7.json': { format: 'npm_audit_7_plus', count: 15 },
  // npm's own error report (ENOAUDIT): not a scan result, refused with npm's reason.
  'npm_audit/empty_with_error.json': { status: 400 },
  // Empty output (zero bytes or a bare []) names no tool: the CI job names it.
  'nuclei/empty.jsonl': { scannerType: 'nuclei', count: 0 },
  'osv_scanner/no_findings.json': { scannerType: 'osv_scanner', count: 0 },
  'trufflehog3/zero_vulns.json': { scannerType: 'trufflehog3', count: 0 },
};

let t: TestApp;
let admin: TestUser;
let groupId: number;

beforeAll(async () => {
  t = await createTestApp();
  admin = await makeUser(t, { role: 'admin' });
  groupId = (await makeGroup(t, admin)).id;
});
afterAll(() => t.close());

describe('every corpus file ingests through POST /api/ingest', () => {
  for (const row of rows) {
    const outcome = OUTCOME[row.file] ?? {};
    it(`${row.file} → ${outcome.format ?? row.format}`, async () => {
      const app = await makeApplication(t, admin, { groupId });
      const fields = outcome.scannerType ? { scannerType: outcome.scannerType } : undefined;
      const response = await upload(
        t,
        '/api/ingest',
        { 'x-api-token': app.api_token },
        {
          file: `corpus:${row.file}`,
          fileName: row.file.split('/').pop() ?? 'report',
          ...(fields ? { fields } : {}),
        },
      );
      if (outcome.status) {
        expect(response.statusCode).toBe(outcome.status);
        expect(response.headers['content-type']).toContain('application/problem+json');
        return;
      }
      expect(response.statusCode, response.body).toBe(201);
      const body = response.json();
      const count = outcome.count ?? row.expected;
      expect(body.scan.scanner_type).toBe(outcome.format ?? row.format);
      expect(body.findings_count).toBe(count);
      // Distinct findings stay distinct: dedup never merges what the parser kept apart.
      expect(body.new_findings_count).toBe(count);
      const stored = await t.db
        .selectFrom('findings')
        .select('id')
        .where('application_id', '=', app.id)
        .execute();
      expect(stored).toHaveLength(count ?? -1);
    });
  }
});
