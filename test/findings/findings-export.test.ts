import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeApplication, makeFinding, makeUser, type TestUser } from '../support/factories.ts';
import { liveReport } from '../support/live-fixtures.ts';
import { buildSarif } from '../support/sarif-builder.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { upload } from '../support/upload.ts';

let t: TestApp;
let admin: TestUser;
let outsider: TestUser;
let app: Awaited<ReturnType<typeof makeApplication>>;

beforeAll(async () => {
  t = await createTestApp();
  admin = await makeUser(t, { role: 'admin' });
  outsider = await makeUser(t);
  app = await makeApplication(t, admin);
});
afterAll(() => t.close());

/** The official SARIF 2.1.0 schema (draft-04 `id` keyword dropped; nothing else in it is draft-04 only). */
function sarifValidator() {
  const require = createRequire(import.meta.url);
  const path = require.resolve('@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json');
  const schema = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  delete schema.$schema;
  delete schema.id;
  // The schema's `language` pattern is not valid with the `u` flag; it was written for ECMA-262 without it.
  const ajv = new Ajv({ strict: false, allErrors: true, unicodeRegExp: false });
  const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
  addFormats(ajv);
  return ajv.compile(schema);
}

/** Parses RFC 4180 CSV (quoted fields, doubled quotes, CRLF). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (char === '"') quoted = false;
      else cell += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      row.push(cell);
      cell = '';
    } else if (char === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += char;
  }
  return rows;
}

const get = (url: string, headers: Record<string, string>) => t.app.inject({ url, headers });

describe('GET /api/findings as CSV', () => {
  it('exports every matching row (more than perPage) with RFC 4180 quoting and formula neutralisation', async () => {
    const target = await makeApplication(t, admin);
    const hostile = [
      '=HYPERLINK("http://evil.test","click")',
      '+1+2',
      '-2+3',
      '@SUM(A1)',
      '\tTabbed',
      'Comma, "quoted" and\nnewline',
    ];
    for (const title of hostile) await makeFinding(t, target.id, { title, severity: 'critical' });
    const rows = Array.from({ length: 240 }, (_, index) => index);
    for (const index of rows) await makeFinding(t, target.id, { title: `plain ${index}`, severity: 'low' });

    const response = await get(`/api/findings?applicationId=${target.id}`, {
      ...admin.headers,
      accept: 'text/csv',
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toContain('text/csv');
    expect(response.body.endsWith('\r\n')).toBe(true);
    const table = parseCsv(response.body);
    const header = table[0] ?? [];
    expect(header.slice(0, 6)).toEqual(['id', 'application_id', 'version_id', 'severity', 'status', 'title']);
    expect(table.length - 1).toBe(246); // no 200 cap
    const titles = table.slice(1).map((row) => row[header.indexOf('title')]);
    expect(titles).toContain(`'=HYPERLINK("http://evil.test","click")`);
    expect(titles).toContain("'+1+2");
    expect(titles).toContain("'-2+3");
    expect(titles).toContain("'@SUM(A1)");
    expect(titles).toContain("'\tTabbed");
    expect(titles).toContain('Comma, "quoted" and\nnewline');
    expect(response.body).toContain('"Comma, ""quoted"" and\nnewline"');
    const ids = table.slice(1).map((row) => Number(row[0]));
    expect(ids).toEqual([...ids].sort((a, b) => a - b)); // id order, keyset walk

    const filtered = await get(
      `/api/findings?applicationId=${target.id}&severity=critical&format=csv`,
      admin.headers,
    );
    expect(parseCsv(filtered.body).length - 1).toBe(6);
  });

  it('quotes every text cell and neutralises formulas after `;`, `,` and tab, as the review reproduced them', async () => {
    const target = await makeApplication(t, admin);
    await makeFinding(t, target.id, {
      title: 'Hardcoded secret;=2*21;',
      file_path: "src/x;=cmd|' /C calc'!A0;.js",
    });
    await makeFinding(t, target.id, { title: 'a,+1\t@SUM(A1);  -3', file_path: 'src/y.js' });
    const response = await get(`/api/findings?applicationId=${target.id}&format=csv`, admin.headers);
    expect(response.statusCode).toBe(200);
    const lines = response.body.split('\r\n').filter((line) => line !== '');
    expect(lines).toHaveLength(3);
    // A spreadsheet that splits on `;` (many locales), on `,` or on tab, quotes or not.
    for (const line of lines.slice(1)) {
      for (const separator of [';', ',', '\t']) {
        for (const part of line.split(separator)) expect(part.replace(/^[ "]*/, '')).not.toMatch(/^[=+\-@]/);
      }
    }
    const table = parseCsv(response.body);
    const header = table[0] ?? [];
    const titles = table.slice(1).map((row) => row[header.indexOf('title')]);
    expect(titles).toEqual(["Hardcoded secret;'=2*21;", "a,'+1\t'@SUM(A1);'  -3"]);
    expect(table[1]?.[header.indexOf('file_path')]).toBe("src/x;'=cmd|' /C calc'!A0;.js");
    // Every text cell is quoted; numbers are not.
    expect(lines[1]).toMatch(/^\d+,\d+,\d+,"high","open","Hardcoded secret;'=2\*21;",/);
  });

  it('a bad filter is still a 400 problem, and access limits the rows', async () => {
    const page = await get('/api/findings?format=json&perPage=1', { ...admin.headers, accept: 'text/csv' });
    expect(page.headers['content-type']).toContain('application/json');
    expect(page.json()).toMatchObject({ pagination: { perPage: 1 } });
    const bad = await get('/api/findings?severity=urgent', { ...admin.headers, accept: 'text/csv' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'validation_failed' });

    await makeFinding(t, app.id, { title: 'secret stuff' });
    const other = await get(`/api/findings?applicationId=${app.id}`, {
      ...outsider.headers,
      accept: 'text/csv',
    });
    expect(other.statusCode).toBe(200);
    expect(parseCsv(other.body)).toHaveLength(1); // header only

    const token = await get(`/api/findings?format=csv`, { 'x-api-token': app.api_token });
    const appIds = new Set(
      parseCsv(token.body)
        .slice(1)
        .map((row) => row[1]),
    );
    expect([...appIds]).toEqual([String(app.id)]);
  });
});

/** `count` findings in one statement (the factory's values), for exports longer than one batch. */
async function bulkFindings(applicationId: number, count: number): Promise<void> {
  const version = await t.db
    .selectFrom('application_versions')
    .select('id')
    .where('application_id', '=', applicationId)
    .executeTakeFirstOrThrow();
  const scanner = await t.db
    .selectFrom('scanner_types')
    .select('id')
    .where('name', '=', 'sarif')
    .executeTakeFirstOrThrow();
  await sql`insert into findings (application_id, version_id, scanner_type_id, fingerprint, identity_base, kind,
      title, severity, severity_rank, status, tool_name, file_path, line, risk_score, risk_severity,
      risk_exploitation, risk_age, risk_asset, risk_formula_version)
    select ${applicationId}::integer, ${version.id}::integer, ${scanner.id}::integer, 'bulk-' || n, 'bulk-' || n, 'code',
      'bulk finding ' || n, 'low', 2, 'open', 'BulkTool', 'src/bulk/' || n || '.ts', n, 10, 2.5, 0.2, 0, 0.65, 1
    from generate_series(1, ${count}::integer) as n`.execute(t.db);
}

describe('exports longer than one keyset batch', () => {
  it('CSV and NDJSON carry every row once, in id order, across batches of 500', async () => {
    const target = await makeApplication(t, admin);
    await bulkFindings(target.id, 1234);
    const csv = await get(`/api/findings?applicationId=${target.id}&format=csv`, admin.headers);
    const ids = parseCsv(csv.body)
      .slice(1)
      .map((row) => Number(row[0]));
    expect(ids).toHaveLength(1234);
    expect(new Set(ids).size).toBe(1234);
    expect(ids.every((id, index) => index === 0 || id > (ids[index - 1] ?? 0))).toBe(true);
    const ndjson = await get(`/api/findings?applicationId=${target.id}&format=ndjson`, admin.headers);
    expect(ndjson.body.trim().split('\n')).toHaveLength(1234);
    const sarif = await get(`/api/findings?applicationId=${target.id}&format=sarif`, admin.headers);
    const log = sarif.json() as { runs: { results: unknown[]; tool: { driver: { name: string } } }[] };
    expect(log.runs).toHaveLength(1);
    expect(log.runs[0]?.tool.driver.name).toBe('BulkTool');
    expect(log.runs[0]?.results).toHaveLength(1234);
    expect(sarifValidator()(log)).toBe(true);
  });
});

describe('GET /api/findings as NDJSON', () => {
  it('streams one finding record a line', async () => {
    const target = await makeApplication(t, admin);
    for (let i = 0; i < 3; i++) await makeFinding(t, target.id);
    const response = await get(`/api/findings?applicationId=${target.id}`, {
      ...admin.headers,
      accept: 'application/x-ndjson',
    });
    const lines = response.body
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { application_id: number });
    expect(lines).toHaveLength(3);
    expect(lines.every((line) => line.application_id === target.id)).toBe(true);
  });
});

describe('GET /api/findings as SARIF', () => {
  it('is valid SARIF 2.1.0 with one run per tool, relative URIs, fingerprints and security-severity', async () => {
    const target = await makeApplication(t, admin);
    for (const file of ['sarif/codeQL-output.sarif', 'sarif/flawfinder.sarif']) {
      const response = await upload(
        t,
        '/api/ingest',
        { 'x-api-token': target.api_token },
        {
          file: `corpus:${file}`,
          fileName: 'report.sarif',
          fields: { version: 'main' },
        },
      );
      expect(response.statusCode, response.body).toBe(201);
    }
    const response = await get(`/api/findings?applicationId=${target.id}&version=main`, {
      'x-api-token': target.api_token,
      accept: 'application/sarif+json',
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toContain('application/sarif+json');
    const log = response.json() as {
      version: string;
      runs: {
        tool: { driver: { name: string; rules: { id: string; properties: Record<string, string> }[] } };
        results: {
          ruleId: string;
          level: string;
          message: { text: string };
          partialFingerprints: Record<string, string>;
          locations?: {
            physicalLocation: { artifactLocation: { uri: string }; region?: { startLine: number } };
          }[];
        }[];
      }[];
    };
    const validate = sarifValidator();
    expect(validate({ version: '2.1.0', runs: [{ results: [] }] })).toBe(false); // the schema bites: no tool
    expect(validate(log), JSON.stringify(validate.errors?.slice(0, 5))).toBe(true);
    expect(log.version).toBe('2.1.0');
    expect(log.runs.map((run) => run.tool.driver.name).sort()).toEqual(['CodeQL', 'Flawfinder']);
    const securityRules = log.runs
      .flatMap((run) => run.tool.driver.rules)
      .filter((rule) => 'security-severity' in rule.properties);
    expect(securityRules.length).toBeGreaterThan(0);
    const open = await get(
      `/api/findings?applicationId=${target.id}&status=open,confirmed&perPage=1`,
      admin.headers,
    );
    const total = log.runs.reduce((sum, run) => sum + run.results.length, 0);
    expect(total).toBe(open.json().pagination.total);
    for (const run of log.runs) {
      const ruleIds = new Set(run.tool.driver.rules.map((rule) => rule.id));
      // Security rules have a security-severity; CodeQL's quality queries (no `security` tag) have none.
      for (const rule of run.tool.driver.rules) {
        const tags = rule.properties.tags as unknown as string[];
        if (tags.includes('security'))
          expect(Number(rule.properties['security-severity'])).toBeGreaterThanOrEqual(0);
        else {
          expect(tags).toContain('quality');
          expect(rule.properties).not.toHaveProperty('security-severity');
        }
      }
      for (const result of run.results) {
        expect(ruleIds.has(result.ruleId)).toBe(true);
        expect(['error', 'warning', 'note']).toContain(result.level);
        expect(result.message.text).not.toBe('');
        expect(result.partialFingerprints['scanhub/v1']).toMatch(/.+/);
        for (const location of result.locations ?? []) {
          expect(location.physicalLocation.artifactLocation.uri).not.toMatch(/^(\/|[a-z]+:)/i);
          if (location.physicalLocation.region)
            expect(location.physicalLocation.region.startLine).toBeGreaterThanOrEqual(1);
        }
      }
    }
    const other = await get(`/api/findings?applicationId=${target.id}&format=sarif`, outsider.headers);
    expect(other.json()).toMatchObject({ version: '2.1.0', runs: [] });
    expect(validate(other.json())).toBe(true);
  });
});

describe('GET /api/findings as SARIF: the concern', () => {
  it('results carry properties.concern; security rules are tagged security with a security-severity, quality rules neither', async () => {
    const target = await makeApplication(t, admin);
    const response = await upload(
      t,
      '/api/ingest',
      { 'x-api-token': target.api_token },
      { file: liveReport('v1', 'eslint.sarif'), fileName: 'eslint.sarif' },
    );
    expect(response.statusCode, response.body).toBe(201);
    // One rule reported as quality first, then as security (a SARIF tool's results tagged apart).
    const mixedQuality = await makeFinding(t, target.id, {
      rule_id: 'mixed',
      concern: 'quality',
      severity: 'low',
    });
    const mixedSecurity = await makeFinding(t, target.id, {
      rule_id: 'mixed',
      concern: 'security',
      severity: 'medium',
    });
    await makeFinding(t, target.id, {
      rule_id: 'style',
      concern: 'quality',
      severity: 'high',
      cwe_ids: [1164],
    });
    const log = (
      await get(`/api/findings?applicationId=${target.id}&format=sarif`, admin.headers)
    ).json() as {
      runs: {
        tool: { driver: { name: string; rules: { id: string; properties: Record<string, unknown> }[] } };
        results: { ruleId: string; properties: { 'scanhub-id': number; concern: string } }[];
      }[];
    };
    expect(sarifValidator()(log)).toBe(true);
    const stored = await t.db
      .selectFrom('findings')
      .select(['id', 'concern'])
      .where('application_id', '=', target.id)
      .execute();
    const concernOf = new Map(stored.map((row) => [row.id, row.concern]));
    const results = log.runs.flatMap((run) => run.results);
    expect(results).toHaveLength(stored.length);
    for (const result of results)
      expect(result.properties.concern).toBe(concernOf.get(result.properties['scanhub-id']));
    expect(new Set(results.map((result) => result.properties.concern))).toEqual(
      new Set(['security', 'quality']),
    );

    const rules = Object.fromEntries(
      log.runs.flatMap((run) =>
        run.tool.driver.rules.map((rule) => [`${run.tool.driver.name}:${rule.id}`, rule]),
      ),
    );
    expect(rules['ESLint:no-eval']?.properties).toMatchObject({ tags: expect.arrayContaining(['security']) });
    expect(rules['ESLint:no-eval']?.properties['security-severity']).toMatch(/^\d+\.\d$/);
    for (const id of ['ESLint:eqeqeq', 'ESLint:no-unused-vars']) {
      expect(rules[id]?.properties.tags, id).toContain('quality');
      expect(rules[id]?.properties.tags, id).not.toContain('security');
      expect(rules[id]?.properties, id).not.toHaveProperty('security-severity');
    }
    expect(rules['TestTool:style']?.properties).toEqual({ tags: ['quality', 'external/cwe/cwe-1164'] });
    expect(rules['TestTool:mixed']?.properties).toEqual({ 'security-severity': '5.5', tags: ['security'] });
    expect(concernOf.get(mixedQuality.id)).toBe('quality');
    expect(concernOf.get(mixedSecurity.id)).toBe('security');
  });
});

describe('GET /api/findings?new_in_scan', () => {
  it('counts what a scan made new: first reported by it, or reopened by it', async () => {
    const target = await makeApplication(t, admin);
    const token = { 'x-api-token': target.api_token };
    const results = [
      { ruleId: 'R1', path: 'src/a.ts', line: 3 },
      { ruleId: 'R2', path: 'src/b.ts', line: 4 },
    ];
    const send = async (sarif: string) => {
      const response = await upload(t, '/api/ingest', token, { file: sarif, fileName: 'r.sarif' });
      expect(response.statusCode, response.body).toBe(201);
      return response.json().scan.id as number;
    };
    const count = async (scanId: number, auth: Record<string, string>) => {
      const response = await get(`/api/findings?newInScan=${scanId}&perPage=1`, auth);
      expect(response.statusCode, response.body).toBe(200);
      return response.json().pagination.total as number;
    };
    const first = await send(buildSarif({ results }));
    expect(await count(first, token)).toBe(2);
    const again = await send(buildSarif({ results }));
    expect(await count(again, token)).toBe(0);
    const closing = await send(buildSarif({ results: results.slice(0, 1) }));
    expect(await count(closing, token)).toBe(0);
    const back = await send(
      buildSarif({ results: [...results, { ruleId: 'R3', path: 'src/c.ts', line: 5 }] }),
    );
    expect(await count(back, token)).toBe(2); // R2 reopened, R3 new
    expect(await count(back, admin.headers)).toBe(2);
    expect(await count(back, outsider.headers)).toBe(0);
    expect(await count(back, { 'x-api-token': app.api_token })).toBe(0);
  });
});
