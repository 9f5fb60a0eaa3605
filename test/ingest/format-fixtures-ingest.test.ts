import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeApplication, makeGroup, makeUser, type TestUser } from '../support/factories.ts';
import { formatFixturePath, TOOL_ISSUE_COUNTS } from '../support/format-fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { upload } from '../support/upload.ts';

/**
 * Every regenerated tool report (test/fixtures/formats/<format>/) goes through `POST /api/ingest`
 * as a CI job sends it: no scannerType, the format detected from content, and the tool's own count.
 */

const reports = Object.keys(TOOL_ISSUE_COUNTS).flatMap((format) =>
  readdirSync(formatFixturePath(format), { withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => ({ format, file: `${format}/${entry.name}` })),
);

let t: TestApp;
let admin: TestUser;
let groupId: number;

beforeAll(async () => {
  t = await createTestApp();
  admin = await makeUser(t, { role: 'admin' });
  groupId = (await makeGroup(t, admin)).id;
});
afterAll(() => t.close());

describe('every regenerated tool report ingests through POST /api/ingest', () => {
  it('covers all six formats', () => {
    expect(new Set(reports.map((report) => report.format)).size).toBe(6);
  });

  it.each(reports)('$file is detected as $format with the tool’s own count', async ({ format, file }) => {
    const count = TOOL_ISSUE_COUNTS[format]?.(file) ?? -1;
    expect(count).toBeGreaterThan(0);
    const app = await makeApplication(t, admin, { groupId });
    const response = await upload(
      t,
      '/api/ingest',
      { 'x-api-token': app.api_token },
      { file: readFileSync(formatFixturePath(file)), fileName: file.split('/').pop() ?? 'report' },
    );
    expect(response.statusCode, response.body).toBe(201);
    const body = response.json();
    expect(body.scan.scanner_type).toBe(format);
    expect(body.findings_count).toBe(count);
    expect(body.new_findings_count).toBe(count);
    const stored = await t.db
      .selectFrom('findings')
      .select('id')
      .where('application_id', '=', app.id)
      .execute();
    expect(stored).toHaveLength(count);
  });
});
