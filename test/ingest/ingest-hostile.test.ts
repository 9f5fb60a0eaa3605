import { readdirSync, statSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gzipBomb } from '../../bench/gzip-bomb.ts';
import { FIELD_CAPS, TRUNCATED_MARKER } from '../../src/ingest/cap-fields.ts';
import { makeApplication, makeUser, type TestUser } from '../support/factories.ts';
import { rawPost, rawRequest, type RawResponse } from '../support/raw-http.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { multipartBody } from '../support/upload.ts';

/** Large enough for the 50 MB report below, small enough that a bomb crosses it quickly. */
const UPLOAD_LIMIT = 64 * 1024 * 1024;

let t: TestApp;
let port: number;
let admin: TestUser;
let bomb: Buffer;

beforeAll(async () => {
  t = await createTestApp({ uploadLimitBytes: UPLOAD_LIMIT });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as AddressInfo).port;
  admin = await makeUser(t, { role: 'admin' });
  bomb = await gzipBomb(1024 ** 3);
}, 120_000);
afterAll(() => t.close());

const spooled = (): string[] => {
  try {
    const uploads = join(t.config.dataDir, 'uploads');
    // Files only: the per-process spool directory itself stays.
    return readdirSync(uploads, { recursive: true })
      .map(String)
      .filter((name) => statSync(join(uploads, name)).isFile());
  } catch {
    return [];
  }
};

const scansOf = async (applicationId: number) =>
  t.db.selectFrom('scans').select('id').where('application_id', '=', applicationId).execute();

function expectProblem(response: RawResponse, status: number, code?: string): void {
  expect(response.status, response.body).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  if (code) expect(JSON.parse(response.body)).toMatchObject({ status, code });
}

/** Multipart bodies written by hand: each one is something a well-behaved client never sends. */
const BOUNDARY = 'xYzBoundary';
const part = (headers: string, content: string): string =>
  `--${BOUNDARY}\r\n${headers}\r\n\r\n${content}\r\n`;
const filePart = (content: string, filename = 'report.sarif'): string =>
  part(
    `Content-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/json`,
    content,
  );
const SARIF = '{"version":"2.1.0","runs":[]}';

const MALFORMED: { name: string; contentType: string; body: string; code?: string }[] = [
  {
    name: 'no file part',
    contentType: `multipart/form-data; boundary=${BOUNDARY}`,
    body: `${part('Content-Disposition: form-data; name="version"', '1.0')}--${BOUNDARY}--\r\n`,
    code: 'file_required',
  },
  {
    name: 'two file parts',
    contentType: `multipart/form-data; boundary=${BOUNDARY}`,
    body: `${filePart(SARIF)}${filePart(SARIF, 'second.sarif')}--${BOUNDARY}--\r\n`,
    code: 'multiple_files',
  },
  {
    name: 'an empty file without a scanner type',
    contentType: `multipart/form-data; boundary=${BOUNDARY}`,
    body: `${filePart('')}--${BOUNDARY}--\r\n`,
    code: 'empty_file',
  },
  {
    name: 'no boundary in the content type',
    contentType: 'multipart/form-data',
    body: `${filePart(SARIF)}--${BOUNDARY}--\r\n`,
  },
  {
    name: 'a body that ends before its closing boundary',
    contentType: `multipart/form-data; boundary=${BOUNDARY}`,
    body: `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="r.sarif"\r\n\r\n{"version":`,
  },
  {
    name: 'a part without headers',
    contentType: `multipart/form-data; boundary=${BOUNDARY}`,
    body: `--${BOUNDARY}\r\n\r\n${SARIF}\r\n--${BOUNDARY}--\r\n`,
  },
];

describe('malformed multipart through a real port', () => {
  for (const testCase of MALFORMED) {
    it(`400 for ${testCase.name}, nothing stored`, async () => {
      const app = await makeApplication(t, admin);
      const response = await rawRequest(
        port,
        rawPost(
          '/api/ingest',
          { 'X-Api-Token': app.api_token, 'Content-Type': testCase.contentType },
          Buffer.from(testCase.body, 'latin1'),
        ),
      );
      expectProblem(response, 400, testCase.code);
      expect(await scansOf(app.id)).toEqual([]);
      expect(spooled()).toEqual([]);
    });
  }
});

describe('a raw CR/LF inside the file name', () => {
  // busboy ends the Content-Disposition header at the line break and skips the line after it, so the
  // upload goes through under the name before the break: the name can never carry a line or a header.
  it('is answered without a 5xx and never stores a line break', async () => {
    const app = await makeApplication(t, admin);
    const body = `${filePart(SARIF, 'a\r\nX-Injected: 1\r\nb.sarif')}--${BOUNDARY}--\r\n`;
    const response = await rawRequest(
      port,
      rawPost(
        '/api/ingest',
        { 'X-Api-Token': app.api_token, 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}` },
        Buffer.from(body, 'latin1'),
      ),
    );
    expect(response.status).toBeLessThan(500);
    const names = await t.db
      .selectFrom('scans')
      .select('file_name')
      .where('application_id', '=', app.id)
      .execute();
    for (const { file_name } of names) expect(file_name).not.toMatch(/[\r\n]|Injected/);
    expect(spooled()).toEqual([]);
  });
});

describe('compression bombs through a real port', () => {
  const sendBomb = async (applicationToken: string) => {
    const { body, contentType } = multipartBody({ file: bomb, fileName: 'bomb.sarif.gz' });
    return rawRequest(
      port,
      rawPost('/api/ingest', { 'X-Api-Token': applicationToken, 'Content-Type': contentType }, body),
    );
  };

  it('413 for a 1 MB .gz that inflates to 1 GiB, without keeping anything', async () => {
    const app = await makeApplication(t, admin);
    const rssBefore = process.memoryUsage().rss;
    const response = await sendBomb(app.api_token);
    expectProblem(response, 413, 'payload_too_large');
    // Inflated bytes are counted and dropped: the process never holds the 1 GiB (nor the 64 MiB limit).
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(UPLOAD_LIMIT);
    expect(await scansOf(app.id)).toEqual([]);
    expect(spooled()).toEqual([]);
  });

  it('413 for three bombs sent at once', async () => {
    const app = await makeApplication(t, admin);
    const responses = await Promise.all([1, 2, 3].map(() => sendBomb(app.api_token)));
    for (const response of responses) expectProblem(response, 413, 'payload_too_large');
    expect(spooled()).toEqual([]);
  });

  it('415 for a gzip Content-Encoding on the form (a gzipped file is the supported way)', async () => {
    const app = await makeApplication(t, admin);
    const { gzipSync } = await import('node:zlib');
    const { body, contentType } = multipartBody({ file: SARIF });
    const response = await rawRequest(
      port,
      rawPost(
        '/api/ingest',
        { 'X-Api-Token': app.api_token, 'Content-Type': contentType, 'Content-Encoding': 'gzip' },
        gzipSync(body),
      ),
    );
    expectProblem(response, 415, 'unsupported_content_encoding');
    expect(await scansOf(app.id)).toEqual([]);
  });

  it('a gzip upload inside the limit is still accepted', async () => {
    const app = await makeApplication(t, admin);
    const { gzipSync } = await import('node:zlib');
    const { body, contentType } = multipartBody({ file: gzipSync(SARIF), fileName: 'r.sarif.gz' });
    const response = await rawRequest(
      port,
      rawPost('/api/ingest', { 'X-Api-Token': app.api_token, 'Content-Type': contentType }, body),
    );
    expect(response.status, response.body).toBe(201);
  });
});

describe('oversized report strings are capped, never refused', () => {
  it('a 50 MB tool name and a 1 MB description are stored cut, and answers stay small', async () => {
    const app = await makeApplication(t, admin);
    const hugeName = 'N'.repeat(50 * 1024 * 1024);
    const longText = 'word '.repeat(200_000);
    const sarif = JSON.stringify({
      version: '2.1.0',
      runs: [
        {
          tool: {
            driver: {
              name: hugeName,
              version: 'v'.repeat(1024 * 1024),
              rules: [{ id: 'R1', fullDescription: { text: longText }, help: { text: longText } }],
            },
          },
          results: [
            {
              ruleId: 'R1',
              message: { text: longText },
              locations: [
                {
                  physicalLocation: {
                    artifactLocation: { uri: `src/${'d/'.repeat(10_000)}f.js` },
                    region: { startLine: 1, snippet: { text: 'x'.repeat(100_000) } },
                  },
                },
              ],
            },
          ],
        },
      ],
    });
    const { body, contentType } = multipartBody({ file: sarif, fileName: 'big.sarif' });
    const response = await rawRequest(
      port,
      rawPost('/api/ingest', { 'X-Api-Token': app.api_token, 'Content-Type': contentType }, body),
      120_000,
    );
    expect(response.status, response.body.slice(0, 300)).toBe(201);
    expect(response.body.length).toBeLessThan(16 * 1024);
    const scan = JSON.parse(response.body).scan as { tool_name: string; tool_version: string };
    expect(scan.tool_name.length).toBeLessThanOrEqual(FIELD_CAPS.toolName);
    expect(scan.tool_name.endsWith(TRUNCATED_MARKER)).toBe(true);
    expect(scan.tool_version.length).toBeLessThanOrEqual(FIELD_CAPS.toolVersion);

    const list = await t.app.inject({ method: 'GET', url: '/api/scans', headers: admin.headers });
    expect(list.statusCode).toBe(200);
    expect(list.body.length).toBeLessThan(1024 * 1024);

    const finding = await t.db
      .selectFrom('findings')
      .select(['title', 'description', 'remediation', 'snippet', 'file_path'])
      .where('application_id', '=', app.id)
      .executeTakeFirstOrThrow();
    expect(finding.title.length).toBeLessThanOrEqual(FIELD_CAPS.title);
    for (const [field, cap] of [
      [finding.description, FIELD_CAPS.description],
      [finding.remediation, FIELD_CAPS.remediation],
      [finding.snippet, FIELD_CAPS.snippet],
      [finding.file_path, FIELD_CAPS.filePath],
    ] as const) {
      expect(field?.length).toBeLessThanOrEqual(cap);
      expect(field?.endsWith(TRUNCATED_MARKER)).toBe(true);
    }
  }, 180_000);
});
